// crawler/loop/crawl_reporter.cc: the progress line, the metrics, the
// capacity warning and the summary (see crawl_reporter.h).
#include "crawler/loop/crawl_reporter.h"

#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <utility>

#include "crawler/output/summary.h"
#include "crawler/render/render_queue.h"
#include "frontier/frontier.h"

namespace sieve {
namespace {

uint64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

// How often the metrics server gets fresh figures.
constexpr absl::Duration kMetricsEvery = absl::Milliseconds(250);

}  // namespace

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

CrawlReporter::CrawlReporter(Sources sources,
                             std::shared_ptr<spdlog::logger> log, bool live)
    : sources_(sources),
      log_(std::move(log)),
      progress_(std::make_unique<Progress>(log_, live)),
      base_pages_(sources.counters->pages),
      base_run_seconds_(sources.counters->run_seconds) {}

absl::StatusOr<std::unique_ptr<CrawlReporter>> CrawlReporter::Create(
    Sources sources, std::shared_ptr<spdlog::logger> log, bool live) {
  std::unique_ptr<CrawlReporter> reporter(
      new CrawlReporter(sources, std::move(log), live));
  const std::string& listen = sources.config->output.metrics;
  if (!listen.empty()) {
    absl::StatusOr<std::unique_ptr<MetricsServer>> metrics =
        MetricsServer::Start(listen);
    if (!metrics.ok()) return metrics.status();
    reporter->metrics_ = *std::move(metrics);
    reporter->log_->info("metrics: {}/metrics and {}/status",
                         reporter->metrics_->url(), reporter->metrics_->url());
  }
  return reporter;
}

void CrawlReporter::Start(absl::Time now) {
  started_ = now;
  cpu_at_start_ = CpuSeconds();
}

void CrawlReporter::Tick(absl::Time now, std::optional<StopReason> stop) {
  progress_->Tick(now, [&] { return Snapshot(now); });
  if (metrics_ != nullptr && now >= next_metrics_) {
    PublishMetrics(now, stop);
    next_metrics_ = now + kMetricsEvery;
  }
}

bool CrawlReporter::CheckCapacity(bool stopping) {
  const CrawlConfig& config = *sources_.config;
  const FrontierFilterStats filter = sources_.frontier->filter_stats();
  bool stop = false;
  // stop: against the configured size (a resumed crawl may have raised it
  // above the saved filter's).
  if (config.sieve.on_capacity == CapacityPolicy::kStop && !stopping &&
      filter.estimated_count >=
          static_cast<double>(config.sieve.expected_urls)) {
    log_->warn(
        "the Sieve's filter holds about {:.0f} URLs, sieve.expected_urls "
        "({}): stopping (sieve.on_capacity = stop); continue with --resume "
        "{} --expected-urls N",
        filter.estimated_count, config.sieve.expected_urls, config.crawl.out);
    stop = true;
  }
  // The Sieve's capacity warning: once past expected_urls, and again at each
  // doubling.
  const uint64_t capacity = filter.capacity;
  if (capacity == 0 || filter.estimated_count <= static_cast<double>(capacity))
    return stop;
  uint64_t threshold =
      capacity_warned_at_ == 0 ? capacity : capacity_warned_at_ * 2;
  if (filter.estimated_count <= static_cast<double>(threshold)) return stop;
  capacity_warned_at_ = threshold;
  ++sources_.counters->capacity_warnings;
  if (config.sieve.on_capacity == CapacityPolicy::kGrow) {
    log_->warn(
        "the Sieve's filter holds about {:.0f} URLs, past expected_urls ({}): "
        "it grows (sieve.on_capacity = grow), its false-positive rate is "
        "about {:.3g}",
        filter.estimated_count, capacity, filter.estimated_fp_rate);
    return stop;
  }
  log_->warn(
      "the Sieve's filter holds about {:.0f} URLs, past its capacity of {} "
      "(expected_urls): its "
      "false-positive rate is now about {:.3g}, so that share of new URLs is "
      "dropped as seen. "
      "Raise sieve.expected_urls (--expected-urls) for a crawl this size.",
      filter.estimated_count, capacity, filter.estimated_fp_rate);
  return stop;
}

double CrawlReporter::RunSeconds(absl::Time now) const {
  return base_run_seconds_ +
         (started_ == absl::Time() ? 0 : absl::ToDoubleSeconds(now - started_));
}

ProgressSnapshot CrawlReporter::Snapshot(absl::Time now) const {
  const CrawlCounters& counters = *sources_.counters;
  const FrontierStats stats = sources_.frontier->stats();
  const FrontierFilterStats filter = sources_.frontier->filter_stats();
  return ProgressSnapshot{
      .pages = counters.pages,
      .errors = counters.fetch_errors + counters.http_errors,
      .queued = stats.queued,
      .in_flight =
          sources_.fetcher != nullptr ? sources_.fetcher->in_flight() : 0,
      .hosts_active = stats.hosts_active,
      .filter_estimated_count = filter.estimated_count,
      .filter_capacity = filter.capacity,
      .filter_estimated_fp_rate = filter.estimated_fp_rate,
      .seconds = absl::ToDoubleSeconds(now - started_),
      .pages_this_run = counters.pages - base_pages_,
      .rendering = sources_.render != nullptr,
      .rendered = counters.render_pages,
      .browsers_alive = BrowsersAlive()};
}

void CrawlReporter::PublishMetrics(absl::Time now,
                                   std::optional<StopReason> stop) {
  const RobotsCache* robots = sources_.robots;
  CrawlMetrics m{
      .summary = Summary(now, stop),
      .status_classes = sources_.sink != nullptr
                            ? sources_.sink->status_classes()
                            : StatusClassCounts{},
      .fetch_latency = fetch_latency_,
      .render_latency = render_latency_,
      .in_flight =
          sources_.fetcher != nullptr ? sources_.fetcher->in_flight() : 0,
      .robots_cache_entries = robots != nullptr ? robots->size() : 0,
      .robots_cache_bytes = robots != nullptr ? robots->bytes() : 0,
      .skipped = {},
      .resident_bytes = ResidentBytes(),
      .revisit_planned_per_second =
          sources_.revisits != nullptr ? sources_.revisits->planned_per_second()
                                       : 0};
  // sieve_skipped_total{reason}: skipped.jsonl's counts, by its reasons
  // (crawler/policy/skip_reason.h).
  for (SkipReason reason : AllSkipReasons()) {
    m.skipped.emplace_back(
        std::string(SkipReasonName(reason)),
        sources_.counters->skipped[static_cast<size_t>(reason)]);
  }
  metrics_->Publish(FormatPrometheusMetrics(m), SummaryToJson(m.summary));
}

CrawlSummary CrawlReporter::Summary(absl::Time now,
                                    std::optional<StopReason> stop) const {
  const CrawlCounters& counters = *sources_.counters;
  const FrontierFilterStats filter = sources_.frontier->filter_stats();
  return CrawlSummary{.stop_reason = stop.value_or(StopReason::kFinished),
                      .counters = counters,
                      .frontier = sources_.frontier->stats(),
                      .started_at = started_,
                      .finished_at = now,
                      .pages_this_run = counters.pages - base_pages_,
                      .seconds = absl::ToDoubleSeconds(now - started_),
                      .cpu_seconds = CpuSeconds() - cpu_at_start_,
                      .peak_rss_bytes = PeakRssBytes(),
                      .filter_capacity = filter.capacity,
                      .filter_estimated_count = filter.estimated_count,
                      .filter_estimated_fp_rate = filter.estimated_fp_rate,
                      .filter_bytes = filter.bytes,
                      .filter_bytes_on_disk = filter.bytes_on_disk,
                      .fetch = sources_.fetcher != nullptr
                                   ? sources_.fetcher->counters()
                                   : FetchCounters{},
                      .budgets = Budgets(),
                      .render_browsers_alive = BrowsersAlive()};
}

uint64_t CrawlReporter::BrowsersAlive() const {
  if (sources_.render == nullptr) return 0;
  return static_cast<uint64_t>(
      std::max(0, sources_.render->browser_stats().browsers_alive));
}

CrawlSummary CrawlReporter::Finish(absl::Time now,
                                   std::optional<StopReason> stop) {
  progress_->Finish(Snapshot(now));
  CrawlSummary summary = Summary(now, stop);
  if (metrics_ != nullptr) PublishMetrics(now, stop);
  return summary;
}

std::vector<BudgetUse> CrawlReporter::Budgets() const {
  const CrawlConfig& config = *sources_.config;
  const FrontierStats stats = sources_.frontier->stats();
  const FrontierOptions
      frontier{};  // The crawl sets no host budget of its own.
  const DomainBudgetStats domains = sources_.domains != nullptr
                                        ? sources_.domains->stats()
                                        : DomainBudgetStats{};
  const RobotsCache* robots = sources_.robots;
  const FrontierFilterStats filter = sources_.frontier->filter_stats();
  auto mib = [](int64_t n) { return static_cast<uint64_t>(n) << 20; };
  return {
      {"sieve_queue", "bytes", stats.queue_bytes_in_sieve,
       mib(config.sieve.memory_budget_mb)},
      {"sieve_filter", "bytes", filter.bytes,
       mib(config.sieve.filter_memory_mb)},
      {"host_queues", "bytes", stats.host_queue_bytes,
       frontier.host_queue_memory_bytes},
      {"active_hosts", "hosts", stats.hosts_active, MaxActiveHosts(frontier)},
      {"parked_hosts", "hosts", stats.hosts_parked,
       static_cast<uint64_t>(config.crawl.parked_hosts_in_memory)},
      {"robots_cache", "origins", robots != nullptr ? robots->size() : 0,
       static_cast<uint64_t>(config.robots.cache_entries)},
      {"robots_cache_bytes", "bytes", robots != nullptr ? robots->bytes() : 0,
       mib(config.robots.cache_mb)},
      {"dns_cache", "names", sources_.dns != nullptr ? sources_.dns->size() : 0,
       static_cast<uint64_t>(config.fetch.dns_cache_entries)},
      {"domain_budget", "domains", domains.domains, domains.slots},
  };
}

}  // namespace sieve
