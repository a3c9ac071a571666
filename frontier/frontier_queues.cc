// The Frontier's queues: a URL's way from Add through the Sieve (its host,
// depth and metadata ride with it as the Sieve's payload) into its host's
// queue, in RAM or on disk within host_queue_memory_bytes, and back from disk
// when the RAM queue empties. Handing URLs out and what becomes of them is in
// frontier/frontier.cc; the hosts' state and rules in frontier_hosts.cc.
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/frontier.h"
#include "frontier/internal/frontier_hosts.h"
#include "frontier/internal/record.h"
#include "frontier/internal/sieve_wait.h"

namespace sieve {
namespace {

// What rides with a URL through the Sieve: varint32(depth) | varint32(host
// size) | host | metadata. The Sieve stores it opaquely (and in its
// checkpoints).
std::string EncodePayload(std::string_view host, uint32_t depth,
                          std::string_view metadata) {
  std::string payload;
  payload.reserve(host.size() + metadata.size() + 10);
  internal::AppendVarint32(payload, depth);
  internal::AppendVarint32(payload, static_cast<uint32_t>(host.size()));
  payload.append(host);
  payload.append(metadata);
  return payload;
}

struct Payload {
  std::string_view host;
  uint32_t depth = 0;
  std::string_view metadata;
};

std::optional<Payload> DecodePayload(std::string_view payload) {
  std::optional<uint32_t> depth = internal::ReadVarint32(payload);
  std::optional<uint32_t> host_size = internal::ReadVarint32(payload);
  if (!depth || !host_size || *host_size > payload.size()) return std::nullopt;
  return Payload{payload.substr(0, *host_size), *depth,
                 payload.substr(*host_size)};
}

}  // namespace

bool Frontier::Add(std::string_view url, std::string_view host, uint32_t depth,
                   std::string_view metadata) {
  return Add(FrontierAdd{
      .url = url, .host = host, .depth = depth, .metadata = metadata});
}

bool Frontier::Add(const FrontierAdd& add) {
  if (IsDropped(add.host)) {
    refused_for_dropped_host_.fetch_add(1, std::memory_order_relaxed);
    NoteRefused(add);
    return false;
  }
  if (!sieve_->Push(add.url, EncodePayload(add.host, add.depth, add.metadata),
                    add.dedup_key)) {
    return false;
  }
  sieve_wait_->Pushed(add.host);
  return true;
}

bool Frontier::AddUnfiltered(const FrontierAdd& add) {
  if (IsDropped(add.host)) {
    refused_for_dropped_host_.fetch_add(1, std::memory_order_relaxed);
    NoteRefused(add);
    return false;
  }
  sieve_->PushUnfiltered(
      add.url, EncodePayload(add.host, add.depth, add.metadata), add.dedup_key);
  sieve_wait_->Pushed(add.host);
  return true;
}

void Frontier::AddMany(std::span<const FrontierAdd> urls,
                       std::span<bool> queued) {
  std::vector<std::string> payloads;
  std::vector<std::string_view> keys, dedup_keys, payload_views;
  std::vector<size_t> index;    // Position in `urls` of each key.
  std::vector<size_t> refused;  // Of a dropped host.
  payloads.reserve(urls.size());
  keys.reserve(urls.size());
  index.reserve(urls.size());
  {
    std::shared_lock lock(dropped_mu_);
    for (size_t i = 0; i < urls.size(); ++i) {
      queued[i] = false;
      if (dropped_hosts_.contains(AbslView(urls[i].host))) {
        refused_for_dropped_host_.fetch_add(1, std::memory_order_relaxed);
        refused.push_back(i);
        continue;
      }
      keys.push_back(urls[i].url);
      dedup_keys.push_back(urls[i].dedup_key.empty() ? urls[i].url
                                                     : urls[i].dedup_key);
      payloads.push_back(
          EncodePayload(urls[i].host, urls[i].depth, urls[i].metadata));
      index.push_back(i);
    }
  }
  payload_views.assign(payloads.begin(), payloads.end());
  std::unique_ptr<bool[]> pushed(new bool[keys.size()]);
  sieve_->PushMany(keys, payload_views,
                   std::span<bool>(pushed.get(), keys.size()), dedup_keys);
  for (size_t k = 0; k < keys.size(); ++k) {
    queued[index[k]] = pushed[k];
    if (pushed[k]) sieve_wait_->Pushed(urls[index[k]].host);
  }
  for (size_t i : refused) NoteRefused(urls[i]);
}

bool Frontier::PullOne(absl::Time now) {
  std::optional<SieveEntry> entry = sieve_->PopEntry();
  if (!entry.has_value()) return false;
  sieve_wait_->Popped(now);
  std::optional<Payload> payload = DecodePayload(entry->payload);
  if (!payload.has_value()) {
    // A malformed payload cannot come from Add: count it, never crash.
    ++counters_.dropped_urls;
    return true;
  }
  // A dropped host in RAM is known to the set Add checks; one parked on disk
  // comes back dropped from the table.
  HostState* host = hosts_->table.Find(payload->host);
  if (host == nullptr && !IsDroppedInRam(payload->host)) {
    host = &hosts_->table.GetOrCreate(payload->host);
  }
  if (host == nullptr || host->dropped) {
    ++counters_.dropped_urls;
    NoteDiscarded(payload->host,
                  QueuedUrl{.url = std::move(entry->url),
                            .metadata = std::string(payload->metadata),
                            .depth = payload->depth});
    if (host != nullptr && !host->active) ForgetLater(*host);
    return true;
  }
  Enqueue(*host, QueuedUrl{.url = std::move(entry->url),
                           .metadata = std::string(payload->metadata),
                           .depth = payload->depth,
                           .seq = next_seq_++});
  Touch(*host, now);
  return true;
}

void Frontier::Enqueue(HostState& host, QueuedUrl url) {
  // A host's disk queue holds only URLs newer than its RAM queue, so a URL
  // goes to disk if others already wait there, or if RAM is full and the host
  // has something to fetch in RAM already. Otherwise RAM: so RAM holds the
  // budget plus at most one URL per host.
  if (host.overflow_count > 0 || (OverBudget() && !host.queue.empty())) {
    absl::Status s = hosts_->overflow.Append(host.id, url);
    if (s.ok()) {
      ++host.overflow_count;
      return;
    }
    ++counters_.overflow_errors;
    if (overflow_status_.ok()) overflow_status_ = s;
    // Kept in RAM. If the host has URLs on disk this one jumps ahead of them:
    // order suffers, nothing is lost.
  }
  hosts_->table.PushBack(host, std::move(url));
}

void Frontier::Refill(HostState& host) {
  if (!host.queue.empty() || host.overflow_count == 0) return;
  // A batch per disk scan while RAM allows, else one URL at a time.
  constexpr uint64_t kBatch = 256;
  const uint64_t count = OverBudget() ? 1 : kBatch;
  absl::StatusOr<std::vector<QueuedUrl>> urls =
      hosts_->overflow.TakeFront(host.id, count);
  if (!urls.ok() || urls->empty()) {
    // Lost track of the disk queue: count it and stop waiting for it.
    ++counters_.overflow_errors;
    if (overflow_status_.ok()) {
      overflow_status_ =
          urls.ok() ? absl::DataLossError(absl::StrCat("host queue on disk of ",
                                                       host.name, " is empty"))
                    : urls.status();
    }
    counters_.dropped_urls += host.overflow_count;
    host.overflow_count = 0;
    return;
  }
  host.overflow_count -= urls->size();
  for (QueuedUrl& url : *urls) hosts_->table.PushBack(host, std::move(url));
}

void Frontier::ExpireLeases(absl::Time now) {
  // Lazy deletion: an entry whose URL was done (or handed out again, with a
  // later lease) is skipped.
  while (!hosts_->leases.empty() && hosts_->leases.top().first <= now) {
    auto [until, url] = hosts_->leases.top();
    hosts_->leases.pop();
    auto it = hosts_->in_flight.find(url);
    if (it == hosts_->in_flight.end() || it->second.lease_until != until) {
      continue;
    }
    QueuedUrl entry = std::move(it->second.entry);
    entry.revisit = false;
    HostState& host = *it->second.host;
    hosts_->in_flight.erase(it);
    --host.in_flight;
    ++counters_.reclaimed;
    // As if its answer ended now: the host's next request waits its delay.
    host.next_allowed = std::max(
        host.next_allowed,
        now + DelayBetweenRequests(options_.politeness, host.politeness));
    if (!host.dropped) hosts_->table.PushFront(host, std::move(entry));
    Touch(host, now);
  }
}

bool Frontier::PrepareReady(absl::Time now) {
  ExpireLeases(now);
  ForgetIdleHosts(now);
  ReleaseDueRevisits(now);
  hosts_->schedule.PromoteDue(now);
  // Pull from the Sieve only while no host is ready (or the first ready one
  // has only a retry to offer: its fresh URLs may still be in the Sieve, and
  // go first): the per-host queues stay small and the bulk stays in the
  // Sieve, which spills to disk.
  uint64_t pulls_past_budget = 0;
  for (const HostState* ready = hosts_->schedule.PeekReady();
       ready == nullptr || ready->queue.front().retried();
       ready = hosts_->schedule.PeekReady()) {
    // A stall only when no host is ready: a retry is served rather than none.
    const bool stalled = ready == nullptr && sieve_->size() > 0;
    if (HostsOverBudget()) {
      // No new host until active ones finish (each has URLs that will be
      // ready, or a fetch in flight); the URLs wait in the Sieve (on disk).
      return stalled;
    }
    if (OverBudget() && pulls_past_budget++ >= options_.max_pulls_past_budget)
      return stalled;
    if (!PullOne(now)) break;
  }
  return false;
}

bool Frontier::OverBudget() const {
  return hosts_->table.queued_bytes() >= options_.host_queue_memory_bytes;
}

bool Frontier::HostsOverBudget() const {
  return hosts_active_ * kHostStateBytes >= options_.host_queue_memory_bytes;
}

}  // namespace sieve
