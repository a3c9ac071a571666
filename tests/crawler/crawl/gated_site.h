// A loopback site for the crawl's rendering tests: fixed files on
// 127.0.0.1 (a port of its own), every request remembered (path, User-Agent,
// arrival, method, headers), some paths answered with a status instead (a 503
// robots.txt, a 429 with Retry-After),
// and one path (the gate) answered only once the test opens it, so a render
// stays in progress while the test acts (kills a browser, signals sieve).
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_GATED_SITE_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_GATED_SITE_H_

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "httplib.h"

namespace sieve::testing_util {

class GatedSite {
 public:
  // path -> (content type, body). `gate`: the path held until Open(); ""
  // holds nothing. `statuses`: paths answered with that status and no body.
  // Unknown paths get 404.
  using Files = std::map<std::string, std::pair<std::string, std::string>>;
  // `headers`: response headers added for these paths (Set-Cookie,
  // Retry-After...), whatever their answer.
  // POSTs are answered 405, and remembered like the rest.
  using Headers =
      std::map<std::string, std::vector<std::pair<std::string, std::string>>>;
  explicit GatedSite(Files files, std::string gate = "",
                     std::map<std::string, int> statuses = {},
                     Headers headers = {});
  ~GatedSite();  // Opens the gate, then stops the server.

  // One request as it arrived.
  struct Hit {
    std::string path;
    std::string user_agent;
    absl::Time start;
    std::string method;
    httplib::Headers headers;  // every request header
  };

  std::string url(const std::string& path) const;
  // Waits (at most 30 s) until `path` was requested; false if it was not.
  bool WaitFor(const std::string& path);
  // Lets the gate's path be answered, now and from now on.
  void Open();
  // How many times `path` was requested.
  int Requests(const std::string& path) const;
  // Every request so far, in order of arrival.
  std::vector<Hit> Hits() const;
  // The paths requested so far.
  std::set<std::string> Paths() const;

 private:
  const Files files_;
  const std::string gate_;
  const std::map<std::string, int> statuses_;
  const Headers headers_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Hit> hits_;  // Guarded by mu_.
  bool open_ = false;      // Guarded by mu_.
};

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_GATED_SITE_H_
