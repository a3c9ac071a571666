// tests/crawler/crawl/changing_site.h: a small site on 127.0.0.1 whose pages
// change when the test says, for revisit crawls. Each page has a version:
// its body, ETag ("v<N>") and Last-Modified (a date N seconds after a fixed
// one) follow it; a request whose If-None-Match (or, without one,
// If-Modified-Since) names the current version gets 304 with no body. Every
// request is logged with its conditional headers and the status sent.
//
// Pages ("/" links to all of them; robots.txt is a 404 unless the test gives
// one):
//   /always.html  a new version at every request (validators sent)
//   /never.html   never changes (validators sent: revisits get 304)
//   /plain.html   never changes, no validators (the digest decides)
//   /set.html     changes only when the test calls Bump (validators sent)
//
// Example:
//   ChangingSite site;
//   ... crawl site.root_url() with --revisit fixed ...
//   site.Bump("/set.html");
//   for (const ChangingSite::Request& r : site.requests()) ...
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_CHANGING_SITE_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_CHANGING_SITE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace sieve::testing_util {

class ChangingSite {
 public:
  struct Request {
    std::string path;
    absl::Time start;
    absl::Time end;
    int status = 0;
    std::string if_none_match;
    std::string if_modified_since;
    size_t body_bytes = 0;
  };

  // Binds 127.0.0.1 (a free port) and serves, with `robots_txt` as
  // /robots.txt when not empty; fails the test if it cannot.
  explicit ChangingSite(std::string robots_txt = "");
  ~ChangingSite();
  ChangingSite(const ChangingSite&) = delete;
  ChangingSite& operator=(const ChangingSite&) = delete;

  std::string root_url() const;  // "http://127.0.0.1:<port>/"
  // A new version of `path` (one of the pages above).
  void Bump(const std::string& path);
  std::vector<Request> requests() const;
  // The requests for `path`, in order.
  std::vector<Request> requests(const std::string& path) const;

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  const std::string robots_txt_;
  mutable std::mutex mu_;
  std::map<std::string, int> versions_;  // Guarded by mu_.
  std::vector<Request> log_;             // Guarded by mu_.
};

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_CHANGING_SITE_H_
