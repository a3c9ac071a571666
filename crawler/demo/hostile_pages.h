// crawler/demo/hostile_pages.h: the test site's hostile pages, served under
// /hostile/ when SiteOptions::hostile_pages is set (the crawl tests; never the
// demo). /hostile/ links each of them:
//   - /hostile/endless: a body that never ends (application/octet-stream);
//   - /hostile/trickle: one byte per second;
//   - /hostile/reset: promises 100 kB, sends 10 bytes, closes the connection;
//   - /hostile/badgzip: Content-Encoding gzip over bytes that are not gzip;
//   - /hostile/binary: 256 KiB of random bytes served as text/html;
//   - /hostile/links10mb: 10 MB of links to /hostile/l/<i> (leaf pages);
//   - /hostile/ok.html -> /hostile/ok2.html: two well-behaved pages.
// None links back into the site graph, so a crawl seeded at /hostile/ sees
// these pages only. Bodies are made once, deterministically (seed 42).
//
// Not linked from /hostile/ (a crawl seeds it itself):
//   - /hostile/big12mb: 12,000,000 bytes of HTML with Content-Length: links
//     to /hostile/l/1000001 ... /hostile/l/1000005 at the start, text after
//     them, and a link to /hostile/l/2000000 in its last bytes (past a 10 MiB
//     cut). Streamed, never held in memory.
#ifndef SIEVE_CRAWLER_DEMO_HOSTILE_PAGES_H_
#define SIEVE_CRAWLER_DEMO_HOSTILE_PAGES_H_

#include <atomic>
#include <string>

namespace httplib {
class Server;
}  // namespace httplib

namespace sieve {

class HostilePages {
 public:
  HostilePages();
  // Adds the routes to `server`. `this` must outlive the server's handlers.
  void Register(httplib::Server& server);
  // Ends the endless and trickling bodies, so the server can stop.
  void Stop() { stopping_.store(true); }

 private:
  // The index and the two well-behaved pages.
  void RegisterPages(httplib::Server& server);
  // Bodies that never end, trickle, or stop short (connection reset).
  void RegisterStreams(httplib::Server& server);
  // Bodies that lie (bad gzip, binary as HTML) or are huge (10 MB of links,
  // 12 MB past the body cap), and the leaves they link.
  void RegisterBodies(httplib::Server& server);

  std::atomic<bool> stopping_{false};
  std::string random_chunk_;
  std::string binary_;
  std::string links_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_DEMO_HOSTILE_PAGES_H_
