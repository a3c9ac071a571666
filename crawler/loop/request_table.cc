// crawler/loop/request_table.cc: the requests in flight and the limits on
// starting more (see request_table.h).
#include "crawler/loop/request_table.h"

#include <algorithm>
#include <utility>

namespace sieve {

uint64_t RequestTable::Add(Request request) {
  const uint64_t id = next_id_++;
  if (request.kind == RequestKind::kPage) ++pages_started_;
  if (options_.max_requests_per_second > 0) {
    // One request per interval, crawl-wide: the next starts one interval
    // after this one, or after the one before it when the loop runs ahead.
    next_start_ = std::max(next_start_, request.start) +
                  absl::Seconds(1 / options_.max_requests_per_second);
  }
  requests_[id] = std::move(request);
  return id;
}

std::optional<Request> RequestTable::Take(uint64_t id) {
  auto it = requests_.find(id);
  if (it == requests_.end()) return std::nullopt;
  Request request = std::move(it->second);
  requests_.erase(it);
  return request;
}

std::optional<absl::Duration> RequestTable::RateWait(absl::Time now) const {
  if (options_.max_requests_per_second <= 0 || now >= next_start_) {
    return std::nullopt;
  }
  return next_start_ - now;
}

}  // namespace sieve
