// frontier/service/frontier_core.h: FrontierCore, the URLFrontier API's
// semantics over a UrlStore, with a Bloom filter in front. The gRPC service
// (urlfrontier_service.h) is a thin adapter over it.
//
// State, and where it lives:
//   - Every URL's last URLItem: on disk (UrlStore), one record per URL, so
//     GetURLStatus, ListURLs and CountURLs answer exactly.
//   - The Bloom filter over record keys: RAM, rebuilt from the store at Open.
//     A discovered URL it has never seen is new for sure: stored with no disk
//     read. A "maybe" is settled by one store lookup (the Sieve's lossless
//     mode). With `bloom` off every discovered URL costs a lookup.
//   - Per queue: the URLs due or waiting to be due, ordered by (due second,
//     URL), and the URLs in transit; rebuilt from the store at Open. Done URLs
//     are only on disk. A URL handed out leaves its queue's pending set, so
//     GetURLs never looks at URLs in transit: its cost is that of the URLs it
//     hands out and of those whose transit expired, however many are in
//     transit (bench/frontier/urlfrontier_transit_bench.cc).
//   - Queue settings (delay, block, crawl limit) and the active flag: RAM only;
//     a restart resets them.
//
// Rules (the API's documentation):
//   - Crawls are namespaces; "" is "DEFAULT". A queue key "" is the URL's host.
//   - Discovered: stored and queued (due now) if unknown; ignored if known.
//   - Known: always stored. refetchable_from_date 0: done (never handed out
//     again); otherwise queued, due from that second.
//   - GetURLs hands out due URLs, at most max_urls_per_queue per queue from at
//     most max_queues queues (0: no limit), round-robin over queues across
//     calls; skips queues that are blocked, inside their delay since their last
//     answer, or at their crawl limit (URLs done + in transit >= limit). A URL
//     handed out is in transit until a Put for it or delay_requestable seconds.
//
// Thread-safe: one mutex around RAM state and store writes. Time comes from
// the injected clock (tests drive it). The URLs' way (Put, PutDiscovered,
// GetUrls) is in frontier_core.cc, the admin calls (ListQueues ... CountUrls)
// in frontier_core_admin.cc.
//
// Example:
//   auto core = sieve::service::FrontierCore::Open({.data_dir = "/tmp/f"});
//   urlfrontier::URLItem item;
//   item.mutable_discovered()->mutable_info()->set_url("http://a.example/");
//   urlfrontier::AckMessage::Status s = (*core)->Put(item);  // OK
//   std::vector<urlfrontier::URLInfo> urls = (*core)->GetUrls({});
#ifndef SIEVE_FRONTIER_SERVICE_FRONTIER_CORE_H_
#define SIEVE_FRONTIER_SERVICE_FRONTIER_CORE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "filter/filter.h"
#include "frontier/service/url_key.h"
#include "frontier/service/url_store.h"
#include "urlfrontier.pb.h"

namespace sieve::service {

struct FrontierCoreOptions {
  // The store's directory. REQUIRES: not empty.
  std::filesystem::path data_dir{};
  // fsync each write (see UrlStoreOptions::sync). Default: false.
  bool sync = false;
  // The Bloom filter in front of the store. Default: true.
  bool bloom = true;
  // The filter's sizing: the scalable kind grows past `expected_urls` with
  // its compound false-positive rate bounded by `fp_rate`.
  // Default: 10'000'000 and 0.01.
  uint64_t expected_urls = 10'000'000;
  double fp_rate = 0.01;
  // Seconds between two answers of a queue, unless SetDelay says otherwise.
  // Default: 1.
  uint32_t default_queue_delay = 1;
  // Seconds in transit when GetParams.delay_requestable is 0. Default: 30.
  uint32_t default_delay_requestable = 30;
  // The clock. Default: absl::Now.
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

// What Put did with one item.
enum class PutResult {
  kAdded,    // A new URL was stored (discovered or known).
  kUpdated,  // A known URL's record was replaced.
  kIgnored,  // A discovered URL that was already known.
};

class FrontierCore {
 public:
  // Opens the store and rebuilds filter and queues from it. Cost: one scan of
  // the store.
  static absl::StatusOr<std::unique_ptr<FrontierCore>> Open(
      FrontierCoreOptions options);
  ~FrontierCore();

  // One PutURLs item: stored before returning. InvalidArgument (ack SKIPPED)
  // for a malformed item; a store error (ack FAIL) otherwise.
  absl::StatusOr<PutResult> Put(const urlfrontier::URLItem& item);
  // Discovered URLs in one store write; returns how many were added, or the
  // write's error (then none was). Malformed items are counted in *skipped.
  // `stored` (may be null) gets, per item in order, whether it was added.
  absl::StatusOr<uint32_t> PutDiscovered(
      const std::vector<urlfrontier::DiscoveredURLItem>& items,
      uint32_t* skipped, std::vector<bool>* stored = nullptr);

  std::vector<urlfrontier::URLInfo> GetUrls(
      const urlfrontier::GetParams& params);

  urlfrontier::QueueList ListQueues(const urlfrontier::Pagination& p);
  urlfrontier::Stats GetStats(const urlfrontier::QueueWithinCrawlParams& p);
  std::vector<std::string> ListCrawls();
  // The URLs removed.
  absl::StatusOr<uint64_t> DeleteQueue(std::string_view crawl_id,
                                       std::string_view key);
  absl::StatusOr<uint64_t> DeleteCrawl(std::string_view crawl_id);
  // URLs whose creation_date is more than `days` days before now.
  absl::StatusOr<uint64_t> PurgeUrls(const urlfrontier::PurgeUrlParams& p);

  void BlockQueueUntil(const urlfrontier::BlockQueueParams& p);
  void SetDelay(const urlfrontier::QueueDelayParams& p);
  void SetCrawlLimit(const urlfrontier::CrawlLimitParams& p);
  void SetActive(bool active);
  bool active() const;

  // NotFound if the URL is not stored.
  absl::StatusOr<urlfrontier::URLItem> GetUrlStatus(
      const urlfrontier::URLStatusRequest& r);
  // Calls `emit` for each stored URL of the page (start, size: default 100).
  absl::Status ListUrls(
      const urlfrontier::ListUrlParams& p,
      const std::function<bool(const urlfrontier::URLItem&)>& emit);
  absl::StatusOr<uint64_t> CountUrls(const urlfrontier::CountUrlParams& p);

  // Store lookups made for discovered URLs (the filter's "maybe" answers, or
  // all of them without the filter), and the store's bytes on disk.
  uint64_t store_lookups() const;
  uint64_t disk_bytes() const { return store_->DiskBytes(); }
  absl::Status FlushStore() { return store_->Flush(); }

 private:
  struct Queue {
    // (due second, URL): URLs waiting; due <= now means ready.
    std::set<std::pair<uint64_t, std::string>> pending;
    uint64_t in_transit = 0;
    uint64_t completed = 0;
    std::optional<uint32_t> delay;  // Seconds; the crawl's default if unset.
    absl::Time next_allowed = absl::InfinitePast();
    uint64_t blocked_until = 0;  // Seconds since the epoch.
    uint32_t limit = 0;          // 0: none.
  };
  struct Transit {
    uint64_t due = 0;
    absl::Time expires;
  };
  struct Crawl {
    std::map<std::string, Queue> queues;
    // By encoded record key.
    absl::flat_hash_map<std::string, Transit> in_transit;
    // The same URLs by (expiry, encoded key): GetURLs expires the due ones
    // from the front, at a cost of the URLs expired, not of all in transit.
    std::set<std::pair<absl::Time, std::string>> expiry;
    uint32_t default_delay = 0;
    std::string last_served;  // Round-robin cursor.
  };

  FrontierCore(FrontierCoreOptions options, std::unique_ptr<UrlStore> store);
  absl::Status Rebuild();
  Crawl& CrawlLocked(const std::string& name);
  // Removes `key`'s scheduling state (pending entry or transit) given its
  // stored item. REQUIRES: mu_ held.
  void UnscheduleLocked(const UrlKey& key, const urlfrontier::URLItem& old);
  // Adds scheduling state for `item` just stored. REQUIRES: mu_ held.
  void ScheduleLocked(const UrlKey& key, const urlfrontier::URLItem& item);
  void ExpireTransitLocked(Crawl& crawl, absl::Time now);
  // Whether the discovered `encoded` key is stored: the filter, then the
  // store. REQUIRES: mu_ held.
  absl::StatusOr<bool> KnownLocked(const std::string& encoded);
  absl::StatusOr<uint64_t> DeleteRangeLocked(
      const std::string& prefix,
      const std::function<bool(const urlfrontier::URLItem&)>& select);

  const FrontierCoreOptions options_;
  std::unique_ptr<UrlStore> store_;
  mutable std::mutex mu_;
  std::unique_ptr<Filter> filter_;
  std::map<std::string, Crawl> crawls_;
  bool active_ = true;
  uint64_t store_lookups_ = 0;
};

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_FRONTIER_CORE_H_
