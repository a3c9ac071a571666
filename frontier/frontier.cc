// The Frontier's choice of the next URL (Next, PeekNext: the host ready
// first, breadth-first across hosts) and what becomes of it (Done: politeness
// after the answer, retries, back-off), its options and its counters. The
// URLs' way from Add into the host queues is in frontier/frontier_queues.cc;
// the hosts' state and rules in frontier_hosts.cc; revisits coming due in
// frontier_revisits.cc.
#include "frontier/frontier.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontier/internal/frontier_hosts.h"
#include "frontier/internal/sieve_wait.h"

namespace sieve {

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
  if (options.max_parked_hosts_in_memory < 2) {
    return absl::InvalidArgumentError(
        "max_parked_hosts_in_memory must be >= 2");
  }
  if (options.lease_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("lease_timeout must be >= 0");
  }
  return absl::OkStatus();
}

uint64_t MaxActiveHosts(const FrontierOptions& options) {
  return options.host_queue_memory_bytes / kHostStateBytes;
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
      sieve_wait_(std::make_unique<internal::SieveWait>(sieve_->size())),
      parked_(std::make_unique<ParkedStore>(
          [this] { return sieve_->OpenStore(); })),
      hosts_(std::make_unique<FrontierHosts>(
          [this] { return sieve_->OpenStore(); }, parked_.get(),
          options_.max_parked_hosts_in_memory,
          // Under mu_, as DropHostLocked.
          [this](const std::string& name) {
            std::lock_guard dropped_lock(dropped_mu_);
            dropped_hosts_.insert(name);
          })),
      rng_(options_.seed) {}

Frontier::~Frontier() = default;

absl::StatusOr<UrlRecordStore*> Frontier::UrlRecords() {
  std::lock_guard lock(url_records_mu_);
  if (url_records_ == nullptr) {
    absl::StatusOr<internal::ScratchDb*> db = sieve_->OpenStore();
    if (!db.ok()) return db.status();
    url_records_ = std::make_unique<UrlRecordStore>(*db);
  }
  return url_records_.get();
}

void Frontier::ClearUnreachable(HostState& host) {
  host.politeness.connection_failures = 0;
  if (host.unreachable_until == absl::InfinitePast()) return;
  host.unreachable_until = absl::InfinitePast();
  host.unreachable_error.clear();
  host.unreachable_detail.clear();
}

bool Frontier::IsDroppedInRam(std::string_view host) const {
  std::shared_lock lock(dropped_mu_);
  return dropped_hosts_.contains(AbslView(host));
}

bool Frontier::IsDropped(std::string_view host) const {
  return IsDroppedInRam(host) || parked_->IsDropped(host);
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
  // A lease that runs out puts its URL back (ExpireLeases).
  if (!hosts_->leases.empty() &&
      (!wake.has_value() || hosts_->leases.top().first < *wake)) {
    wake = hosts_->leases.top().first;
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
    // Its next URL: the next in its queue after its delay, else its newest in
    // the Sieve or one the page may link to (internal/sieve_wait.h).
    result.url.host_due_again =
        host->dropped ? absl::InfiniteDuration()
        : host->queue.empty()
            ? sieve_wait_->WaitOf(host->name, now)
            : std::max(host->next_allowed, host->blocked_until) - now;
    const absl::Time lease_until = options_.lease_timeout > absl::ZeroDuration()
                                       ? now + options_.lease_timeout
                                       : absl::InfiniteFuture();
    if (lease_until != absl::InfiniteFuture()) {
      hosts_->leases.emplace(lease_until, entry.url);
    }
    std::string key = entry.url;
    hosts_->in_flight.insert_or_assign(
        std::move(key),
        FrontierHosts::InFlight{std::move(entry), host, lease_until});
    ++counters_.dispatched;
    Touch(*host, now);
    return result;
  }
  return NotReady(now);
}

bool Frontier::ApplyOutcome(HostState& host, const FetchOutcome& outcome,
                            absl::Time now) {
  if (outcome.kind == FetchOutcome::kNotFetched) return false;  // No request.
  const PolitenessOptions& p = options_.politeness;
  // Politeness as the server sees it: the host's next request starts at least
  // its delay after this answer ended, whatever the answer was.
  host.next_allowed = std::max(host.next_allowed,
                               now + DelayBetweenRequests(p, host.politeness));
  bool back_off = false;
  switch (outcome.kind) {
    case FetchOutcome::kSuccess:
      host.politeness.throttle_streak = 0;
      ClearUnreachable(host);
      host.politeness.last_response_time = outcome.response_time;
      host.next_allowed = std::max(
          host.next_allowed, now + AdaptiveDelay(p, outcome.response_time));
      break;
    case FetchOutcome::kThrottled:
      ClearUnreachable(host);
      back_off = true;
      break;
    case FetchOutcome::kError:
      if (outcome.connection_failed) {
        // No back-off beyond the delay (PolitenessOptions::unreachable_after).
        return CountConnectionFailure(host, outcome, now);
      }
      back_off = outcome.transient;
      break;
    case FetchOutcome::kNotFetched:
    case FetchOutcome::kDeferred:
      break;
  }
  if (back_off) {
    ++host.politeness.throttle_streak;
    host.blocked_until =
        std::max(host.blocked_until,
                 now + ThrottleBackoff(p, host.politeness.throttle_streak,
                                       outcome.kind == FetchOutcome::kThrottled
                                           ? outcome.retry_after
                                           : std::nullopt,
                                       rng_));
  }
  return false;
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
  const bool now_unreachable = ApplyOutcome(host, outcome, now);
  UrlFate fate = UrlFate::kFinished;
  switch (outcome.kind) {
    case FetchOutcome::kSuccess:
      ++counters_.succeeded;
      break;
    case FetchOutcome::kThrottled:
      ++counters_.throttled;
      fate = RetryOrGiveUp(host, std::move(entry), /*throttled=*/true);
      break;
    case FetchOutcome::kError:
      ++counters_.failed;
      // Found unreachable: finished, its record carries the failure itself.
      if (outcome.transient && !now_unreachable) {
        fate = RetryOrGiveUp(host, std::move(entry), /*throttled=*/false);
      }
      break;
    case FetchOutcome::kNotFetched:
      // The URL does not count as a page.
      if (entry.counted && host.urls_dispatched > 0) --host.urls_dispatched;
      break;
    case FetchOutcome::kDeferred:
      // A counted URL is within the page cap even if counting it dropped
      // the host: it goes back (HostState::HasWork serves it).
      if (host.dropped && !entry.counted) {
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
      .estimated_fp_rate = sieve.filter_estimated_fp_rate,
      .bytes = sieve.filter_bytes,
      .bytes_on_disk = sieve.filter_bytes_on_disk};
}

absl::Status Frontier::status() const {
  if (absl::Status s = sieve_->status(); !s.ok()) return s;
  std::lock_guard lock(mu_);
  if (!overflow_status_.ok()) return overflow_status_;
  return hosts_->table.status();
}

FrontierStats Frontier::stats() const {
  const SieveStats sieve = sieve_->stats();
  std::lock_guard lock(mu_);
  FrontierStats out = counters_;
  out.queued_in_sieve = sieve.size;
  out.queue_bytes_in_sieve = sieve.queue_bytes_in_memory;
  out.queued_in_hosts = hosts_->table.queued_urls();
  out.queued_on_disk_hosts = hosts_->overflow.size();
  out.queued =
      out.queued_in_sieve + out.queued_in_hosts + out.queued_on_disk_hosts;
  out.host_queue_bytes = hosts_->table.queued_bytes();
  out.in_flight = hosts_->in_flight.size();
  out.hosts_active = hosts_active_;
  out.revisits_waiting = revisits_.size() + revisits_queued_;
  out.hosts_parked = hosts_->table.parked_count();
  out.hosts_parked_on_disk = hosts_->table.parked_on_disk();
  out.hosts_known =
      hosts_->table.host_count() + out.hosts_parked + out.hosts_parked_on_disk;
  out.added = sieve.queued;
  out.duplicates = sieve.dropped_as_seen;
  out.refused_urls = refused_for_dropped_host_.load(std::memory_order_relaxed);
  out.dropped_urls += out.refused_urls;
  return out;
}

}  // namespace sieve
