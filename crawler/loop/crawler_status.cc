// crawler/loop/crawler_status.cc: what the crawl saves and reports about
// itself: checkpoints (WriteCheckpointNow), the Sieve filter's capacity warning
// (CheckCapacity), the progress snapshot and the final summary.
#include <sys/resource.h>

#include <string>

#include "crawler/loop/crawler_impl.h"
#include "crawler/output/summary.h"

namespace sieve {
namespace {

uint64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

double Crawler::Impl::CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

absl::Status Crawler::Impl::WriteCheckpointNow() {
  // Between pages: every parsed page is recorded and done, so the Frontier and
  // pages.jsonl agree.
  pool_->WaitIdle();
  CollectParsed(absl::Now());
  if (absl::Status s = sink_->Sync(state_); !s.ok()) return s;
  // The same instant for the WARC files: every response archived so far
  // belongs to a URL recorded above pages_offset (or to robots.txt).
  absl::StatusOr<std::vector<WarcFileState>> warc_files = archive_->Sync();
  if (!warc_files.ok()) return warc_files.status();
  state_.warc_files = *std::move(warc_files);
  ++state_.sequence;
  state_.domain_budget = domains_->Save();
  counters_.run_seconds =
      base_run_seconds_ + (started_ == absl::Time()
                               ? 0
                               : absl::ToDoubleSeconds(absl::Now() - started_));
  // The revisit history is in the frontier's store, which it checkpoints.
  return WriteCheckpoint(out_ / "checkpoint", state_, *frontier_,
                         &checkpoint_checksums_);
}

void Crawler::Impl::CheckCapacity() {
  const FrontierFilterStats filter = frontier_->filter_stats();
  // stop: against the configured size (a resumed crawl may have raised it
  // above the saved filter's).
  if (config_.sieve.on_capacity == CapacityPolicy::kStop && !Stopping() &&
      filter.estimated_count >=
          static_cast<double>(config_.sieve.expected_urls)) {
    log_->warn(
        "the Sieve's filter holds about {:.0f} URLs, sieve.expected_urls "
        "({}): stopping (sieve.on_capacity = stop); continue with --resume "
        "{} --expected-urls N",
        filter.estimated_count, config_.sieve.expected_urls, out_.string());
    Stop(StopReason::kCapacity);
  }
  // The Sieve's capacity warning: once past expected_urls, and again at each
  // doubling.
  const uint64_t capacity = filter.capacity;
  if (capacity == 0 || filter.estimated_count <= static_cast<double>(capacity))
    return;
  uint64_t threshold =
      capacity_warned_at_ == 0 ? capacity : capacity_warned_at_ * 2;
  if (filter.estimated_count <= static_cast<double>(threshold)) return;
  capacity_warned_at_ = threshold;
  ++counters_.capacity_warnings;
  if (config_.sieve.on_capacity == CapacityPolicy::kGrow) {
    log_->warn(
        "the Sieve's filter holds about {:.0f} URLs, past expected_urls ({}): "
        "it grows (sieve.on_capacity = grow), its false-positive rate is "
        "about {:.3g}",
        filter.estimated_count, capacity, filter.estimated_fp_rate);
    return;
  }
  log_->warn(
      "the Sieve's filter holds about {:.0f} URLs, past its capacity of {} "
      "(expected_urls): its "
      "false-positive rate is now about {:.3g}, so that share of new URLs is "
      "dropped as seen. "
      "Raise sieve.expected_urls (--expected-urls) for a crawl this size.",
      filter.estimated_count, capacity, filter.estimated_fp_rate);
}

ProgressSnapshot Crawler::Impl::Snapshot(absl::Time now) {
  const FrontierStats stats = frontier_->stats();
  const FrontierFilterStats filter = frontier_->filter_stats();
  return ProgressSnapshot{
      .pages = counters_.pages,
      .errors = counters_.fetch_errors + counters_.http_errors,
      .queued = stats.queued,
      .in_flight = fetcher_->in_flight(),
      .hosts_active = stats.hosts_active,
      .filter_estimated_count = filter.estimated_count,
      .filter_capacity = filter.capacity,
      .filter_estimated_fp_rate = filter.estimated_fp_rate,
      .seconds = absl::ToDoubleSeconds(now - started_),
      .pages_this_run = counters_.pages - base_pages_};
}

void Crawler::Impl::PublishMetrics(absl::Time now) {
  CrawlMetrics m{.summary = MakeSummary(now),
                 .status_classes = sink_->status_classes(),
                 .fetch_latency = fetch_latency_,
                 .in_flight = fetcher_->in_flight(),
                 .robots_cache_entries = robots_.size(),
                 .robots_cache_bytes = robots_.bytes(),
                 .skipped = {},
                 .resident_bytes = ResidentBytes(),
                 .revisit_planned_per_second = revisits_->planned_per_second()};
  // sieve_skipped_total{reason}: skipped.jsonl's counts, by its reasons
  // (crawler/policy/skip_reason.h).
  for (SkipReason reason : AllSkipReasons()) {
    m.skipped.emplace_back(std::string(SkipReasonName(reason)),
                           counters_.skipped[static_cast<size_t>(reason)]);
  }
  metrics_->Publish(FormatPrometheusMetrics(m), SummaryToJson(m.summary));
}

CrawlSummary Crawler::Impl::MakeSummary(absl::Time now) {
  const FrontierFilterStats filter = frontier_->filter_stats();
  return CrawlSummary{
      .stop_reason = stop_reason_.value_or(StopReason::kFinished),
      .counters = counters_,
      .frontier = frontier_->stats(),
      .started_at = started_,
      .finished_at = now,
      .pages_this_run = counters_.pages - base_pages_,
      .seconds = absl::ToDoubleSeconds(now - started_),
      .cpu_seconds = CpuSeconds() - cpu_at_start_,
      .peak_rss_bytes = PeakRssBytes(),
      .filter_capacity = filter.capacity,
      .filter_estimated_count = filter.estimated_count,
      .filter_estimated_fp_rate = filter.estimated_fp_rate,
      .fetch = fetcher_ != nullptr ? fetcher_->counters() : FetchCounters{},
      .budgets = Budgets()};
}

std::vector<BudgetUse> Crawler::Impl::Budgets() const {
  const FrontierStats stats = frontier_->stats();
  const FrontierOptions
      frontier{};  // The crawl sets no host budget of its own.
  const DomainBudgetStats domains = domains_->stats();
  auto mib = [](int64_t n) { return static_cast<uint64_t>(n) << 20; };
  return {
      {"sieve_queue", "bytes", stats.queue_bytes_in_sieve,
       mib(config_.sieve.memory_budget_mb)},
      {"host_queues", "bytes", stats.host_queue_bytes,
       frontier.host_queue_memory_bytes},
      {"active_hosts", "hosts", stats.hosts_active, MaxActiveHosts(frontier)},
      {"robots_cache", "origins", robots_.size(),
       static_cast<uint64_t>(config_.robots.cache_entries)},
      {"robots_cache_bytes", "bytes", robots_.bytes(),
       mib(config_.robots.cache_mb)},
      {"dns_cache", "names", dns_->size(),
       static_cast<uint64_t>(config_.fetch.dns_cache_entries)},
      {"domain_budget", "domains", domains.domains, domains.slots},
  };
}

}  // namespace sieve
