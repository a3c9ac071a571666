// fetch/internal/start_queue.h: the transfers waiting to start, admitted FIFO
// but at most `per_host` at a time per host:port. Internal to sieve::fetch.
//
// Why not leave the per-host cap to curl (CURLMOPT_MAX_HOST_CONNECTIONS) alone:
// a transfer curl holds back for a free connection already runs its connect and
// total timeouts, so a burst to one host fails with spurious timeouts. Here a
// transfer reaches curl only when its host has room.
//
// Cost: O(1) amortised per transfer; each one is parked (set aside behind its
// busy host) at most once per attempt.
#ifndef SIEVE_FETCH_INTERNAL_START_QUEUE_H_
#define SIEVE_FETCH_INTERNAL_START_QUEUE_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "fetch/internal/transfer.h"

namespace sieve::fetch_internal {

class StartQueue {
 public:
  // `per_host` = 0: no per-host limit.
  explicit StartQueue(int per_host) : per_host_(per_host) {}

  // Appends a new request.
  void Push(std::unique_ptr<Transfer> transfer);
  // Puts a retry ahead of every new request (it was submitted before them).
  void PushFront(std::unique_ptr<Transfer> transfer);

  // The oldest transfer whose host has room, its slot now taken; nullptr when
  // none can start.
  std::unique_ptr<Transfer> PopStartable();

  // A transfer of `host_key` that PopStartable returned has stopped running.
  void Release(const std::string& host_key);

  // Transfers waiting, parked ones included.
  size_t size() const { return fifo_.size() + ready_.size() + parked_count_; }

 private:
  struct Host {
    int running = 0;
    std::deque<std::unique_ptr<Transfer>>
        parked;  // FIFO; waiting for this host.
  };

  const int per_host_;
  std::deque<std::unique_ptr<Transfer>> fifo_;
  // Parked transfers whose host has a free slot again; they start before
  // `fifo_`.
  std::deque<std::unique_ptr<Transfer>> ready_;
  // Only hosts with a running or parked transfer.
  absl::flat_hash_map<std::string, Host> hosts_;
  size_t parked_count_ = 0;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_START_QUEUE_H_
