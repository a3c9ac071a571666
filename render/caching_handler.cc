// render/caching_handler.cc: an LRU list and an index by URL under one mutex.
#include "render/caching_handler.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace sieve {
namespace {

bool Cacheable(const SubresourceRequest& request) {
  return request.method == "GET" && (request.resource_type == "Script" ||
                                     request.resource_type == "Stylesheet");
}

}  // namespace

CachingHandler::CachingHandler(RenderHandler& inner, int64_t max_bytes)
    : inner_(inner), max_bytes_(max_bytes) {}

absl::StatusOr<SubresourceResponse> CachingHandler::Fetch(
    const SubresourceRequest& request) {
  if (!Cacheable(request)) return inner_.Fetch(request);
  {
    absl::MutexLock lock(&mu_);
    if (auto it = index_.find(request.url); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++hits_;
      SubresourceResponse answer = it->second->second;
      answer.from_cache = true;
      return answer;
    }
    ++misses_;
  }
  absl::StatusOr<SubresourceResponse> answer = inner_.Fetch(request);
  const int64_t size =
      answer.ok() ? static_cast<int64_t>(answer->body.size()) : 0;
  if (!answer.ok() || answer->status != 200 || size > max_bytes_ / 2) {
    return answer;
  }
  absl::MutexLock lock(&mu_);
  if (index_.contains(request.url)) return answer;  // another render's miss
  lru_.emplace_front(request.url, *answer);
  // A cookie was that request's answer, not the asset's: later pages (other
  // hosts' browser contexts) get the asset without it.
  HttpHeaders& kept = lru_.front().second.headers;
  kept.erase(std::remove_if(kept.begin(), kept.end(),
                            [](const auto& header) {
                              return absl::EqualsIgnoreCase(header.first,
                                                            "Set-Cookie");
                            }),
             kept.end());
  index_[request.url] = lru_.begin();
  bytes_ += size;
  while (bytes_ > max_bytes_ && !lru_.empty()) {
    bytes_ -= static_cast<int64_t>(lru_.back().second.body.size());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return answer;
}

int64_t CachingHandler::hits() const {
  absl::MutexLock lock(&mu_);
  return hits_;
}

int64_t CachingHandler::misses() const {
  absl::MutexLock lock(&mu_);
  return misses_;
}

int64_t CachingHandler::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

}  // namespace sieve
