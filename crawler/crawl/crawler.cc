#include "crawler/crawl/crawler.h"

#include <sys/resource.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "crawler/crawl/crawl_options.h"
#include "crawler/crawl/link_policy.h"
#include "crawler/crawl/progress.h"
#include "crawler/crawl/robots_cache.h"
#include "crawler/crawl/scope.h"
#include "crawler/crawl/worker_pool.h"
#include "crawler/output/page_record.h"
#include "crawler/output/summary.h"
#include "fetch/fetcher.h"
#include "fetch/retry_policy.h"
#include "frontier/politeness.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// Fetched HTML pages waiting for (or being parsed by) each parser thread before
// the loop stops starting transfers: enough that no parser ever waits for the
// network, few enough that bodies waiting in memory stay a handful of pages.
constexpr size_t kParseBacklogPerThread = 4;

enum class RequestKind { kPage, kRobots };

struct Request {
  RequestKind kind = RequestKind::kPage;
  FrontierUrl url;   // kPage: the URL; kRobots: unused.
  std::string host;  // Authority, the Frontier's host key.
  absl::Time start;
};

// A host whose robots.txt is being fetched, with the URLs the Frontier handed
// out meanwhile.
struct PendingRobots {
  absl::Time start;
  std::vector<FrontierUrl> waiting;
};

// A fetched page coming back from a parser thread.
struct ParsedPage {
  PageRecord record;
  FrontierUrl url;
  absl::Duration response_time;
  PageLinks links;
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

uint64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

class Crawler::Impl {
 public:
  explicit Impl(CrawlSetup setup)
      : setup_(std::move(setup)),
        config_(setup_.config),
        out_(config_.crawl.out),
        robots_(ProductToken(config_.fetch.user_agent)) {}

  ~Impl() {
    pool_.reset();  // Parser threads hold pointers into this object.
  }

  absl::Status Init();
  absl::StatusOr<CrawlSummary> Run();
  void RequestStop() {
    stop_requested_.store(true);
    if (fetcher_ != nullptr) fetcher_->Wakeup();
  }

 private:
  bool PageBudgetLeft() const {
    return config_.crawl.max_pages == 0 ||
           pages_started_ < static_cast<uint64_t>(config_.crawl.max_pages);
  }
  bool Stopping() const { return !stop_reason_.empty(); }
  // Gap between requests to `host`: the configured delay or its robots.txt
  // Crawl-delay (capped).
  absl::Duration HostDelay(const std::string& host) const {
    auto it = crawl_delays_.find(host);
    return DelayBetweenRequests(
        politeness_, it == crawl_delays_.end() ? HostPoliteness{} : it->second);
  }

  void Dispatch(absl::Time now, absl::Duration& wait, bool& frontier_empty);
  void HandleReady(FrontierUrl url, absl::Time now);
  void SubmitPage(FrontierUrl url, absl::Time now);
  void ReleaseHeld(absl::Time now);
  void OnResponse(FetchResponse response, absl::Time now);
  void OnRobots(const Request& request, const FetchResponse& response,
                absl::Time now);
  void OnPage(Request request, FetchResponse response, absl::Time now);
  // Writes the record and, unless `already_done`, tells the Frontier the URL is
  // done.
  void FinishPage(const PageRecord& record, const FrontierUrl& url,
                  const FetchOutcome& outcome, absl::Time now,
                  bool already_done = false);
  // Done without a fetch (robots.txt forbids it, or its host reached its page
  // limit).
  void SkipUrl(const FrontierUrl& url, absl::Time now);
  void CollectParsed(absl::Time now);
  absl::Status WriteCheckpointNow();
  void CheckCapacity();
  // The Sieve's filter now: its Swamidass-Baldi estimated count and the
  // false-positive rate at that fill (Frontier::sieve_stats).
  struct FilterSnapshot {
    uint64_t capacity = 0;
    double estimated_count = 0;
    double estimated_fp_rate = 0;
  };
  FilterSnapshot ReadFilter() const;
  ProgressSnapshot Snapshot(absl::Time now);
  CrawlSummary MakeSummary(absl::Time now);

  CrawlSetup setup_;
  const CrawlConfig& config_;
  const fs::path out_;
  std::shared_ptr<spdlog::logger> log_;

  CrawlState state_;
  CrawlCounters& counters_ = state_.counters;
  std::unique_ptr<Frontier> frontier_;
  std::unique_ptr<Fetcher> fetcher_;
  std::unique_ptr<PagesWriter> writer_;
  std::unique_ptr<Scope> scope_;
  RobotsCache robots_;
  LinkPolicy policy_;
  PolitenessOptions politeness_;
  std::unique_ptr<WorkerPool<ParsedPage>> pool_;
  size_t parser_threads_ = 1;
  std::unique_ptr<Progress> progress_;

  uint64_t next_request_id_ = 1;
  absl::flat_hash_map<uint64_t, Request> requests_;
  absl::flat_hash_map<std::string, PendingRobots> robots_pending_;
  std::multimap<absl::Time, FrontierUrl>
      held_;  // URLs waiting for their host's delay.
  absl::flat_hash_map<std::string, int> throttles_;
  absl::flat_hash_map<std::string, HostPoliteness>
      crawl_delays_;  // Hosts with a Crawl-delay.  // 429/503 answers per URL.
  uint64_t pages_started_ = 0;
  uint64_t capacity_warned_at_ = 0;
  double base_run_seconds_ = 0;
  absl::Time started_;
  double cpu_at_start_ = 0;
  std::string stop_reason_;
  std::atomic<bool> stop_requested_{false};
  absl::Status fatal_;
};

absl::Status Crawler::Impl::Init() {
  log_ = setup_.logger;
  std::error_code ec;
  fs::create_directories(out_, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create output directory '", out_.string(),
                     "': ", ec.message()));
  }
  const fs::path scratch = out_ / ".scratch";
  fs::remove_all(scratch, ec);  // A killed run's Sieve scratch store.
  fs::create_directories(scratch, ec);
  absl::StatusOr<FrontierOptions> frontier_options =
      MakeFrontierOptions(config_, scratch);
  if (!frontier_options.ok()) return frontier_options.status();
  politeness_ = frontier_options->politeness;

  const fs::path pages = out_ / "pages.jsonl";
  if (setup_.resume) {
    absl::StatusOr<RestoredCrawl> restored =
        ReadCheckpoint(out_ / "checkpoint", *std::move(frontier_options));
    if (!restored.ok()) return restored.status();
    state_ = std::move(restored->state);
    frontier_ = std::move(restored->frontier);
    if (absl::Status s = PagesWriter::TruncateTo(pages, state_.pages_offset);
        !s.ok())
      return s;
    pages_started_ = counters_.pages;
    base_run_seconds_ = counters_.run_seconds;
    log_->info("resuming {}: {} pages done, {} URLs queued", out_.string(),
               counters_.pages, frontier_->stats().queued);
  } else {
    if (fs::exists(out_ / "checkpoint" / "CURRENT", ec) ||
        (fs::exists(pages, ec) && fs::file_size(pages, ec) > 0)) {
      return absl::FailedPreconditionError(
          absl::StrCat("'", out_.string(),
                       "' already holds a crawl: continue it with --resume ",
                       out_.string(), ", or choose another --out"));
    }
    if (setup_.seeds.empty()) return absl::InvalidArgumentError("no seed URLs");
    absl::StatusOr<std::unique_ptr<Frontier>> frontier =
        Frontier::Create(*std::move(frontier_options));
    if (!frontier.ok()) return frontier.status();
    frontier_ = std::move(*frontier);
    const UrlOptions url_options = MakeUrlOptions(config_);
    for (const std::string& seed : setup_.seeds) {
      absl::StatusOr<UrlParts> parts = SplitUrl(seed, url_options);
      if (!parts.ok()) continue;
      const std::string host = parts->Authority();
      if (std::find(state_.seed_hosts.begin(), state_.seed_hosts.end(), host) ==
          state_.seed_hosts.end()) {
        state_.seed_hosts.push_back(host);
      }
      frontier_->Add(parts->normalized_url, host, 0, Origin{}.Encode());
    }
  }

  absl::StatusOr<Scope> scope =
      Scope::Create(MakeScopeOptions(config_), state_.seed_hosts);
  if (!scope.ok()) return scope.status();
  scope_ = std::make_unique<Scope>(*std::move(scope));

  absl::StatusOr<std::unique_ptr<PagesWriter>> writer =
      PagesWriter::Open(pages);
  if (!writer.ok()) return writer.status();
  writer_ = std::move(*writer);

  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(MakeFetchOptions(config_));
  if (!fetcher.ok()) return fetcher.status();
  fetcher_ = std::move(*fetcher);

  policy_ = LinkPolicy{
      .scope = scope_.get(),
      .robots = &robots_,
      .frontier = frontier_.get(),
      .url_options = MakeUrlOptions(config_),
      .max_depth = static_cast<uint32_t>(config_.crawl.max_depth),
      .max_outlinks = static_cast<size_t>(config_.crawl.max_outlinks_per_page),
      .obey_nofollow = config_.crawl.obey_nofollow,
      .robots_name =
          absl::AsciiStrToLower(ProductToken(config_.fetch.user_agent))};
  int threads = static_cast<int>(config_.crawl.parser_threads);
  if (threads <= 0)
    threads =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parser_threads_ = static_cast<size_t>(threads);
  Fetcher* fetcher_ptr = fetcher_.get();
  pool_ = std::make_unique<WorkerPool<ParsedPage>>(
      threads, [fetcher_ptr] { fetcher_ptr->Wakeup(); });
  progress_ = std::make_unique<Progress>(log_, setup_.live_progress);
  // A checkpoint before the first fetch, so a crawl killed at any moment can be
  // resumed.
  return WriteCheckpointNow();
}

void Crawler::Impl::Dispatch(absl::Time now, absl::Duration& wait,
                             bool& frontier_empty) {
  frontier_empty = false;
  const size_t concurrency = static_cast<size_t>(config_.fetch.concurrency);
  // Backpressure: a fetched page holds its body until a parser takes it, and
  // fetching outruns parsing on a fast site, so no new transfer starts while
  // the parsers have a few pages each waiting. A finished parse wakes the loop.
  const size_t parse_backlog = kParseBacklogPerThread * parser_threads_;
  while (!Stopping() && PageBudgetLeft() &&
         fetcher_->in_flight() < concurrency &&
         pool_->pending() < parse_backlog) {
    NextUrl next = frontier_->Next(now);
    if (next.state == NextUrl::kReady) {
      HandleReady(std::move(next.url), now);
      continue;
    }
    if (next.state == NextUrl::kWait) wait = std::min(wait, next.wait);
    frontier_empty = next.state == NextUrl::kEmpty;
    break;
  }
}

void Crawler::Impl::HandleReady(FrontierUrl url, absl::Time now) {
  if (config_.crawl.max_pages_per_host > 0 &&
      state_.pages_per_host[url.host] >=
          static_cast<uint64_t>(config_.crawl.max_pages_per_host)) {
    SkipUrl(url, now);
    return;
  }
  absl::StatusOr<UrlParts> parts = SplitUrl(url.url);
  if (!parts.ok()) {
    SkipUrl(url, now);
    return;
  }
  if (std::optional<bool> allowed =
          robots_.Allowed(url.host, parts->path_and_query);
      allowed.has_value()) {
    if (!*allowed) {
      ++counters_.robots_disallowed;
      SkipUrl(url, now);
      return;
    }
    SubmitPage(std::move(url), now);
    return;
  }
  // robots.txt first (RFC 9309 2.3.1.2: follow up to five redirects); the URL
  // waits for it.
  auto [it, inserted] = robots_pending_.try_emplace(url.host);
  it->second.waiting.push_back(std::move(url));
  if (!inserted) return;
  it->second.start = now;
  const uint64_t id = next_request_id_++;
  Request& robots_request = requests_[id];
  robots_request.kind = RequestKind::kRobots;
  robots_request.host = it->first;
  robots_request.start = now;
  ++counters_.robots_fetches;
  fetcher_->Submit(FetchRequest{
      .id = id,
      .url = absl::StrCat(parts->scheme, "://", it->first, "/robots.txt"),
      .max_redirects = 5});
}

void Crawler::Impl::SubmitPage(FrontierUrl url, absl::Time now) {
  ++pages_started_;
  const uint64_t count = ++state_.pages_per_host[url.host];
  if (config_.crawl.max_pages_per_host > 0 &&
      count >= static_cast<uint64_t>(config_.crawl.max_pages_per_host)) {
    frontier_->DropHost(url.host);  // Its other queued URLs are discarded.
  }
  const uint64_t id = next_request_id_++;
  FetchRequest request{.id = id, .url = url.url};
  std::string host = url.host;
  requests_[id] = Request{.kind = RequestKind::kPage,
                          .url = std::move(url),
                          .host = std::move(host),
                          .start = now};
  fetcher_->Submit(std::move(request));
}

void Crawler::Impl::SkipUrl(const FrontierUrl& url, absl::Time now) {
  if (absl::Status s = frontier_->Done(
          url.url, FetchOutcome::Success(absl::ZeroDuration()), now);
      !s.ok()) {
    log_->warn("frontier: {}", std::string(s.message()));
  }
}

void Crawler::Impl::ReleaseHeld(absl::Time now) {
  while (!held_.empty() && held_.begin()->first <= now && !Stopping() &&
         PageBudgetLeft()) {
    FrontierUrl url = std::move(held_.begin()->second);
    held_.erase(held_.begin());
    SubmitPage(std::move(url), now);
  }
}

void Crawler::Impl::OnResponse(FetchResponse response, absl::Time now) {
  auto it = requests_.find(response.id);
  if (it == requests_.end()) return;
  Request request = std::move(it->second);
  requests_.erase(it);
  // Politeness as the server sees it: the next request to this host starts at
  // least the delay after this response ended, not only after this request was
  // handed out (a request that waited for a connection would otherwise be
  // followed too closely).
  const absl::Duration delay = HostDelay(request.host);
  if (delay > absl::ZeroDuration())
    frontier_->BlockHost(request.host, now + delay);
  if (request.kind == RequestKind::kRobots) {
    OnRobots(request, response, now);
  } else {
    OnPage(std::move(request), std::move(response), now);
  }
}

void Crawler::Impl::OnRobots(const Request& request,
                             const FetchResponse& response, absl::Time now) {
  auto pending_it = robots_pending_.find(request.host);
  if (pending_it == robots_pending_.end()) return;
  PendingRobots pending = std::move(pending_it->second);
  robots_pending_.erase(pending_it);

  RobotsVerdict verdict =
      InterpretRobotsResponse(response, ProductToken(config_.fetch.user_agent));
  log_->debug("robots.txt of {}: status {} {}", request.host, response.status,
              std::string(FetchErrorName(response.error)));
  if (verdict.kind == RobotsVerdict::kUnavailable) {
    // RFC 9309 2.3.1.4: assume complete disallow for now. The URLs go back to
    // the Frontier, which backs the host off; robots.txt is asked again when
    // the host comes back.
    log_->info("robots.txt of {} unavailable ({}); backing off", request.host,
               response.status != 0
                   ? absl::StrCat("HTTP ", response.status)
                   : std::string(FetchErrorName(response.error)));
    for (const FrontierUrl& url : pending.waiting) {
      ++counters_.throttled;
      (void)frontier_->Done(url.url, FetchOutcome::Throttled(), now);
    }
    return;
  }
  if (verdict.crawl_delay.has_value()) {
    frontier_->SetCrawlDelay(request.host, *verdict.crawl_delay);
    RecordCrawlDelay(politeness_, *verdict.crawl_delay,
                     crawl_delays_[request.host]);
  }
  robots_.Store(request.host, verdict);
  // The robots.txt request was the host's first: its pages keep the politeness
  // delay after it.
  const absl::Duration delay = HostDelay(request.host);
  absl::Time at = now;
  for (FrontierUrl& url : pending.waiting) {
    absl::StatusOr<UrlParts> parts = SplitUrl(url.url);
    if (!parts.ok() ||
        !robots_.Allowed(url.host, parts->path_and_query).value_or(true)) {
      if (parts.ok()) ++counters_.robots_disallowed;
      SkipUrl(url, now);
      continue;
    }
    at += delay;
    frontier_->BlockHost(url.host, at + delay);
    held_.emplace(at, std::move(url));
  }
}

void Crawler::Impl::OnPage(Request request, FetchResponse response,
                           absl::Time now) {
  FrontierUrl& url = request.url;
  const Origin origin = Origin::Decode(url.metadata);
  PageRecord record;
  record.url = url.url;
  record.final_url =
      response.effective_url.empty() ? url.url : response.effective_url;
  record.status = response.status;
  record.content_type = response.headers.content_type;
  record.bytes = static_cast<int64_t>(response.body.size());
  record.fetch_ms = absl::ToDoubleMilliseconds(response.timings.total);
  record.depth = url.depth;
  record.discovered_from = origin.referrer;
  record.truncated = response.truncated;
  const absl::Duration response_time = response.timings.total;

  if (response.ok() && (response.status == 429 || response.status == 503)) {
    int& throttles = throttles_[url.url];
    if (++throttles <= politeness_.max_throttle_retries) {
      // Not served: the Frontier queues it again after the host's back-off; no
      // record yet.
      ++counters_.throttled;
      --pages_started_;
      std::optional<absl::Duration> retry_after =
          ParseRetryAfter(response.headers.retry_after, absl::Now());
      (void)frontier_->Done(url.url, FetchOutcome::Throttled(retry_after), now);
      return;
    }
    throttles_.erase(
        url.url);  // The Frontier drops it now: record the last answer.
    record.error = absl::StrCat("http_", response.status);
    ++counters_.http_errors;
    FinishPage(record, url, FetchOutcome::Throttled(), now);
    return;
  }
  throttles_.erase(url.url);
  if (!response.ok()) {
    record.error = std::string(FetchErrorName(response.error));
    record.error_detail = response.error_message;
    ++counters_.fetch_errors;
    FinishPage(record, url, FetchOutcome::Error(), now);
    return;
  }
  if (response.status >= 300 && response.status < 400) {
    ++counters_.redirects;
    if (!response.redirect_url.empty()) {
      record.redirect_to = response.redirect_url;
      record.links_found = 1;
      if (origin.redirect_hops + 1 > config_.crawl.max_redirects) {
        record.error = "too_many_redirects";
        ++counters_.too_many_redirects;
      } else {
        AddOutcome added =
            AddDiscovered(policy_, response.redirect_url, url.depth,
                          Origin{.redirect_hops = origin.redirect_hops + 1,
                                 .referrer = url.url});
        record.links_new = added == AddOutcome::kQueued ? 1 : 0;
        if (added == AddOutcome::kOffSite) ++counters_.off_site;
        if (added == AddOutcome::kDisallowed) ++counters_.robots_disallowed;
      }
    }
    FinishPage(record, url, FetchOutcome::Success(response_time), now);
    return;
  }
  if (response.status >= 400) {
    record.error = absl::StrCat("http_", response.status);
    ++counters_.http_errors;
    FinishPage(record, url, FetchOutcome::Success(response_time), now);
    return;
  }
  if (response.status >= 200 && response.status < 300) ++counters_.pages_ok;
  if (!IsHtml(response.headers.content_type)) {
    FinishPage(record, url, FetchOutcome::Success(response_time), now);
    return;
  }
  // HTML: parse on the pool, and release the host's slot now so fetching goes
  // on meanwhile. The record is written when the page comes back
  // (CollectParsed); a checkpoint first waits for the pool, so every URL the
  // Frontier counts as done has its record and its links by then.
  if (absl::Status s =
          frontier_->Done(url.url, FetchOutcome::Success(response_time), now);
      !s.ok()) {
    log_->warn("frontier: {}", std::string(s.message()));
  }
  const LinkPolicy* policy = &policy_;
  pool_->Submit([policy, record = std::move(record), url = std::move(url),
                 response = std::move(response), response_time]() mutable {
    ParsedPage page;
    page.record = std::move(record);
    page.url = std::move(url);
    page.response_time = response_time;
    page.links = ProcessHtmlPage(*policy, response, page.url.depth);
    return page;
  });
}

void Crawler::Impl::CollectParsed(absl::Time now) {
  for (ParsedPage& page : pool_->TakeResults()) {
    const PageLinks& links = page.links;
    page.record.links_found = links.found;
    page.record.links_new = links.queued;
    ++counters_.html_pages;
    counters_.nofollow_links += links.nofollow_links;
    counters_.off_site += links.off_site;
    counters_.filtered += links.filtered;
    counters_.traps += links.traps;
    counters_.beyond_depth += links.beyond_depth;
    counters_.robots_disallowed += links.disallowed;
    if (links.nofollow_page) ++counters_.nofollow_pages;
    if (links.noindex_page) ++counters_.noindex_pages;
    FinishPage(page.record, page.url, FetchOutcome::Success(page.response_time),
               now, /*already_done=*/true);
  }
}

void Crawler::Impl::FinishPage(const PageRecord& record, const FrontierUrl& url,
                               const FetchOutcome& outcome, absl::Time now,
                               bool already_done) {
  if (absl::Status s = writer_->Write(record); !s.ok() && fatal_.ok())
    fatal_ = s;
  ++counters_.pages;
  counters_.bytes += static_cast<uint64_t>(record.bytes);
  counters_.links_found += static_cast<uint64_t>(record.links_found);
  counters_.links_new += static_cast<uint64_t>(record.links_new);
  if (record.truncated) ++counters_.truncated;
  if (already_done) {
    progress_->CountPage(!record.error.empty());
    return;
  }
  if (absl::Status s = frontier_->Done(url.url, outcome, now); !s.ok()) {
    log_->warn("frontier: {}", std::string(s.message()));
  }
  progress_->CountPage(!record.error.empty());
}

absl::Status Crawler::Impl::WriteCheckpointNow() {
  // Between pages: every parsed page is recorded and done, so the Frontier and
  // pages.jsonl agree.
  pool_->WaitIdle();
  CollectParsed(absl::Now());
  if (absl::Status s = writer_->Sync(); !s.ok()) return s;
  state_.pages_offset = writer_->offset();
  ++state_.sequence;
  counters_.run_seconds =
      base_run_seconds_ + (started_ == absl::Time()
                               ? 0
                               : absl::ToDoubleSeconds(absl::Now() - started_));
  return WriteCheckpoint(out_ / "checkpoint", state_, *frontier_);
}

Crawler::Impl::FilterSnapshot Crawler::Impl::ReadFilter() const {
  const SieveStats sieve = frontier_->sieve_stats();
  return FilterSnapshot{.capacity = sieve.filter_capacity,
                        .estimated_count = sieve.filter_estimated_count,
                        .estimated_fp_rate = sieve.filter_estimated_fp_rate};
}

void Crawler::Impl::CheckCapacity() {
  const FilterSnapshot filter = ReadFilter();
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
  const FilterSnapshot filter = ReadFilter();
  return ProgressSnapshot{
      .pages = counters_.pages,
      .errors = counters_.fetch_errors + counters_.http_errors,
      .queued = stats.queued,
      .in_flight = fetcher_->in_flight(),
      .hosts_active = stats.hosts_active,
      .filter_estimated_count = filter.estimated_count,
      .filter_capacity = filter.capacity,
      .filter_estimated_fp_rate = filter.estimated_fp_rate,
      .seconds = absl::ToDoubleSeconds(now - started_)};
}

CrawlSummary Crawler::Impl::MakeSummary(absl::Time now) {
  const FilterSnapshot filter = ReadFilter();
  return CrawlSummary{
      .stop_reason = stop_reason_.empty() ? "finished" : stop_reason_,
      .counters = counters_,
      .frontier = frontier_->stats(),
      .seconds = absl::ToDoubleSeconds(now - started_),
      .cpu_seconds = CpuSeconds() - cpu_at_start_,
      .peak_rss_bytes = PeakRssBytes(),
      .filter_capacity = filter.capacity,
      .filter_estimated_count = filter.estimated_count,
      .filter_estimated_fp_rate = filter.estimated_fp_rate};
}

absl::StatusOr<CrawlSummary> Crawler::Impl::Run() {
  started_ = absl::Now();
  cpu_at_start_ = CpuSeconds();
  const absl::Duration checkpoint_every =
      absl::Seconds(config_.crawl.checkpoint_seconds);
  absl::Time next_checkpoint = started_ + checkpoint_every;
  const absl::Time deadline =
      config_.crawl.max_run_seconds > 0
          ? started_ + absl::Seconds(config_.crawl.max_run_seconds)
          : absl::InfiniteFuture();
  absl::Time grace_deadline = absl::InfiniteFuture();

  while (fatal_.ok()) {
    absl::Time now = absl::Now();
    if (!Stopping()) {
      if (stop_requested_.load()) {
        stop_reason_ = "interrupted";
      } else if (now >= deadline) {
        stop_reason_ = "max_run_time";
      }
      if (Stopping()) {
        log_->info("stopping ({}): waiting up to {} for {} transfers in flight",
                   stop_reason_, absl::FormatDuration(setup_.stop_grace),
                   fetcher_->in_flight());
        grace_deadline = now + setup_.stop_grace;
      }
    }
    absl::Duration wait = absl::Milliseconds(500);
    bool frontier_empty = false;
    // Links of pages parsed after Dispatch's look at the Frontier are only
    // seen next time round: "empty" is final only if no page was parsing.
    const bool pool_idle_before = pool_->pending() == 0;
    ReleaseHeld(now);
    Dispatch(now, wait, frontier_empty);
    CollectParsed(now);
    if (now >= next_checkpoint && !Stopping()) {
      if (absl::Status s = WriteCheckpointNow(); !s.ok()) return s;
      next_checkpoint = absl::Now() + checkpoint_every;
    }
    CheckCapacity();
    progress_->Tick(now, [&] { return Snapshot(now); });

    const bool fetching = fetcher_->in_flight() > 0 || pool_->pending() > 0;
    if (Stopping()) {
      if (!fetching || now >= grace_deadline) break;
    } else if (!fetching) {
      if (frontier_empty && held_.empty() && pool_idle_before) break;
      if (!pool_idle_before) wait = absl::ZeroDuration();
      if (!PageBudgetLeft()) {
        stop_reason_ = "max_pages";
        break;
      }
    }
    if (!held_.empty()) wait = std::min(wait, held_.begin()->first - now);
    wait = std::min(wait, next_checkpoint - now);
    if (deadline != absl::InfiniteFuture())
      wait = std::min(wait, deadline - now);
    wait = std::max(wait, absl::ZeroDuration());
    for (FetchResponse& response : fetcher_->Poll(wait)) {
      OnResponse(std::move(response), absl::Now());
    }
  }
  if (!fatal_.ok()) return fatal_;

  // Pages still parsing are recorded; transfers still in flight are abandoned
  // and stay queued in the checkpoint.
  const absl::Time end = absl::Now();
  if (absl::Status s = WriteCheckpointNow(); !s.ok()) return s;
  progress_->Finish(Snapshot(end));
  CrawlSummary summary = MakeSummary(end);
  if (absl::Status s = WriteSummaryJson(out_ / "summary.json", summary);
      !s.ok())
    return s;
  return summary;
}

absl::StatusOr<std::unique_ptr<Crawler>> Crawler::Create(CrawlSetup setup) {
  auto impl = std::make_unique<Impl>(std::move(setup));
  if (absl::Status s = impl->Init(); !s.ok()) return s;
  return std::unique_ptr<Crawler>(new Crawler(std::move(impl)));
}

Crawler::Crawler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Crawler::~Crawler() = default;

absl::StatusOr<CrawlSummary> Crawler::Run() { return impl_->Run(); }

void Crawler::RequestStop() { impl_->RequestStop(); }

}  // namespace sieve
