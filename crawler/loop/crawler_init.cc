// crawler/loop/crawler_init.cc: the crawl loop's setup (Crawler::Impl::Init):
// its owners made in order, the frontier resumed from the checkpoint or
// started with the seeds (see crawler_impl.h).
#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/loop/crawler_impl.h"
#include "filter/durable_file.h"
#include "parse/url.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// Bytes of HTML the parser threads work on at once: a larger page waits until
// it can parse alone. gumbo's tree is about 15 times its HTML
// (bench/parse/parse_site.cc: rust-doc's 10 MB source pages build trees of
// 146-164 MiB), so this keeps the trees in memory at once to about 60 MiB,
// or one page's tree; pages of a few hundred KB, nearly all of the web, never
// wait for it.
constexpr size_t kParseBytesAtOnce = size_t{4} << 20;

}  // namespace

absl::Status Crawler::Impl::Init() {
  // First: render.mode = always that cannot be kept stops the crawl before
  // anything is opened.
  if (absl::Status s = StartRendering(); !s.ok()) return s;
  if (absl::Status s = InitOptions(); !s.ok()) return s;
  if (absl::Status s = LockAndResolve(); !s.ok()) return s;
  const fs::path scratch = out() / ".scratch";
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
  absl::StatusOr<std::string> token = RobotsToken(config());
  if (!token.ok()) return token.status();
  robots_ = std::make_unique<RobotsGate>(
      RobotsGate::Options{
          .cache = {.max_entries =
                        static_cast<size_t>(config().robots.cache_entries),
                    .max_bytes = static_cast<size_t>(config().robots.cache_mb)
                                 << 20},
          .token = *token},
      counters(), log());
  revisits_ =
      std::make_unique<RevisitScheduler>(config(), log(), stop_.fatal_slot());
  return absl::OkStatus();
}

absl::Status Crawler::Impl::LockAndResolve() {
  // Nothing in `out()` is read or removed before the lock is held.
  if (setup_.out_lock == nullptr) {
    absl::StatusOr<std::unique_ptr<OutDirLock>> lock =
        OutDirLock::Acquire(out());
    if (!lock.ok()) return lock.status();
    setup_.out_lock = std::move(*lock);
  }
  // The DNS cache and the politeness keys: the key by IP resolves the seeds'
  // hosts.
  absl::StatusOr<std::unique_ptr<LinkRules>> rules =
      LinkRules::Create(config());
  if (!rules.ok()) return rules.status();
  rules_ = *std::move(rules);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::ResumeFrontier(const fs::path& scratch) {
  std::error_code ec;
  // The whole snapshot is verified before anything in `out()` changes.
  absl::StatusOr<SnapshotReader> snapshot =
      SnapshotReader::Open(out() / "checkpoint");
  if (!snapshot.ok()) return snapshot.status();
  absl::StatusOr<CrawlState> state = ReadCrawlState(*snapshot);
  if (!state.ok()) return state.status();
  fs::remove_all(scratch, ec);  // A killed run's scratch store.
  fs::create_directories(scratch, ec);
  absl::StatusOr<std::unique_ptr<CrawlFrontier>> frontier =
      RestoreFrontier(config(), scratch, *snapshot);
  if (!frontier.ok()) return frontier.status();
  state_ = *std::move(state);
  frontier_ = *std::move(frontier);
  if (absl::Status s = revisits_->Open(*frontier_); !s.ok()) return s;
  revisits_->QueueSaved(absl::Now());
  if (!stop_.fatal().ok()) return stop_.fatal();
  requests_.SetPagesStarted(counters().pages);
  log()->info("resuming {}: {} pages done, {} URLs queued", out().string(),
              counters().pages, frontier_->stats().queued);
  if (!setup_.seeds.empty()) {
    const size_t added = AddSeeds();
    log()->info("{} new seeds: {} queued, {} seen before", setup_.seeds.size(),
                added, setup_.seeds.size() - added);
  }
  return absl::OkStatus();
}

absl::Status Crawler::Impl::StartFrontier(const fs::path& scratch) {
  std::error_code ec;
  const fs::path pages = out() / "pages.jsonl";
  if (fs::exists(out() / "checkpoint" / "CURRENT", ec) ||
      (fs::exists(pages, ec) && fs::file_size(pages, ec) > 0)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", out().string(),
                     "' already holds a crawl: continue it with --resume ",
                     out().string(), ", or choose another --out"));
  }
  if (setup_.seeds.empty()) return absl::InvalidArgumentError("no seed URLs");
  if (!setup_.saved_config.empty()) {
    if (absl::Status s =
            WriteFileAtomically(out() / "config.toml", setup_.saved_config);
        !s.ok())
      return s;
  }
  fs::remove_all(scratch, ec);  // A killed run's scratch store.
  fs::create_directories(scratch, ec);
  absl::StatusOr<std::unique_ptr<CrawlFrontier>> frontier =
      CreateFrontier(config(), scratch);
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
      config(), out(), setup_.resume, state_.warc_files, counters());
  if (!archive.ok()) return archive.status();
  archive_ = *std::move(archive);

  if (absl::Status s = rules_->OpenScope(config(), state_.seed_hosts);
      !s.ok()) {
    return s;
  }

  absl::StatusOr<std::unique_ptr<RecordSink>> sink =
      RecordSink::Open(out(), setup_.resume, state_, config().output.skipped,
                       counters(), frontier_.get());
  if (!sink.ok()) return sink.status();
  sink_ = *std::move(sink);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::StartFetcher() {
  FetchOptions fetch_options = MakeFetchOptions(config(), state_.seed_hosts);
  log()->info("TLS: {}, CA bundle {}",
              fetch_options.verify_tls
                  ? "certificates verified"
                  : "certificates NOT verified (--insecure)",
              fetch_options.ca_bundle.empty() ? "libcurl's default"
                                              : fetch_options.ca_bundle);
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(std::move(fetch_options), rules_->dns());
  if (!fetcher.ok()) return fetcher.status();
  fetcher_ = std::move(*fetcher);
  log()->info(
      "connections: up to {} idle kept; DNS answers kept their TTL within "
      "[{}, {}] s, failures {} s",
      fetcher_->max_idle_connections(), config().fetch.dns_min_ttl,
      config().fetch.dns_max_ttl, config().fetch.dns_negative_ttl);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::StartParsing() {
  if (absl::Status s = rules_->Start(
          config(), state_.domain_budget,
          LinkRules::Links{.frontier = frontier_.get(),
                           .robots = &robots_->cache(),
                           .robots_token = robots_->token(),
                           .record_skipped = sink_->records_skipped()});
      !s.ok()) {
    return s;
  }
  sitemaps_ = std::make_unique<SitemapQueue>(
      SitemapQueue::Options{
          .source = config().crawl.sitemaps,
          .max_per_host = config().crawl.max_sitemaps_per_host},
      &rules_->policy(), log());
  int threads = static_cast<int>(config().crawl.parser_threads);
  if (threads <= 0)
    threads =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Fetcher* fetcher_ptr = fetcher_.get();
  pool_ = std::make_unique<WorkerPool<ParsedPage>>(
      threads, [fetcher_ptr] { fetcher_ptr->Wakeup(); }, kParseBytesAtOnce);
  absl::StatusOr<std::unique_ptr<CrawlReporter>> reporter =
      CrawlReporter::Create(
          CrawlReporter::Sources{.config = &config(),
                                 .counters = &counters(),
                                 .frontier = frontier_.get(),
                                 .fetcher = fetcher_.get(),
                                 .sink = sink_.get(),
                                 .robots = &robots_->cache(),
                                 .dns = rules_->dns().get(),
                                 .domains = &rules_->domains(),
                                 .revisits = revisits_.get(),
                                 .render = render_.get()},
          log(), setup_.live_progress);
  if (!reporter.ok()) return reporter.status();
  reporter_ = *std::move(reporter);
  return absl::OkStatus();
}

size_t Crawler::Impl::AddSeeds() {
  std::vector<UrlParts> seeds;
  for (const std::string& seed : setup_.seeds) {
    absl::StatusOr<UrlParts> parts = rules_->Split(seed);
    if (!parts.ok()) continue;
    rules_->keys().Prefetch(
        *parts);  // The seeds' lookups at once, not in turn.
    seeds.push_back(*std::move(parts));
  }
  size_t queued = 0;
  for (const UrlParts& parts : seeds) {
    const std::string host = parts.Authority();
    if (std::find(state_.seed_hosts.begin(), state_.seed_hosts.end(), host) ==
        state_.seed_hosts.end()) {
      state_.seed_hosts.push_back(host);
    }
    if (frontier_->Add(parts.normalized_url, rules_->keys().KeyOf(parts), 0,
                       Origin{}.Encode())) {
      ++queued;
    }
  }
  return queued;
}

}  // namespace sieve
