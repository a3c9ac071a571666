// The Frontier's hosts: when a host's state becomes active or idle (and idle
// state is forgotten or parked), and the rules the crawl sets for a host
// (robots.txt Crawl-delay, a block until a time, a drop and the URLs it
// discards, a retry after a failure, a host found unreachable). The
// scheduling of URLs is in frontier/frontier.cc, their queues in
// frontier_queues.cc.
#include "frontier/internal/frontier_hosts.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/frontier.h"

namespace sieve {

void Frontier::Touch(HostState& host, absl::Time now) {
  const bool active =
      !host.queue.empty() || host.in_flight > 0 || host.overflow_count > 0;
  if (active != host.active) {
    host.active = active;
    if (active) {
      ++hosts_active_;
    } else {
      --hosts_active_;
      ForgetLater(host);  // An unreachable host is remembered while it is.
    }
  }
  hosts_->schedule.Update(host, now,
                          options_.politeness.max_in_flight_per_host);
}

void Frontier::ForgetLater(const HostState& host) {
  idle_hosts_.emplace(std::max(host.ready_at(), host.unreachable_until),
                      host.name);
}

void Frontier::ForgetIdleHosts(absl::Time now) {
  while (!idle_hosts_.empty() && idle_hosts_.top().first <= now) {
    const std::string name = idle_hosts_.top().second;
    idle_hosts_.pop();
    HostState* host = hosts_->table.Find(name);
    // Forget what a fresh HostState would equal: idle, past its delays, no
    // back-off streak. A dropped host, or one with a page count (under
    // max_urls_per_host), a robots.txt Crawl-delay or renders that added no
    // link, is parked instead: those
    // few bytes stay (in RAM, or on disk past max_parked_hosts_in_memory),
    // the rest of its state goes (frontier/internal/host_table.h).
    if (host == nullptr || host->active || host->ready_at() > now ||
        host->politeness.throttle_streak > 0 || host->unreachable(now)) {
      continue;
    }
    if (host->dropped || host->politeness.crawl_delay > absl::ZeroDuration() ||
        host->renders_without_links > 0 ||
        (options_.max_urls_per_host > 0 && host->urls_dispatched > 0)) {
      hosts_->table.Park(name);
    } else {
      hosts_->table.Erase(name);
    }
  }
  // Dropped hosts parked on disk are asked there (ParkedStore::IsDropped).
  if (std::vector<std::string> gone = hosts_->table.TakeSpilledDropped();
      !gone.empty()) {
    std::lock_guard dropped_lock(dropped_mu_);
    for (const std::string& name : gone) dropped_hosts_.erase(name);
  }
}

void Frontier::SetCrawlDelay(std::string_view host_name,
                             absl::Duration crawl_delay) {
  std::lock_guard lock(mu_);
  HostState& host = hosts_->table.GetOrCreate(host_name);
  if (RecordCrawlDelay(options_.politeness, crawl_delay, host.politeness)) {
    ++counters_.crawl_delays_capped;
  }
  // Applies to the gap after the request already started, too.
  if (host.last_start != absl::InfinitePast()) {
    host.next_allowed =
        std::max(host.next_allowed,
                 host.last_start + DelayBetweenRequests(options_.politeness,
                                                        host.politeness));
  }
  Touch(host,
        absl::InfinitePast());  // Due hosts are promoted by the next Next.
}

absl::StatusOr<absl::Duration> Frontier::StartHostRequest(
    std::string_view host_name, absl::Time now) {
  std::lock_guard lock(mu_);
  HostState& host = hosts_->table.GetOrCreate(host_name);
  if (host.unreachable(now)) {
    return absl::UnavailableError(
        absl::StrCat("host unreachable: ", host.unreachable_error));
  }
  const PolitenessOptions& p = options_.politeness;
  if (host.in_flight >= p.max_in_flight_per_host || host.ready_at() > now) {
    // A full host is freed by a Done or EndHostRequest, which the caller
    // sees come back; the hint only bounds its wait.
    const absl::Duration wait = host.in_flight >= p.max_in_flight_per_host
                                    ? absl::Milliseconds(50)
                                    : host.ready_at() - now;
    Touch(host, now);  // A host made here for nothing is forgotten later.
    return std::max(wait, absl::Milliseconds(1));
  }
  ++host.in_flight;
  host.last_start = now;
  host.next_allowed = now + DelayBetweenRequests(p, host.politeness);
  Touch(host, now);
  return absl::ZeroDuration();
}

void Frontier::EndHostRequest(std::string_view host_name,
                              const FetchOutcome& outcome, absl::Time now) {
  std::lock_guard lock(mu_);
  HostState* host = hosts_->table.Find(host_name);
  if (host == nullptr || host->in_flight == 0) return;
  --host->in_flight;
  (void)ApplyOutcome(*host, outcome, now);
  Touch(*host, now);
}

uint32_t Frontier::RendersWithoutLinks(std::string_view host_name) {
  std::lock_guard lock(mu_);
  HostState& host = hosts_->table.GetOrCreate(host_name);
  if (!host.active) ForgetLater(host);  // Brought back from parked: idle.
  return host.renders_without_links;
}

void Frontier::NoteRender(std::string_view host_name, bool added_links) {
  std::lock_guard lock(mu_);
  HostState& host = hosts_->table.GetOrCreate(host_name);
  host.renders_without_links =
      added_links ? 0
                  : std::min<uint32_t>(host.renders_without_links + 1,
                                       kMaxRendersWithoutLinks);
  if (!host.active) ForgetLater(host);
}

std::vector<std::pair<std::string, absl::Duration>>
Frontier::CappedCrawlDelays() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, absl::Duration>> out;
  hosts_->table.ForEach([&](const HostState& host) {
    if (host.politeness.crawl_delay_capped) {
      out.emplace_back(host.name, host.politeness.crawl_delay);
    }
  });
  hosts_->table.ForEachParked(
      [&](const std::string& name, const ParkedHost& host) {
        if (host.crawl_delay_capped) out.emplace_back(name, host.crawl_delay);
      });
  std::sort(out.begin(), out.end());
  return out;
}

void Frontier::BlockHost(std::string_view host_name, absl::Time until) {
  std::lock_guard lock(mu_);
  HostState& host = hosts_->table.GetOrCreate(host_name);
  host.blocked_until = std::max(host.blocked_until, until);
  Touch(host, absl::InfinitePast());
}

void Frontier::NoteRefused(const FrontierAdd& add) {
  if (sieve_->MaybeSeen(add.dedup_key.empty() ? add.url : add.dedup_key)) {
    return;
  }
  NoteDiscarded(add.host, QueuedUrl{.url = std::string(add.url),
                                    .metadata = std::string(add.metadata),
                                    .depth = add.depth});
}

void Frontier::NoteDiscarded(std::string_view host, QueuedUrl url) {
  std::lock_guard lock(discarded_mu_);
  discarded_.push_back(FrontierUrl{.url = std::move(url.url),
                                   .host = std::string(host),
                                   .depth = url.depth,
                                   .metadata = std::move(url.metadata)});
}

std::vector<FrontierUrl> Frontier::TakeDiscarded() {
  std::lock_guard lock(discarded_mu_);
  return std::exchange(discarded_, {});
}

uint64_t Frontier::DropHost(std::string_view host_name) {
  std::lock_guard lock(mu_);
  HostState& host = hosts_->table.GetOrCreate(host_name);
  const uint64_t discarded = DropHostLocked(host);
  Touch(host, absl::InfinitePast());
  return discarded;
}

uint64_t Frontier::DropHostLocked(HostState& host) {
  {
    std::lock_guard dropped_lock(dropped_mu_);
    dropped_hosts_.insert(host.name);
  }
  host.dropped = true;
  for (const QueuedUrl& url : host.queue) {
    if (url.revisit) {  // Fetched before: not revisited, not "skipped".
      if (revisits_queued_ > 0) --revisits_queued_;
      continue;
    }
    NoteDiscarded(host.name, url);
  }
  uint64_t discarded = hosts_->table.Clear(host);
  if (host.overflow_count > 0) {
    // Read back, not just deleted: each discarded URL gets its record.
    absl::StatusOr<std::vector<QueuedUrl>> urls =
        hosts_->overflow.TakeFront(host.id, host.overflow_count);
    if (urls.ok()) {
      for (QueuedUrl& url : *urls) NoteDiscarded(host.name, std::move(url));
    } else {
      ++counters_.overflow_errors;
      if (overflow_status_.ok()) overflow_status_ = urls.status();
      (void)hosts_->overflow.Clear(host.id,
                                   host.overflow_count);  // At least that.
    }
    discarded += host.overflow_count;
    host.overflow_count = 0;
  }
  counters_.dropped_urls += discarded;
  return discarded;
}

bool Frontier::CountConnectionFailure(HostState& host,
                                      const FetchOutcome& outcome,
                                      absl::Time now) {
  const PolitenessOptions& p = options_.politeness;
  if (++host.politeness.connection_failures < p.unreachable_after) {
    return false;
  }
  if (!host.unreachable(now)) ++counters_.hosts_unreachable;
  host.unreachable_until = now + p.unreachable_for;
  host.unreachable_error = std::string(outcome.error);
  host.unreachable_detail = std::string(outcome.detail);
  // Its URLs go out at once, unfetched.
  host.next_allowed = now;
  host.blocked_until = absl::InfinitePast();
  return true;
}

UrlFate Frontier::RetryOrGiveUp(HostState& host, QueuedUrl entry,
                                bool throttled) {
  const PolitenessOptions& p = options_.politeness;
  uint32_t& retries = throttled ? entry.throttle_retries : entry.error_retries;
  const int limit = throttled ? p.max_throttle_retries : p.max_error_retries;
  if (retries >= static_cast<uint32_t>(limit)) {
    ++counters_.given_up;
    return UrlFate::kGivenUp;
  }
  if (host.dropped) {
    ++counters_.dropped_urls;
    return UrlFate::kFinished;
  }
  ++retries;
  ++counters_.retried;
  entry.seq = next_seq_++;
  // Behind the host's other URLs: they go as soon as the back-off ends, and
  // one URL that keeps failing never holds its host up.
  Enqueue(host, std::move(entry));
  return UrlFate::kRetryLater;
}

}  // namespace sieve
