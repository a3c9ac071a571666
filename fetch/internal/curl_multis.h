// fetch/internal/curl_multis.h: several libcurl multi handles driven as one,
// by one epoll set and their socket and timer callbacks (curl's
// docs/examples/ephiperfifo.c), so that each holds a bounded share of the
// Fetcher's idle connections.
//
// Why several: libcurl 7.88 walks its whole connection cache on every transfer
// that keeps its connection (curl_multi_remove_handle's close_connect_only
// pass, lib/multi.c; about half the cache per transfer, a cache miss each) and
// once a second to prune dead ones. One multi handle holding 10,000 idle
// connections spent 61 % of a 10,000-host crawl's CPU in that walk
// (docs/benchmarks.md, issue 28). No option skips it, so the Fetcher bounds
// what it walks: each host goes to one multi handle (its connections are only
// found there), and each multi handle keeps at most
// kIdleConnectionsPerMulti idle.
//
// Why the socket API: curl_multi_poll waits on one multi handle only; the
// socket callbacks tell which sockets each handle wants watched, and one
// epoll_wait serves them all.
//
// Example (what Fetcher::Poll does):
//   auto multis = CurlMultis::Create(/*count=*/4, /*max_connects_each=*/1200,
//                                    /*http2=*/false);
//   curl_multi_add_handle((*multis)->multi(i), easy);
//   (*multis)->Run(absl::Seconds(1));  // Waits, then curl acts on what is ready.
//   ... curl_multi_info_read on each multi(i) ...
//
// Internal to sieve::fetch. Single-threaded but for Wakeup. Run costs one
// epoll_wait plus curl's work on the sockets that are ready, O(count) for the
// timers.
#ifndef SIEVE_FETCH_INTERNAL_CURL_MULTIS_H_
#define SIEVE_FETCH_INTERNAL_CURL_MULTIS_H_

#include <curl/curl.h>

#include <atomic>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fetch/internal/curl_handles.h"

namespace sieve::fetch_internal {

// Idle connections one multi handle is given at most: the largest measured
// that keeps libcurl's walks a small part of the CPU per page (19 % of the
// samples at 1,024, 45 % at 4,096: docs/benchmarks.md, issue 36).
inline constexpr long kIdleConnectionsPerMulti = 1024;

class CurlMultis {
 public:
  // `count` multi handles, each with CURLMOPT_MAXCONNECTS max_connects_each
  // and HTTP/2 multiplexing when `http2`. REQUIRES: count >= 1.
  static absl::StatusOr<std::unique_ptr<CurlMultis>> Create(
      int count, long max_connects_each, bool http2);
  CurlMultis(const CurlMultis&) = delete;
  CurlMultis& operator=(const CurlMultis&) = delete;
  // REQUIRES: every easy handle was removed from its multi handle.
  ~CurlMultis();

  int size() const { return static_cast<int>(multis_.size()); }
  // REQUIRES: 0 <= i < size().
  CURLM* multi(int i) const { return multis_[i]->handle.get(); }

  // Waits until a socket a multi handle watches is ready, one of their
  // timeouts is due, Wakeup is called or `max_wait` passes (at most 1 s: a
  // bound on any wait, should curl not re-arm a timer), then lets curl act on
  // every socket ready and every timeout due. max_wait = 0 does that without
  // waiting.
  void Run(absl::Duration max_wait);
  // Makes the current Run return, or the next one. Thread-safe.
  void Wakeup();

 private:
  struct Multi {
    CurlMultiPtr handle;
    CurlMultis* set = nullptr;
    int index = 0;
    absl::Time due = absl::InfiniteFuture();  // curl's timer.
  };
  CurlMultis(int epoll_fd, int wake_fd)
      : epoll_fd_(epoll_fd), wake_fd_(wake_fd) {}

  static int OnSocket(CURL* easy, curl_socket_t fd, int what, void* userp,
                      void* socketp);
  static int OnTimer(CURLM* multi, long timeout_ms, void* userp);
  int Watch(int index, curl_socket_t fd, int what);

  const int epoll_fd_;
  const int wake_fd_;  // An eventfd in the epoll set.
  // A Wakeup wrote to wake_fd_ and Run has not read it yet: later Wakeups
  // need not write (one system call and a wake of the epoll set saved each;
  // half of a documentation-site crawl's were such repeats).
  std::atomic<bool> wake_pending_{false};
  // Stable addresses: the callbacks' userp.
  std::vector<std::unique_ptr<Multi>> multis_;
  // By file descriptor: the multi handle whose socket it is in the epoll set,
  // or -1. A socket curl closed before telling may come back as another
  // handle's; this keeps a late CURL_POLL_REMOVE from the first off the second.
  std::vector<int> owner_;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_CURL_MULTIS_H_
