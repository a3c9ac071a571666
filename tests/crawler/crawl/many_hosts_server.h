// tests/crawler/crawl/many_hosts_server.h: many small web sites on loopback,
// one per port of 127.0.0.1, served by one thread (poll), for crawl tests
// that need hundreds of hosts without hundreds of server threads.
//
// Each host answers "/" with links to /1.html ... /<pages-1>.html, each of
// those with a link back to "/", and 404 for anything else (robots.txt
// included). HTTP/1.1, one request per connection (Connection: close).
//
// Example:
//   ManyHostsServer web(/*hosts=*/250, /*pages=*/4);
//   for (const std::string& url : web.RootUrls()) seeds << url << "\n";
//   ... crawl ...
//   EXPECT_EQ(web.requests(), 250 * 5);  // robots.txt + 4 pages per host
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_MANY_HOSTS_SERVER_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_MANY_HOSTS_SERVER_H_

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace sieve::testing_util {

class ManyHostsServer {
 public:
  // Binds `hosts` ports on 127.0.0.1 (the kernel picks them) and starts
  // serving. Fails the test (gtest ADD_FAILURE) if a port cannot be bound.
  ManyHostsServer(int hosts, int pages);
  ~ManyHostsServer();
  ManyHostsServer(const ManyHostsServer&) = delete;
  ManyHostsServer& operator=(const ManyHostsServer&) = delete;

  // "http://127.0.0.1:<port>/" for each host.
  std::vector<std::string> RootUrls() const;
  // Requests answered so far, all hosts.
  int requests() const { return requests_.load(); }

 private:
  void Serve();

  const int pages_;
  std::vector<int> listen_fds_;
  std::vector<int> ports_;
  int wake_[2] = {-1, -1};  // A pipe: a byte in it stops Serve.
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_MANY_HOSTS_SERVER_H_
