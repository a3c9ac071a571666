// crawler/demo/demo_site.h: serves a SiteGraph over HTTP on 127.0.0.1 (random
// port), in its own threads (cpp-httplib), and logs every request it receives,
// so a test can check at the server what a crawl asked for: paths, times, and
// how many requests ran at once.
//
// It is the one loopback test site of the tree: `sieve crawl --demo` serves it,
// and every crawl test crawls it (their answer key is
// tests/crawler/crawl/site_answer_key.h). Target sieve_test_site, linked by the
// `sieve` binary and the tests; not part of the sieve_crawler library.
//
// Surprises first:
//   - The server runs until the DemoSite is destroyed; the destructor waits for
//     handlers in progress (the slow page included).
//   - Thread-safe: requests(), max_concurrent() may be called while a crawl
//     runs.
//   - It answers without compression (it drops Accept-Encoding): on loopback
//     compression only costs time.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::DemoSite>> site =
//       sieve::DemoSite::Start({.pages = 500});
//   std::string seed = (*site)->root_url();  // "http://127.0.0.1:40123/"
#ifndef SIEVE_CRAWLER_DEMO_DEMO_SITE_H_
#define SIEVE_CRAWLER_DEMO_DEMO_SITE_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/demo/site_graph.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace sieve {

class HostilePages;

struct SiteRequest {
  std::string path;  // Path and query as received.
  absl::Time start;  // When the handler began.
  absl::Time end;    // When the response was ready.
};

class DemoSite {
 public:
  // Binds 127.0.0.1 on a free port and starts serving. Off-site links of the
  // graph point at "localhost:<port>" (another host for the crawler). Internal
  // error if no port can be bound.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<DemoSite>> Start(
      SiteOptions options);
  ~DemoSite();
  DemoSite(const DemoSite&) = delete;
  DemoSite& operator=(const DemoSite&) = delete;

  int port() const { return port_; }
  std::string authority() const;  // "127.0.0.1:<port>"
  // "http://127.0.0.1:<port>/", or https:// with SiteOptions::tls_cert_file.
  std::string root_url() const;
  const SiteGraph& graph() const { return *graph_; }

  std::vector<SiteRequest> requests() const;
  // Most requests the server handled at the same moment.
  int max_concurrent() const { return max_active_.load(); }

 private:
  DemoSite() = default;
  // The HTTP (or HTTPS) server, bound to a free port of 127.0.0.1.
  absl::Status MakeServer(const SiteOptions& options);
  // The catch-all route: the graph's answer, logged in requests_.
  void Serve(const httplib::Request& req, httplib::Response& res);

  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<SiteGraph> graph_;
  std::unique_ptr<HostilePages> hostile_;  // When options.hostile_pages.
  std::thread thread_;
  int port_ = 0;
  bool tls_ = false;  // Serving HTTPS (SiteOptions::tls_cert_file).
  // std::mutex, not absl::Mutex: the installed Abseil has no TSan annotations.
  mutable std::mutex mu_;
  std::vector<SiteRequest> requests_;  // Guarded by mu_.
  std::atomic<int> active_{0};
  std::atomic<int> robots_answered_{0};
  std::atomic<int> max_active_{0};
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_DEMO_DEMO_SITE_H_
