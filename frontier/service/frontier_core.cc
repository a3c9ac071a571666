#include "frontier/service/frontier_core.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "frontier/service/internal/unix_seconds.h"

namespace sieve::service {
namespace {

const urlfrontier::URLInfo& InfoOf(const urlfrontier::URLItem& item) {
  return item.has_known() ? item.known().info() : item.discovered().info();
}

// When a stored item is due: discovered now (0), known at its refetch date,
// or never (nullopt: done).
std::optional<uint64_t> DueOf(const urlfrontier::URLItem& item) {
  if (!item.has_known()) return 0;
  const uint64_t date = item.known().refetchable_from_date();
  if (date == 0) return std::nullopt;
  return date;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FrontierCore>> FrontierCore::Open(
    FrontierCoreOptions options) {
  absl::StatusOr<std::unique_ptr<UrlStore>> store =
      UrlStore::Open({.dir = options.data_dir, .sync = options.sync});
  if (!store.ok()) return store.status();
  std::unique_ptr<FrontierCore> core(
      new FrontierCore(std::move(options), *std::move(store)));
  if (core->options_.bloom) {
    absl::StatusOr<std::unique_ptr<Filter>> filter =
        CreateFilter({.kind = FilterKind::kScalable,
                      .capacity = core->options_.expected_urls,
                      .fp_rate = core->options_.fp_rate});
    if (!filter.ok()) return filter.status();
    core->filter_ = *std::move(filter);
  }
  if (absl::Status s = core->Rebuild(); !s.ok()) return s;
  return core;
}

FrontierCore::FrontierCore(FrontierCoreOptions options,
                           std::unique_ptr<UrlStore> store)
    : options_(std::move(options)), store_(std::move(store)) {}

FrontierCore::~FrontierCore() = default;

absl::Status FrontierCore::Rebuild() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status bad;
  absl::Status s = store_->Scan("u", [&](std::string_view k,
                                         std::string_view v) {
    std::optional<UrlKey> key = UrlKey::Decode(k);
    urlfrontier::URLItem item;
    if (!key || !item.ParseFromArray(v.data(), static_cast<int>(v.size()))) {
      bad = absl::DataLossError(
          absl::StrCat("URL store: bad record ", std::string(k)));
      return false;
    }
    if (filter_) filter_->Add(k);
    ScheduleLocked(*key, item);
    return true;
  });
  return s.ok() ? bad : s;
}

FrontierCore::Crawl& FrontierCore::CrawlLocked(const std::string& name) {
  auto [it, inserted] = crawls_.try_emplace(name);
  if (inserted) it->second.default_delay = options_.default_queue_delay;
  return it->second;
}

void FrontierCore::ScheduleLocked(const UrlKey& key,
                                  const urlfrontier::URLItem& item) {
  Queue& q = CrawlLocked(key.crawl).queues[key.queue];
  const std::optional<uint64_t> due = DueOf(item);
  if (due) {
    q.pending.emplace(*due, key.url);
  } else {
    ++q.completed;
  }
}

void FrontierCore::UnscheduleLocked(const UrlKey& key,
                                    const urlfrontier::URLItem& old) {
  auto c = crawls_.find(key.crawl);
  if (c == crawls_.end()) return;
  auto q = c->second.queues.find(key.queue);
  if (q == c->second.queues.end()) return;
  auto t = c->second.in_transit.find(key.Encode());
  if (t != c->second.in_transit.end()) {
    c->second.expiry.erase({t->second.expires, t->first});
    c->second.in_transit.erase(t);
    --q->second.in_transit;
    return;
  }
  const std::optional<uint64_t> due = DueOf(old);
  if (due) {
    q->second.pending.erase({*due, key.url});
  } else if (q->second.completed > 0) {
    --q->second.completed;
  }
}

absl::StatusOr<bool> FrontierCore::KnownLocked(const std::string& encoded) {
  // "Definitely new" from the filter needs no disk read.
  if (filter_ && !filter_->MayContain(encoded)) return false;
  ++store_lookups_;
  absl::StatusOr<std::optional<std::string>> old = store_->Get(encoded);
  if (!old.ok()) return old.status();
  return old->has_value();
}

absl::StatusOr<PutResult> FrontierCore::Put(const urlfrontier::URLItem& item) {
  if (!item.has_known() && !item.has_discovered())
    return absl::InvalidArgumentError("URLItem without discovered or known");
  const urlfrontier::URLInfo& info = InfoOf(item);
  absl::StatusOr<UrlKey> key =
      UrlKey::Make(info.crawlid(), info.key(), info.url());
  if (!key.ok()) return key.status();
  const std::string encoded = key->Encode();

  // The record as stored: crawl and key filled in, first-seen date kept.
  urlfrontier::URLItem stored = item;
  stored.clear_id();
  urlfrontier::URLInfo* stored_info =
      stored.has_known() ? stored.mutable_known()->mutable_info()
                         : stored.mutable_discovered()->mutable_info();
  stored_info->set_crawlid(key->crawl);
  stored_info->set_key(key->queue);

  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = UnixSeconds(options_.clock());
  std::optional<urlfrontier::URLItem> old;
  if (item.has_discovered()) {
    absl::StatusOr<bool> known = KnownLocked(encoded);
    if (!known.ok()) return known.status();
    if (*known) return PutResult::kIgnored;
  } else {
    ++store_lookups_;
    absl::StatusOr<std::optional<std::string>> bytes = store_->Get(encoded);
    if (!bytes.ok()) return bytes.status();
    if (bytes->has_value()) {
      old.emplace();
      if (!old->ParseFromString(**bytes))
        return absl::DataLossError(absl::StrCat("bad record for ", info.url()));
    }
  }
  if (old && old->creation_date() != 0) {
    stored.set_creation_date(old->creation_date());
  } else if (stored.creation_date() == 0) {
    stored.set_creation_date(now);
  }
  StoreBatch batch;
  batch.puts.emplace_back(encoded, stored.SerializeAsString());
  if (absl::Status s = store_->Write(batch); !s.ok()) return s;
  if (filter_) filter_->Add(encoded);
  if (old) UnscheduleLocked(*key, *old);
  ScheduleLocked(*key, stored);
  return old ? PutResult::kUpdated : PutResult::kAdded;
}

absl::StatusOr<uint32_t> FrontierCore::PutDiscovered(
    const std::vector<urlfrontier::DiscoveredURLItem>& items, uint32_t* skipped,
    std::vector<bool>* stored_items) {
  *skipped = 0;
  std::vector<bool> added(items.size(), false);
  size_t index = 0;
  std::vector<std::pair<UrlKey, urlfrontier::URLItem>> fresh;
  StoreBatch batch;
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = UnixSeconds(options_.clock());
  absl::flat_hash_set<std::string> in_batch;
  for (const urlfrontier::DiscoveredURLItem& d : items) {
    const size_t i = index++;
    absl::StatusOr<UrlKey> key =
        UrlKey::Make(d.info().crawlid(), d.info().key(), d.info().url());
    if (!key.ok()) {
      ++*skipped;
      continue;
    }
    std::string encoded = key->Encode();
    if (in_batch.contains(encoded)) continue;
    absl::StatusOr<bool> known = KnownLocked(encoded);
    if (!known.ok()) return known.status();
    if (*known) continue;
    urlfrontier::URLItem stored;
    *stored.mutable_discovered() = d;
    stored.mutable_discovered()->mutable_info()->set_crawlid(key->crawl);
    stored.mutable_discovered()->mutable_info()->set_key(key->queue);
    stored.set_creation_date(now);
    batch.puts.emplace_back(encoded, stored.SerializeAsString());
    in_batch.insert(std::move(encoded));
    fresh.emplace_back(*std::move(key), std::move(stored));
    added[i] = true;
  }
  if (absl::Status s = store_->Write(batch); !s.ok()) return s;
  if (stored_items != nullptr) *stored_items = std::move(added);
  for (const auto& [key, value] : batch.puts) {
    if (filter_) filter_->Add(key);
  }
  for (const auto& [key, stored] : fresh) ScheduleLocked(key, stored);
  return static_cast<uint32_t>(fresh.size());
}

void FrontierCore::ExpireTransitLocked(Crawl& crawl, absl::Time now) {
  while (!crawl.expiry.empty() && crawl.expiry.begin()->first <= now) {
    auto node = crawl.expiry.extract(crawl.expiry.begin());
    const std::string& encoded = node.value().second;
    auto it = crawl.in_transit.find(encoded);
    std::optional<UrlKey> key = UrlKey::Decode(encoded);
    if (it != crawl.in_transit.end() && key) {
      Queue& q = crawl.queues[key->queue];
      --q.in_transit;
      q.pending.emplace(it->second.due, key->url);
    }
    if (it != crawl.in_transit.end()) crawl.in_transit.erase(it);
  }
}

std::vector<urlfrontier::URLInfo> FrontierCore::GetUrls(
    const urlfrontier::GetParams& params) {
  std::vector<urlfrontier::URLInfo> out;
  std::lock_guard<std::mutex> lock(mu_);
  if (!active_) return out;
  const absl::Time now = options_.clock();
  const uint64_t now_s = UnixSeconds(now);
  const uint32_t requestable = params.delay_requestable() != 0
                                   ? params.delay_requestable()
                                   : options_.default_delay_requestable;
  std::vector<std::string> names;
  if (params.has_anycrawlid()) {
    for (const auto& [name, crawl] : crawls_) names.push_back(name);
  } else {
    names.push_back(CrawlName(params.crawlid()));
  }
  uint32_t queues_served = 0;
  for (const std::string& name : names) {
    auto c = crawls_.find(name);
    if (c == crawls_.end()) continue;
    Crawl& crawl = c->second;
    ExpireTransitLocked(crawl, now);
    // Round-robin: start after the queue served last.
    std::vector<std::map<std::string, Queue>::iterator> order;
    if (!params.key().empty()) {
      auto q = crawl.queues.find(params.key());
      if (q != crawl.queues.end()) order.push_back(q);
    } else {
      auto start = crawl.queues.upper_bound(crawl.last_served);
      for (auto it = start; it != crawl.queues.end(); ++it) order.push_back(it);
      for (auto it = crawl.queues.begin(); it != start; ++it)
        order.push_back(it);
    }
    for (auto q_it : order) {
      if (params.max_queues() != 0 && queues_served >= params.max_queues())
        return out;
      Queue& q = q_it->second;
      if (q.pending.empty() || q.pending.begin()->first > now_s) continue;
      if (q.blocked_until > now_s || now < q.next_allowed) continue;
      uint32_t taken = 0;
      while (!q.pending.empty() && q.pending.begin()->first <= now_s) {
        if (params.max_urls_per_queue() != 0 &&
            taken >= params.max_urls_per_queue())
          break;
        if (q.limit != 0 && q.completed + q.in_transit >= q.limit) break;
        auto [due, url] = *q.pending.begin();
        q.pending.erase(q.pending.begin());
        const UrlKey key{.crawl = name, .queue = q_it->first, .url = url};
        const std::string encoded = key.Encode();
        urlfrontier::URLInfo info;
        absl::StatusOr<std::optional<std::string>> bytes = store_->Get(encoded);
        urlfrontier::URLItem item;
        if (bytes.ok() && bytes->has_value() && item.ParseFromString(**bytes)) {
          info = InfoOf(item);
        } else {
          info.set_url(url);
          info.set_key(q_it->first);
          info.set_crawlid(name);
        }
        const absl::Time expires = now + absl::Seconds(requestable);
        crawl.in_transit[encoded] = Transit{.due = due, .expires = expires};
        crawl.expiry.emplace(expires, encoded);
        ++q.in_transit;
        out.push_back(std::move(info));
        ++taken;
      }
      if (taken == 0) continue;
      ++queues_served;
      crawl.last_served = q_it->first;
      q.next_allowed =
          now + absl::Seconds(q.delay.value_or(crawl.default_delay));
    }
  }
  return out;
}

uint64_t FrontierCore::store_lookups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_lookups_;
}

}  // namespace sieve::service
