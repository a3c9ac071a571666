// FrontierCore's admin half: what the URLFrontier API's operators call to
// look at and steer a crawl (ListQueues, GetStats, ListCrawls, DeleteQueue,
// DeleteCrawl, PurgeUrls, BlockQueueUntil, SetDelay, SetCrawlLimit,
// SetActive, GetUrlStatus, ListUrls, CountUrls). The URLs' way through the
// queues (Put, PutDiscovered, GetUrls) is in
// frontier/service/frontier_core.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "frontier/service/frontier_core.h"
#include "frontier/service/internal/unix_seconds.h"

namespace sieve::service {
namespace {

constexpr uint32_t kDefaultPageSize = 100;

bool MatchesFilter(std::string_view url, const std::string& filter,
                   bool ignore_case) {
  if (filter.empty()) return true;
  if (!ignore_case) return url.find(filter) != std::string_view::npos;
  return absl::AsciiStrToLower(std::string(url))
             .find(absl::AsciiStrToLower(filter)) != std::string::npos;
}

}  // namespace

urlfrontier::QueueList FrontierCore::ListQueues(
    const urlfrontier::Pagination& p) {
  urlfrontier::QueueList out;
  const std::string name = CrawlName(p.crawlid());
  out.set_crawlid(name);
  out.set_start(p.start());
  std::lock_guard<std::mutex> lock(mu_);
  auto c = crawls_.find(name);
  if (c == crawls_.end()) return out;
  const absl::Time now = options_.clock();
  ExpireTransitLocked(c->second, now);
  const uint64_t now_s = UnixSeconds(now);
  const uint32_t size = p.size() == 0 ? kDefaultPageSize : p.size();
  uint64_t index = 0;
  for (const auto& [key, q] : c->second.queues) {
    const bool active = !q.pending.empty() &&
                        q.pending.begin()->first <= now_s &&
                        q.blocked_until <= now_s;
    if (!active && !p.include_inactive()) continue;
    if (index >= p.start() && static_cast<uint32_t>(out.values_size()) < size)
      out.add_values(key);
    ++index;
  }
  out.set_total(index);
  out.set_size(static_cast<uint32_t>(out.values_size()));
  return out;
}

urlfrontier::Stats FrontierCore::GetStats(
    const urlfrontier::QueueWithinCrawlParams& p) {
  urlfrontier::Stats out;
  const std::string name = CrawlName(p.crawlid());
  out.set_crawlid(name);
  std::lock_guard<std::mutex> lock(mu_);
  auto c = crawls_.find(name);
  if (c == crawls_.end()) return out;
  const absl::Time now = options_.clock();
  ExpireTransitLocked(c->second, now);
  const uint64_t now_s = UnixSeconds(now);
  uint64_t size = 0, in_process = 0, completed = 0, queues = 0;
  for (const auto& [key, q] : c->second.queues) {
    if (!p.key().empty() && key != p.key()) continue;
    size += q.pending.size();
    in_process += q.in_transit;
    completed += q.completed;
    if (!q.pending.empty() && q.pending.begin()->first <= now_s) ++queues;
  }
  out.set_size(size);
  out.set_inprocess(static_cast<uint32_t>(in_process));
  out.set_numberofqueues(queues);
  (*out.mutable_counts())["completed"] = completed;
  return out;
}

std::vector<std::string> FrontierCore::ListCrawls() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, crawl] : crawls_) out.push_back(name);
  return out;
}

absl::StatusOr<uint64_t> FrontierCore::DeleteRangeLocked(
    const std::string& prefix,
    const std::function<bool(const urlfrontier::URLItem&)>& select) {
  StoreBatch batch;
  std::vector<std::pair<UrlKey, urlfrontier::URLItem>> removed;
  absl::Status s =
      store_->Scan(prefix, [&](std::string_view k, std::string_view v) {
        urlfrontier::URLItem item;
        std::optional<UrlKey> key = UrlKey::Decode(k);
        if (!key || !item.ParseFromArray(v.data(), static_cast<int>(v.size())))
          return true;
        if (!select(item)) return true;
        batch.deletes.emplace_back(k);
        removed.emplace_back(*std::move(key), std::move(item));
        return true;
      });
  if (!s.ok()) return s;
  if (absl::Status w = store_->Write(batch); !w.ok()) return w;
  for (const auto& [key, item] : removed) UnscheduleLocked(key, item);
  return removed.size();
}

absl::StatusOr<uint64_t> FrontierCore::DeleteQueue(std::string_view crawl_id,
                                                   std::string_view key) {
  const std::string name = CrawlName(crawl_id);
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<uint64_t> n = DeleteRangeLocked(
      QueuePrefix(name, key), [](const urlfrontier::URLItem&) { return true; });
  if (!n.ok()) return n;
  auto c = crawls_.find(name);
  if (c != crawls_.end()) c->second.queues.erase(std::string(key));
  return n;
}

absl::StatusOr<uint64_t> FrontierCore::DeleteCrawl(std::string_view crawl_id) {
  const std::string name = CrawlName(crawl_id);
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<uint64_t> n = DeleteRangeLocked(
      CrawlPrefix(name), [](const urlfrontier::URLItem&) { return true; });
  if (!n.ok()) return n;
  crawls_.erase(name);
  return n;
}

absl::StatusOr<uint64_t> FrontierCore::PurgeUrls(
    const urlfrontier::PurgeUrlParams& p) {
  const std::string name = CrawlName(p.crawlid());
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = UnixSeconds(options_.clock());
  const uint64_t age = uint64_t{p.days()} * 86400;
  const uint64_t cutoff = now > age ? now - age : 0;
  const std::string prefix =
      p.key().empty() ? CrawlPrefix(name) : QueuePrefix(name, p.key());
  return DeleteRangeLocked(prefix, [&](const urlfrontier::URLItem& item) {
    return item.creation_date() < cutoff;
  });
}

void FrontierCore::BlockQueueUntil(const urlfrontier::BlockQueueParams& p) {
  std::lock_guard<std::mutex> lock(mu_);
  CrawlLocked(CrawlName(p.crawlid())).queues[p.key()].blocked_until = p.time();
}

void FrontierCore::SetDelay(const urlfrontier::QueueDelayParams& p) {
  std::lock_guard<std::mutex> lock(mu_);
  Crawl& crawl = CrawlLocked(CrawlName(p.crawlid()));
  if (p.key().empty()) {
    crawl.default_delay = p.delay_requestable();
    for (auto& [key, q] : crawl.queues) q.delay.reset();
    return;
  }
  Queue& q = crawl.queues[p.key()];
  q.delay = p.delay_requestable();
  // The new delay counts from the queue's last answer.
  if (q.next_allowed != absl::InfinitePast()) {
    q.next_allowed = std::min(q.next_allowed, options_.clock()) +
                     absl::Seconds(p.delay_requestable());
  }
}

void FrontierCore::SetCrawlLimit(const urlfrontier::CrawlLimitParams& p) {
  std::lock_guard<std::mutex> lock(mu_);
  CrawlLocked(CrawlName(p.crawlid())).queues[p.key()].limit = p.limit();
}

void FrontierCore::SetActive(bool active) {
  std::lock_guard<std::mutex> lock(mu_);
  active_ = active;
}

bool FrontierCore::active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

absl::StatusOr<urlfrontier::URLItem> FrontierCore::GetUrlStatus(
    const urlfrontier::URLStatusRequest& r) {
  absl::StatusOr<UrlKey> key = UrlKey::Make(r.crawlid(), r.key(), r.url());
  if (!key.ok()) return key.status();
  absl::StatusOr<std::optional<std::string>> bytes = store_->Get(key->Encode());
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value())
    return absl::NotFoundError(absl::StrCat("unknown URL ", r.url()));
  urlfrontier::URLItem item;
  if (!item.ParseFromString(**bytes))
    return absl::DataLossError(absl::StrCat("bad record for ", r.url()));
  return item;
}

absl::Status FrontierCore::ListUrls(
    const urlfrontier::ListUrlParams& p,
    const std::function<bool(const urlfrontier::URLItem&)>& emit) {
  const std::string name = CrawlName(p.crawlid());
  const std::string prefix =
      p.key().empty() ? CrawlPrefix(name) : QueuePrefix(name, p.key());
  const uint32_t size = p.size() == 0 ? kDefaultPageSize : p.size();
  uint64_t index = 0, sent = 0;
  bool stopped = false;
  absl::Status s =
      store_->Scan(prefix, [&](std::string_view k, std::string_view v) {
        std::optional<UrlKey> key = UrlKey::Decode(k);
        if (!key || !MatchesFilter(key->url, p.filter(), p.ignorecase()))
          return true;
        if (index++ < p.start()) return true;
        urlfrontier::URLItem item;
        if (!item.ParseFromArray(v.data(), static_cast<int>(v.size())))
          return true;
        if (!emit(item)) {
          stopped = true;
          return false;
        }
        return ++sent < size;
      });
  if (!s.ok()) return s;
  if (stopped) return absl::CancelledError("ListURLs: client gone");
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> FrontierCore::CountUrls(
    const urlfrontier::CountUrlParams& p) {
  const std::string name = CrawlName(p.crawlid());
  const std::string prefix =
      p.key().empty() ? CrawlPrefix(name) : QueuePrefix(name, p.key());
  uint64_t n = 0;
  absl::Status s =
      store_->Scan(prefix, [&](std::string_view k, std::string_view) {
        std::optional<UrlKey> key = UrlKey::Decode(k);
        if (key && MatchesFilter(key->url, p.filter(), p.ignorecase())) ++n;
        return true;
      });
  if (!s.ok()) return s;
  return n;
}

}  // namespace sieve::service
