// crawler/loop/crawler.cc: the crawl loop's setup (Init) and main loop (Run,
// Dispatch), and the Crawler methods that forward to Crawler::Impl. The other
// steps of the loop are in crawler_robots.cc, crawler_pages.cc and
// crawler_status.cc (see crawler_impl.h).
#include "crawler/loop/crawler.h"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "crawler/loop/crawler_impl.h"
#include "crawler/output/summary.h"
#include "filter/durable_file.h"
#include "parse/url.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// Fetched HTML pages waiting for (or being parsed by) each parser thread before
// the loop stops starting transfers: enough that no parser ever waits for the
// network, few enough that bodies waiting in memory stay a handful of pages.
constexpr size_t kParseBacklogPerThread = 4;

// Bytes of HTML the parser threads work on at once: a larger page waits until
// it can parse alone. gumbo's tree is about 15 times its HTML
// (bench/parse/parse_site.cc: rust-doc's 10 MB source pages build trees of
// 146-164 MiB), so this keeps the trees in memory at once to about 60 MiB,
// or one page's tree; pages of a few hundred KB, nearly all of the web, never
// wait for it.
constexpr size_t kParseBytesAtOnce = size_t{4} << 20;

}  // namespace

absl::Status Crawler::Impl::Init() {
  log_ = setup_.logger;
  if (absl::Status s = InitOptions(); !s.ok()) return s;
  if (absl::Status s = LockAndResolve(); !s.ok()) return s;
  const fs::path scratch = out_ / ".scratch";
  if (absl::Status s =
          setup_.resume ? ResumeFrontier(scratch) : StartFrontier(scratch);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = OpenOutputs(); !s.ok()) return s;
  if (absl::Status s = StartFetcher(); !s.ok()) return s;
  if (absl::Status s = StartParsing(); !s.ok()) return s;
  // A checkpoint before the first fetch, so a crawl killed at any moment can be
  // resumed.
  return WriteCheckpointNow();
}

absl::Status Crawler::Impl::InitOptions() {
  absl::StatusOr<std::string> token = RobotsToken(config_);
  if (!token.ok()) return token.status();
  robots_ = std::make_unique<RobotsGate>(
      RobotsGate::Options{
          .cache = {.max_entries =
                        static_cast<size_t>(config_.robots.cache_entries),
                    .max_bytes = static_cast<size_t>(config_.robots.cache_mb)
                                 << 20},
          .token = *token},
      counters_, log_);
  revisits_ = std::make_unique<RevisitScheduler>(config_, log_, &fatal_);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::LockAndResolve() {
  // Nothing in `out_` is read or removed before the lock is held.
  if (setup_.out_lock == nullptr) {
    absl::StatusOr<std::unique_ptr<OutDirLock>> lock =
        OutDirLock::Acquire(out_);
    if (!lock.ok()) return lock.status();
    setup_.out_lock = std::move(*lock);
  }
  // The DNS cache first: the politeness key by IP resolves the seeds' hosts.
  const FetchOptions fetch_options = MakeFetchOptions(config_, {});
  absl::StatusOr<std::unique_ptr<DnsCache>> dns =
      DnsCache::Create(fetch_options.dns);
  if (!dns.ok()) return dns.status();
  dns_ = std::move(*dns);
  keys_ =
      std::make_unique<PolitenessKeys>(MakePolitenessKeys(config_, dns_.get()));
  return absl::OkStatus();
}

absl::Status Crawler::Impl::ResumeFrontier(const fs::path& scratch) {
  std::error_code ec;
  // The whole snapshot is verified before anything in `out_` changes.
  absl::StatusOr<SnapshotReader> snapshot =
      SnapshotReader::Open(out_ / "checkpoint");
  if (!snapshot.ok()) return snapshot.status();
  absl::StatusOr<CrawlState> state = ReadCrawlState(*snapshot);
  if (!state.ok()) return state.status();
  fs::remove_all(scratch, ec);  // A killed run's scratch store.
  fs::create_directories(scratch, ec);
  absl::StatusOr<std::unique_ptr<CrawlFrontier>> frontier =
      RestoreFrontier(config_, scratch, *snapshot);
  if (!frontier.ok()) return frontier.status();
  state_ = *std::move(state);
  frontier_ = *std::move(frontier);
  if (absl::Status s = revisits_->Open(*frontier_); !s.ok()) return s;
  revisits_->QueueSaved(absl::Now());
  if (!fatal_.ok()) return fatal_;
  pages_started_ = counters_.pages;
  log_->info("resuming {}: {} pages done, {} URLs queued", out_.string(),
             counters_.pages, frontier_->stats().queued);
  if (!setup_.seeds.empty()) {
    const size_t added = AddSeeds();
    log_->info("{} new seeds: {} queued, {} seen before", setup_.seeds.size(),
               added, setup_.seeds.size() - added);
  }
  return absl::OkStatus();
}

absl::Status Crawler::Impl::StartFrontier(const fs::path& scratch) {
  std::error_code ec;
  const fs::path pages = out_ / "pages.jsonl";
  if (fs::exists(out_ / "checkpoint" / "CURRENT", ec) ||
      (fs::exists(pages, ec) && fs::file_size(pages, ec) > 0)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", out_.string(),
                     "' already holds a crawl: continue it with --resume ",
                     out_.string(), ", or choose another --out"));
  }
  if (setup_.seeds.empty()) return absl::InvalidArgumentError("no seed URLs");
  if (!setup_.saved_config.empty()) {
    if (absl::Status s =
            WriteFileAtomically(out_ / "config.toml", setup_.saved_config);
        !s.ok())
      return s;
  }
  fs::remove_all(scratch, ec);  // A killed run's scratch store.
  fs::create_directories(scratch, ec);
  absl::StatusOr<std::unique_ptr<CrawlFrontier>> frontier =
      CreateFrontier(config_, scratch);
  if (!frontier.ok()) return frontier.status();
  frontier_ = *std::move(frontier);
  if (absl::Status s = revisits_->Open(*frontier_); !s.ok()) return s;
  (void)AddSeeds();
  return absl::OkStatus();
}

absl::Status Crawler::Impl::OpenOutputs() {
  // WARC files: recovered to the checkpoint (resume) before anything is
  // written, then the writer.
  absl::StatusOr<std::unique_ptr<CrawlArchive>> archive = CrawlArchive::Open(
      config_, out_, setup_.resume, state_.warc_files, counters_);
  if (!archive.ok()) return archive.status();
  archive_ = *std::move(archive);

  absl::StatusOr<Scope> scope =
      Scope::Create(MakeScopeOptions(config_), state_.seed_hosts);
  if (!scope.ok()) return scope.status();
  scope_ = std::make_unique<Scope>(*std::move(scope));

  absl::StatusOr<std::unique_ptr<RecordSink>> sink =
      RecordSink::Open(out_, setup_.resume, state_, config_.output.skipped,
                       counters_, frontier_.get());
  if (!sink.ok()) return sink.status();
  sink_ = *std::move(sink);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::StartFetcher() {
  FetchOptions fetch_options = MakeFetchOptions(config_, state_.seed_hosts);
  log_->info("TLS: {}, CA bundle {}",
             fetch_options.verify_tls
                 ? "certificates verified"
                 : "certificates NOT verified (--insecure)",
             fetch_options.ca_bundle.empty() ? "libcurl's default"
                                             : fetch_options.ca_bundle);
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(std::move(fetch_options), dns_);
  if (!fetcher.ok()) return fetcher.status();
  fetcher_ = std::move(*fetcher);
  log_->info(
      "connections: up to {} idle kept; DNS answers kept their TTL within "
      "[{}, {}] s, failures {} s",
      fetcher_->max_idle_connections(), config_.fetch.dns_min_ttl,
      config_.fetch.dns_max_ttl, config_.fetch.dns_negative_ttl);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::StartParsing() {
  traps_ = std::make_unique<TrapGuard>(TrapOptions{
      .max_query_variants =
          static_cast<size_t>(config_.crawl.max_query_variants_per_path),
      .max_date_variants =
          static_cast<size_t>(config_.crawl.max_date_variants_per_path)});
  domains_ = std::make_unique<DomainBudget>(DomainBudgetOptions{
      .base = static_cast<uint64_t>(config_.crawl.domain_budget),
      .per_referrer =
          static_cast<uint64_t>(config_.crawl.domain_budget_per_referrer),
      .table_slots = static_cast<size_t>(config_.crawl.domain_budget_domains)});
  if (absl::Status s = domains_->Load(state_.domain_budget); !s.ok()) return s;
  policy_ = LinkPolicy{
      .scope = scope_.get(),
      .robots = &robots_->cache(),
      .frontier = frontier_.get(),
      .keys = keys_.get(),
      .url_options = MakeUrlOptions(config_),
      .max_depth = static_cast<uint32_t>(config_.crawl.max_depth),
      .max_outlinks = static_cast<size_t>(config_.crawl.max_outlinks_per_page),
      .obey_nofollow = config_.crawl.obey_nofollow,
      .traps = traps_.get(),
      .domains = domains_.get(),
      .session_id_params = config_.url.session_id_params,
      .robots_name = absl::AsciiStrToLower(robots_->token()),
      .html_parser = config_.parse.html_parser,
      .record_skipped = sink_->records_skipped(),
      .page_requisites = config_.crawl.page_requisites};
  sitemaps_ = std::make_unique<SitemapQueue>(
      SitemapQueue::Options{
          .source = config_.crawl.sitemaps,
          .max_per_host = config_.crawl.max_sitemaps_per_host},
      &policy_, log_);
  int threads = static_cast<int>(config_.crawl.parser_threads);
  if (threads <= 0)
    threads =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parser_threads_ = static_cast<size_t>(threads);
  Fetcher* fetcher_ptr = fetcher_.get();
  pool_ = std::make_unique<WorkerPool<ParsedPage>>(
      threads, [fetcher_ptr] { fetcher_ptr->Wakeup(); }, kParseBytesAtOnce);
  absl::StatusOr<std::unique_ptr<CrawlReporter>> reporter =
      CrawlReporter::Create(CrawlReporter::Sources{.config = &config_,
                                                   .counters = &counters_,
                                                   .frontier = frontier_.get(),
                                                   .fetcher = fetcher_.get(),
                                                   .sink = sink_.get(),
                                                   .robots = &robots_->cache(),
                                                   .dns = dns_.get(),
                                                   .domains = domains_.get(),
                                                   .revisits = revisits_.get()},
                            log_, setup_.live_progress);
  if (!reporter.ok()) return reporter.status();
  reporter_ = *std::move(reporter);
  return absl::OkStatus();
}

size_t Crawler::Impl::AddSeeds() {
  const UrlOptions url_options = MakeUrlOptions(config_);
  std::vector<UrlParts> seeds;
  for (const std::string& seed : setup_.seeds) {
    absl::StatusOr<UrlParts> parts = SplitUrl(seed, url_options);
    if (!parts.ok()) continue;
    keys_->Prefetch(*parts);  // The seeds' lookups at once, not in turn.
    seeds.push_back(*std::move(parts));
  }
  size_t queued = 0;
  for (const UrlParts& parts : seeds) {
    const std::string host = parts.Authority();
    if (std::find(state_.seed_hosts.begin(), state_.seed_hosts.end(), host) ==
        state_.seed_hosts.end()) {
      state_.seed_hosts.push_back(host);
    }
    if (frontier_->Add(parts.normalized_url, keys_->KeyOf(parts), 0,
                       Origin{}.Encode())) {
      ++queued;
    }
  }
  return queued;
}

void Crawler::Impl::Dispatch(absl::Time now, absl::Duration& wait,
                             bool& frontier_empty) {
  frontier_empty = false;
  const size_t concurrency = static_cast<size_t>(config_.fetch.concurrency);
  // Backpressure: a fetched page holds its body until a parser takes it, and
  // fetching outruns parsing on a fast site, so no new transfer starts while
  // the parsers have a few pages each waiting. A finished parse wakes the loop.
  const size_t parse_backlog = kParseBacklogPerThread * parser_threads_;
  // politeness.max_requests_per_second: one request per interval, crawl-wide.
  const double rate = config_.politeness.max_requests_per_second;
  while (!Stopping() && PageBudgetLeft() &&
         fetcher_->in_flight() < concurrency &&
         pool_->pending() < parse_backlog) {
    if (rate > 0 && now < next_request_at_) {
      wait = std::min(wait, next_request_at_ - now);
      break;
    }
    NextUrl next = frontier_->Next(now);
    if (next.state == NextUrl::kReady) {
      if (next.url.unreachable()) {
        RecordUnreachable(next.url, now);
      } else {
        const uint64_t requests_before = next_request_id_;
        HandleReady(std::move(next.url), now);
        if (rate > 0 && next_request_id_ != requests_before) {
          next_request_at_ =
              std::max(next_request_at_, now) + absl::Seconds(1 / rate);
        }
      }
      continue;
    }
    if (next.state == NextUrl::kWait) wait = std::min(wait, next.wait);
    frontier_empty = next.state == NextUrl::kEmpty;
    break;
  }
}

absl::StatusOr<CrawlSummary> Crawler::Impl::Run() {
  const absl::Time started = absl::Now();
  reporter_->Start(started);
  const absl::Duration checkpoint_every =
      absl::Seconds(config_.crawl.checkpoint_seconds);
  absl::Time next_checkpoint = started + checkpoint_every;
  const absl::Time deadline =
      config_.crawl.max_run_seconds > 0
          ? started + absl::Seconds(config_.crawl.max_run_seconds)
          : absl::InfiniteFuture();
  absl::Time grace_deadline = absl::InfiniteFuture();

  while (fatal_.ok()) {
    absl::Time now = absl::Now();
    CheckStop(now, deadline, grace_deadline);
    absl::Duration wait = absl::Milliseconds(500);
    bool frontier_empty = false;
    // Links of pages parsed after Dispatch's look at the Frontier are only
    // seen next time round: "empty" is final only if no page was parsing.
    const bool pool_idle_before = pool_->pending() == 0;
    Dispatch(now, wait, frontier_empty);
    CollectParsed(now);
    if (absl::Status s = frontier_->status(); !s.ok() && fatal_.ok()) {
      // A disk error of the frontier's store: its queues may be incomplete on
      // disk, so stop here; the last checkpoint is intact.
      fatal_ = s;
      break;
    }
    if (now >= next_checkpoint && !Stopping()) {
      if (absl::Status s = WriteCheckpointNow(); !s.ok()) return s;
      next_checkpoint = absl::Now() + checkpoint_every;
    }
    if (reporter_->CheckCapacity(Stopping())) Stop(StopReason::kCapacity);
    if (Stopping() && grace_deadline == absl::InfiniteFuture()) {
      grace_deadline = now + setup_.stop_grace;  // A stop CheckCapacity made.
    }
    reporter_->Tick(now, stop_reason_);

    const bool fetching = fetcher_->in_flight() > 0 || pool_->pending() > 0;
    if (Stopping()) {
      if (!fetching || now >= grace_deadline) break;
    } else if (!fetching) {
      if (frontier_empty && pool_idle_before) break;
      if (!pool_idle_before) wait = absl::ZeroDuration();
      if (!PageBudgetLeft()) {
        Stop(StopReason::kMaxPages);
        break;
      }
    }
    wait = std::min(wait, next_checkpoint - now);
    if (deadline != absl::InfiniteFuture())
      wait = std::min(wait, deadline - now);
    wait = std::max(wait, absl::ZeroDuration());
    for (FetchResponse& response : fetcher_->Poll(wait)) {
      OnResponse(std::move(response), absl::Now());
    }
  }
  if (!fatal_.ok()) return fatal_;
  return EndRun();
}

void Crawler::Impl::CheckStop(absl::Time now, absl::Time deadline,
                              absl::Time& grace_deadline) {
  if (Stopping()) return;
  if (stop_requested_.load()) {
    Stop(StopReason::kInterrupted);
  } else if (now >= deadline) {
    Stop(StopReason::kMaxRunTime);
  }
  if (Stopping()) {
    log_->info("stopping ({}): waiting up to {} for {} transfers in flight",
               StopReasonName(*stop_reason_),
               absl::FormatDuration(setup_.stop_grace), fetcher_->in_flight());
    grace_deadline = now + setup_.stop_grace;
  }
}

absl::StatusOr<CrawlSummary> Crawler::Impl::EndRun() {
  // Pages still parsing are recorded; transfers still in flight are abandoned
  // and stay queued in the checkpoint.
  const absl::Time end = absl::Now();
  // The last WARC file is finished (its .cdxj written) before the final
  // checkpoint, which records it complete.
  if (absl::Status s = archive_->Close(); !s.ok()) return s;
  if (absl::Status s = WriteCheckpointNow(); !s.ok()) return s;
  CrawlSummary summary = reporter_->Finish(end, stop_reason_);
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

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kFinished:
      return "finished";
    case StopReason::kMaxPages:
      return "max_pages";
    case StopReason::kMaxRunTime:
      return "max_run_time";
    case StopReason::kInterrupted:
      return "interrupted";
    case StopReason::kCapacity:
      return "capacity";
  }
  return "unknown";
}

Crawler::Crawler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Crawler::~Crawler() = default;

absl::StatusOr<CrawlSummary> Crawler::Run() { return impl_->Run(); }

void Crawler::RequestStop() { impl_->RequestStop(); }

}  // namespace sieve
