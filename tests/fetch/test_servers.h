// tests/fetch/test_servers.h: loopback servers for the fetch tests.
//
// HttpServer wraps cpp-httplib for well-behaved HTTP. RawServer hands each
// accepted TCP connection to a handler on its own thread, for what a real HTTP
// server will not do: never answer, trickle, send forever, reset. Both bind
// 127.0.0.1 (or another loopback address given: Linux routes all of
// 127.0.0.0/8 to lo) on a port the kernel picks.
#ifndef SIEVE_TESTS_FETCH_TEST_SERVERS_H_
#define SIEVE_TESTS_FETCH_TEST_SERVERS_H_

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "fetch/fetcher.h"

namespace sieve::fetch_test {

// Set once when the server shuts down. std::mutex rather than absl::Mutex or
// absl::Notification: the installed Abseil is not built with TSan, which then
// cannot see its synchronisation.
class StopSignal {
 public:
  void Notify();
  bool HasBeenNotified() const;
  // Waits up to `d`; true when notified.
  bool WaitFor(absl::Duration d) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopped_ = false;
};

// One accepted connection, with a read buffer so consecutive keep-alive
// requests parse cleanly.
class Connection {
 public:
  Connection(int fd, const StopSignal& stop) : fd_(fd), stop_(stop) {}
  int fd() const { return fd_; }
  // Reads one request head (through "\r\n\r\n") into `head`; false on EOF,
  // error or stop.
  bool ReadRequestHead(std::string* head);
  // Writes all of `data`; false when the peer has gone.
  bool Send(absl::string_view data);
  // Blocks until the peer closes the connection or the server stops.
  void WaitForClose();
  // Sleeps for `d`; false when the server stopped meanwhile.
  bool Sleep(absl::Duration d) const { return !stop_.WaitFor(d); }
  // Makes the close that follows the handler's return send a TCP RST (SO_LINGER
  // 0).
  void ResetOnClose();

 private:
  const int fd_;
  const StopSignal& stop_;
  std::string buffer_;
};

class RawServer {
 public:
  using Handler = std::function<void(Connection&)>;
  explicit RawServer(Handler handler, std::string address = "127.0.0.1");
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;
  // Stops accepting, shuts down open connections and joins every thread.
  ~RawServer();

  int port() const { return port_; }
  std::string Url(absl::string_view path) const;
  int accepted() const { return accepted_.load(); }
  // Connections open now (accepted, handler not yet returned).
  int open() const { return open_.load(); }
  // Most connections open at the same time, as seen by the server.
  int max_open() const { return max_open_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);

  Handler handler_;
  const std::string address_;
  int listen_fd_ = -1;
  int port_ = 0;
  StopSignal stop_;
  std::atomic<int> accepted_{0};
  std::atomic<int> open_{0};
  std::atomic<int> max_open_{0};
  std::mutex mu_;
  std::set<int> open_fds_;                       // Guarded by mu_.
  std::vector<std::thread> connection_threads_;  // Guarded by mu_.
  std::thread accept_thread_;
};

// cpp-httplib server: register handlers on server(), then Start().
class HttpServer {
 public:
  explicit HttpServer(std::string address = "127.0.0.1")
      : address_(std::move(address)) {}
  ~HttpServer();
  httplib::Server& server() { return server_; }
  void Start();
  int port() const { return port_; }
  std::string Url(absl::string_view path) const;

 private:
  httplib::Server server_;
  const std::string address_;
  int port_ = 0;
  std::thread thread_;
};

// Polls `fetcher` until it has nothing in flight (or 30 s pass) and returns
// every response.
std::vector<FetchResponse> PollUntilIdle(Fetcher& fetcher);

// Submits `request` alone and returns its response (a failed response if none
// came in 30 s).
FetchResponse FetchOne(Fetcher& fetcher, FetchRequest request);

// Options for tests: small bounds so failures show quickly; 127.0.0.1 (and
// only it) allowed past the private-address guard.
FetchOptions TestOptions();

}  // namespace sieve::fetch_test

#endif  // SIEVE_TESTS_FETCH_TEST_SERVERS_H_
