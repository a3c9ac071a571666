#include "frontier/frontier.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/internal/frontier_hosts.h"
#include "frontier/internal/record.h"

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

absl::Status Frontier::Validate(const FrontierOptions& options) {
  const PolitenessOptions& p = options.politeness;
  if (p.max_in_flight_per_host < 1) {
    return absl::InvalidArgumentError("max_in_flight_per_host must be >= 1");
  }
  if (p.min_delay < absl::ZeroDuration() ||
      p.max_crawl_delay < absl::ZeroDuration() ||
      p.max_adaptive_delay < absl::ZeroDuration() ||
      p.max_retry_after < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("politeness delays must be >= 0");
  }
  if (p.adaptive_delay_multiple < 0 || p.backoff_jitter < 0) {
    return absl::InvalidArgumentError(
        "adaptive_delay_multiple and backoff_jitter must be >= 0");
  }
  if (p.backoff_base <= absl::ZeroDuration() ||
      p.backoff_cap < p.backoff_base) {
    return absl::InvalidArgumentError("need 0 < backoff_base <= backoff_cap");
  }
  if (p.max_throttle_retries < 0 || p.max_error_retries < 0) {
    return absl::InvalidArgumentError(
        "max_throttle_retries and max_error_retries must be >= 0");
  }
  if (p.unreachable_after < 1 || p.unreachable_for < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "need unreachable_after >= 1 and unreachable_for >= 0");
  }
  if (!(options.revisit_share >= 0 && options.revisit_share <= 1)) {
    return absl::InvalidArgumentError("revisit_share must be in [0, 1]");
  }
  if (options.host_queue_memory_bytes == 0 ||
      options.max_pulls_past_budget == 0) {
    return absl::InvalidArgumentError(
        "host_queue_memory_bytes and max_pulls_past_budget must be > 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Frontier>> Frontier::Create(
    FrontierOptions options) {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options.sieve);
  if (!sieve.ok()) return sieve.status();
  return std::unique_ptr<Frontier>(
      new Frontier(std::move(options), std::move(*sieve)));
}

Frontier::Frontier(FrontierOptions options, std::unique_ptr<Sieve> sieve)
    : options_(std::move(options)),
      sieve_(std::move(sieve)),
      hosts_(std::make_unique<FrontierHosts>(
          [this] { return sieve_->OpenStore(); })),
      rng_(options_.seed) {}

Frontier::~Frontier() = default;

void Frontier::ClearUnreachable(HostState& host) {
  host.politeness.connection_failures = 0;
  if (host.unreachable_until == absl::InfinitePast()) return;
  host.unreachable_until = absl::InfinitePast();
  host.unreachable_error.clear();
  host.unreachable_detail.clear();
}

bool Frontier::OverBudget() const {
  return hosts_->table.queued_bytes() >= options_.host_queue_memory_bytes;
}

bool Frontier::HostsOverBudget() const {
  return hosts_active_ * kHostStateBytes >= options_.host_queue_memory_bytes;
}

bool Frontier::IsDropped(std::string_view host) const {
  std::shared_lock lock(dropped_mu_);
  return dropped_hosts_.contains(AbslView(host));
}

bool Frontier::Add(std::string_view url, std::string_view host, uint32_t depth,
                   std::string_view metadata) {
  if (IsDropped(host)) {
    refused_for_dropped_host_.fetch_add(1, std::memory_order_relaxed);
    NoteRefused(FrontierAdd{
        .url = url, .host = host, .depth = depth, .metadata = metadata});
    return false;
  }
  return sieve_->Push(url, EncodePayload(host, depth, metadata));
}

void Frontier::AddMany(std::span<const FrontierAdd> urls,
                       std::span<bool> queued) {
  std::vector<std::string> payloads;
  std::vector<std::string_view> keys, payload_views;
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
      payloads.push_back(
          EncodePayload(urls[i].host, urls[i].depth, urls[i].metadata));
      index.push_back(i);
    }
  }
  payload_views.assign(payloads.begin(), payloads.end());
  std::unique_ptr<bool[]> pushed(new bool[keys.size()]);
  sieve_->PushMany(keys, payload_views,
                   std::span<bool>(pushed.get(), keys.size()));
  for (size_t k = 0; k < keys.size(); ++k) queued[index[k]] = pushed[k];
  for (size_t i : refused) NoteRefused(urls[i]);
}

bool Frontier::PullOne(absl::Time now) {
  std::optional<SieveEntry> entry = sieve_->PopEntry();
  if (!entry.has_value()) return false;
  std::optional<Payload> payload = DecodePayload(entry->payload);
  if (!payload.has_value()) {
    // A malformed payload cannot come from Add: count it, never crash.
    ++counters_.dropped_urls;
    return true;
  }
  if (IsDropped(payload->host)) {
    ++counters_.dropped_urls;
    NoteDiscarded(payload->host,
                  QueuedUrl{.url = std::move(entry->url),
                            .metadata = std::string(payload->metadata),
                            .depth = payload->depth});
    return true;
  }
  HostState& host = hosts_->table.GetOrCreate(payload->host);
  Enqueue(host, QueuedUrl{.url = std::move(entry->url),
                          .metadata = std::string(payload->metadata),
                          .depth = payload->depth,
                          .seq = next_seq_++});
  Touch(host, now);
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

absl::Status Frontier::Revisit(const FrontierAdd& url, absl::Time due) {
  std::lock_guard lock(mu_);
  revisits_.push(DueRevisit{.due = due,
                            .order = revisit_order_++,
                            .host = std::string(url.host),
                            .url = std::string(url.url),
                            .metadata = std::string(url.metadata),
                            .depth = url.depth});
  return absl::OkStatus();
}

void Frontier::ReleaseDueRevisits(absl::Time now) {
  while (!revisits_.empty() && revisits_.top().due <= now) {
    // revisit_share: with new URLs waiting, a revisit goes only while the
    // revisits handed out or queued stay within the share of all URLs.
    const bool new_waiting = sieve_->size() > 0 ||
                             hosts_->overflow.size() > 0 ||
                             hosts_->table.queued_urls() > revisits_queued_;
    const uint64_t revisits = revisits_dispatched_ + revisits_queued_;
    const uint64_t all = dispatched_here_ + revisits_queued_;
    if (new_waiting &&
        static_cast<double>(revisits + 1) >
            options_.revisit_share * static_cast<double>(all + 1))
      return;
    DueRevisit r = revisits_.top();
    revisits_.pop();
    if (IsDropped(r.host)) {
      ++counters_.dropped_urls;
      NoteDiscarded(r.host, QueuedUrl{.url = std::move(r.url),
                                      .metadata = std::move(r.metadata),
                                      .depth = r.depth});
      continue;
    }
    HostState& host = hosts_->table.GetOrCreate(r.host);
    // At the head: it is due, and its host's politeness spaces it from the
    // host's other requests. `counted`: a revisit is no new page of the host
    // (max_urls_per_host).
    hosts_->table.PushFront(host, QueuedUrl{.url = std::move(r.url),
                                            .metadata = std::move(r.metadata),
                                            .depth = r.depth,
                                            .counted = true,
                                            .revisit = true,
                                            .seq = next_seq_++});
    ++revisits_queued_;
    Touch(host, now);
  }
}

bool Frontier::PrepareReady(absl::Time now) {
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

NextUrl Frontier::NotReady(absl::Time now) const {
  NextUrl result;
  std::optional<absl::Time> wake = hosts_->schedule.NextWakeup();
  // A revisit not yet due wakes the loop when it is (one due now and held
  // back by revisit_share waits for new URLs to go first).
  if (!revisits_.empty() && revisits_.top().due > now &&
      (!wake.has_value() || revisits_.top().due < *wake)) {
    wake = revisits_.top().due;
  }
  if (wake.has_value()) {
    result.state = NextUrl::kWait;
    result.wait = std::max(*wake - now, absl::Milliseconds(1));
  } else if (!revisits_.empty()) {
    result.state = NextUrl::kWaitForDone;
  } else if (!hosts_->in_flight.empty() || hosts_->table.queued_urls() > 0 ||
             hosts_->overflow.size() > 0 || sieve_->size() > 0) {
    result.state = NextUrl::kWaitForDone;
  } else {
    result.state = NextUrl::kEmpty;
  }
  return result;
}

NextUrl Frontier::PeekNext(absl::Time now) {
  std::lock_guard lock(mu_);
  PrepareReady(now);
  const HostState* host = hosts_->schedule.PeekReady();
  if (host == nullptr) return NotReady(now);
  const QueuedUrl& head = host->queue.front();
  return {.state = NextUrl::kReady,
          .url = FrontierUrl{.url = head.url,
                             .host = host->name,
                             .depth = head.depth,
                             .metadata = head.metadata}};
}

NextUrl Frontier::Next(absl::Time now) {
  std::lock_guard lock(mu_);
  if (PrepareReady(now)) ++counters_.budget_stalls;
  NextUrl result;
  if (HostState* host = hosts_->schedule.PopReady(); host != nullptr) {
    QueuedUrl entry = hosts_->table.PopFront(*host);
    Refill(*host);
    ++host->in_flight;
    ++dispatched_here_;
    if (entry.revisit) {
      if (revisits_queued_ > 0) --revisits_queued_;
      ++revisits_dispatched_;
      ++counters_.revisits;
    }
    if (!entry.counted) {
      entry.counted = true;
      ++host->urls_dispatched;
      // The host's last page: the rest of its queue is discarded now.
      if (options_.max_urls_per_host > 0 &&
          host->urls_dispatched >= options_.max_urls_per_host) {
        DropHostLocked(*host);
      }
    }
    result.state = NextUrl::kReady;
    result.url = FrontierUrl{.url = entry.url,
                             .host = host->name,
                             .depth = entry.depth,
                             .metadata = entry.metadata};
    if (host->unreachable(now)) {
      // No request will be made: no delay starts.
      result.url.unreachable_error = host->unreachable_error;
      result.url.unreachable_detail = host->unreachable_detail;
      ++counters_.unreachable_urls;
    } else {
      host->last_start = now;
      host->next_allowed =
          now + DelayBetweenRequests(options_.politeness, host->politeness);
    }
    std::string key = entry.url;
    hosts_->in_flight.insert_or_assign(
        std::move(key), FrontierHosts::InFlight{std::move(entry), host});
    ++counters_.dispatched;
    Touch(*host, now);
    return result;
  }
  return NotReady(now);
}

absl::StatusOr<UrlFate> Frontier::Done(std::string_view url,
                                       const FetchOutcome& outcome,
                                       absl::Time now) {
  std::lock_guard lock(mu_);
  auto it = hosts_->in_flight.find(AbslView(url));
  if (it == hosts_->in_flight.end()) {
    return absl::NotFoundError(absl::StrCat("not in flight: ", AbslView(url)));
  }
  QueuedUrl entry = std::move(it->second.entry);
  // Counted as a revisit when handed out; queued again (a retry, a deferral)
  // it is an ordinary URL of its host.
  entry.revisit = false;
  HostState& host = *it->second.host;
  hosts_->in_flight.erase(it);
  --host.in_flight;
  ++counters_.done;
  const PolitenessOptions& p = options_.politeness;
  // Politeness as the server sees it: the host's next request starts at least
  // its delay after this answer ended, whatever the answer was.
  const absl::Time after_delay = now + DelayBetweenRequests(p, host.politeness);
  UrlFate fate = UrlFate::kFinished;
  switch (outcome.kind) {
    case FetchOutcome::kSuccess:
      ++counters_.succeeded;
      host.politeness.throttle_streak = 0;
      ClearUnreachable(host);
      host.politeness.last_response_time = outcome.response_time;
      host.next_allowed =
          std::max({host.next_allowed, after_delay,
                    now + AdaptiveDelay(p, outcome.response_time)});
      break;
    case FetchOutcome::kThrottled:
      ++counters_.throttled;
      ClearUnreachable(host);
      host.next_allowed = std::max(host.next_allowed, after_delay);
      fate = RetryOrGiveUp(host, std::move(entry), /*throttled=*/true,
                           /*back_off=*/true, outcome.retry_after, now);
      break;
    case FetchOutcome::kError:
      ++counters_.failed;
      host.next_allowed = std::max(host.next_allowed, after_delay);
      if (outcome.connection_failed &&
          CountConnectionFailure(host, outcome, now)) {
        break;  // Finished: its record carries the failure itself.
      }
      if (outcome.transient) {
        fate = RetryOrGiveUp(host, std::move(entry), /*throttled=*/false,
                             /*back_off=*/!outcome.connection_failed,
                             std::nullopt, now);
      }
      break;
    case FetchOutcome::kNotFetched:
      // No request: no delay, and the URL does not count as a page.
      if (entry.counted && host.urls_dispatched > 0) --host.urls_dispatched;
      break;
    case FetchOutcome::kDeferred:
      host.next_allowed = std::max(host.next_allowed, after_delay);
      if (host.dropped) {
        ++counters_.dropped_urls;
        NoteDiscarded(host.name, std::move(entry));
      } else {
        hosts_->table.PushFront(host, std::move(entry));
        fate = UrlFate::kRetryLater;
      }
      break;
  }
  Touch(host, now);
  return fate;
}

FrontierFilterStats Frontier::filter_stats() const {
  const SieveStats sieve = sieve_->stats();
  return FrontierFilterStats{
      .capacity = sieve.filter_capacity,
      .estimated_count = sieve.filter_estimated_count,
      .estimated_fp_rate = sieve.filter_estimated_fp_rate};
}

absl::Status Frontier::status() const {
  if (absl::Status s = sieve_->status(); !s.ok()) return s;
  std::lock_guard lock(mu_);
  return overflow_status_;
}

FrontierStats Frontier::stats() const {
  const SieveStats sieve = sieve_->stats();
  std::lock_guard lock(mu_);
  FrontierStats out = counters_;
  out.queued_in_sieve = sieve.size;
  out.queued_in_hosts = hosts_->table.queued_urls();
  out.queued_on_disk_hosts = hosts_->overflow.size();
  out.queued =
      out.queued_in_sieve + out.queued_in_hosts + out.queued_on_disk_hosts;
  out.host_queue_bytes = hosts_->table.queued_bytes();
  out.in_flight = hosts_->in_flight.size();
  out.hosts_active = hosts_active_;
  out.revisits_waiting = revisits_.size() + revisits_queued_;
  out.hosts_known = hosts_->table.host_count() + hosts_->table.parked_count();
  out.added = sieve.queued;
  out.duplicates = sieve.dropped_as_seen;
  out.refused_urls = refused_for_dropped_host_.load(std::memory_order_relaxed);
  out.dropped_urls += out.refused_urls;
  return out;
}

}  // namespace sieve
