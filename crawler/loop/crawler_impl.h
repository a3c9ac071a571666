// crawler/loop/crawler_impl.h: Crawler::Impl, the crawl loop's state and
// steps. Private to crawler/loop/: crawler.h is the public API.
//
// The request table
// -----------------
// `requests_` (RequestTable, request_table.h) maps the id of every
// FetchRequest the Fetcher has in flight to its Request: the one structure
// every fetch passes through. An entry is added when the request is submitted
// and removed when its one FetchResponse comes back (the Fetcher answers each
// request exactly once), so requests_.size() == fetcher_->in_flight() between
// loop turns.
//   kPage    a frontier URL (a page, a sitemap, a requisite) in one of its
//            host's slots; `url` is what Next handed out.
//   kRobots  the robots.txt of `origin`, fetched in the slot of the first
//            URL of that origin Next handed out (or in its host's lane for a
//            render's request); the URLs handed out while it is in flight are
//            held by the robots gate (robots_gate.h, one entry per origin, so
//            at most fetch.concurrency entries).
//   kSubresource  a request a render made (render_queue.h), in its host's
//            lane (CrawlFrontier::StartHostRequest): answered to the render,
//            never a page record.
//
// A request's life:
//   Dispatch: CrawlFrontier::Next -> HandleReady
//     host unreachable      -> RecordUnreachable: record, Done(NotFetched)
//     robots.txt forbids it -> link fate kDisallowed, Done(NotFetched)
//     robots.txt allows it  -> SubmitPage: requests_.Add(kPage)
//     robots.txt unknown    -> held by the robots gate; the first waiter's
//                              slot fetches it: requests_.Add(kRobots)
//   Fetcher::Poll -> OnResponse: requests_.Take(id), exchange archived
//     kRobots -> OnRobots: rules cached, sitemaps queued; the waiters go
//                back Done(Deferred) (robots.txt unavailable: each Finish'd
//                with the cause, retried or recorded)
//     kPage   -> OnPage: Classify, one handler per AnswerKind; then either
//                Finish: Done(outcome); a retry writes nothing (the URL is
//                  queued again), anything else writes its record
//                or SubmitParse: Done(Success), body to the parser pool;
//                  CollectParsed counts its links and writes its record in
//                  the order the answers came (WriteRecord)
//
// The members are defined in these files, one job each:
//   crawler_init.cc        setup (Init): the owners made in order, the
//                          frontier resumed or started with the seeds
//   crawler.cc             the main loop (Run, Dispatch, RunEnds, EndRun)
//                          and the Crawler methods that forward to Impl
//   crawler_robots.cc      a ready URL meets robots.txt: checked, or fetched
//                          first while the URL waits (HandleReady, OnRobots)
//   crawler_pages.cc       page transfers and their answers: submit, report
//                          to the frontier, redirect, parse, record
//                          (OnResponse, OnPage, ...)
//   crawler_records.cc     what it writes: page records in answer order,
//                          parsed pages and sitemaps, skipped URLs
//   crawler_render.cc      render.mode: which parsed pages render, their
//                          subresources fetched for them, their records
// and these owners, each with its own state (its header says what it owns):
//   request_table.h        the requests in flight, max_pages, the rate cap
//   robots_gate.h          robots.txt rules and the URLs held for them
//   link_rules.h           DNS cache, politeness keys, scope, traps, domain
//                          budget and the LinkPolicy over them
//   crawl_archive.h        the WARC files (CrawlArchive)
//   record_sink.h          pages.jsonl, skipped.jsonl and their counts
//   revisit_scheduler.h    revisits: histories, validators, next visits
//   sitemap_queue.h        the sitemaps queued, capped per host
//   stop_control.h         why and when the run ends, the fatal error
//   checkpointer.h         OUT/checkpoint and when the next is due
//   crawl_reporter.h       progress, metrics, capacity warning, summary
//   render_queue.h         renders off the loop thread, their requests'
//                          inbox (crawler/render/)
//
// Surprises first:
//   - Not thread-safe: one thread (the caller of Run) owns it, except
//     RequestStop. Parser threads only touch the link rules' policy
//     (LinkRules::policy) and what it points to.
//   - No per-host policy here: the frontier owns delays, back-off, retries and
//     page caps (frontier/crawl_frontier.h). The one per-host map is the
//     robots gate's URLs held per origin, bounded by fetch.concurrency.
#ifndef SIEVE_CRAWLER_LOOP_CRAWLER_IMPL_H_
#define SIEVE_CRAWLER_LOOP_CRAWLER_IMPL_H_

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/config/crawl_options.h"
#include "crawler/loop/checkpointer.h"
#include "crawler/loop/crawl_archive.h"
#include "crawler/loop/crawl_reporter.h"
#include "crawler/loop/crawl_state.h"
#include "crawler/loop/crawler.h"
#include "crawler/loop/link_rules.h"
#include "crawler/loop/record_sink.h"
#include "crawler/loop/request_table.h"
#include "crawler/loop/revisit_scheduler.h"
#include "crawler/loop/robots_gate.h"
#include "crawler/loop/sitemap_queue.h"
#include "crawler/loop/stop_control.h"
#include "crawler/loop/worker_pool.h"
#include "crawler/output/metrics_server.h"
#include "crawler/output/metrics_text.h"
#include "crawler/output/page_record.h"
#include "crawler/output/progress.h"
#include "crawler/output/skipped_log.h"
#include "crawler/output/warc_writer.h"
#include "crawler/policy/link_policy.h"
#include "crawler/policy/politeness_key.h"
#include "crawler/policy/revisit_policy.h"
#include "crawler/policy/robots_cache.h"
#include "crawler/policy/scope.h"
#include "crawler/policy/sitemap_links.h"
#include "crawler/policy/url_history.h"
#include "crawler/render/render_queue.h"
#include "fetch/dns_cache.h"
#include "fetch/fetch_failure.h"
#include "fetch/fetcher.h"
#include "frontier/crawl_frontier.h"
#include "frontier/snapshot.h"
#include "frontier/url_record_store.h"
#include "spdlog/logger.h"

namespace sieve {

// What the frontier is told of a failed fetch (retried, connection-level),
// from fetch/fetch_failure.h's table.
FetchOutcome OutcomeOf(const Failure& failure);
// What the frontier is told of `response`, page or a request of the host
// lane: a failed fetch as OutcomeOf says, a 429/503 throttled with its
// Retry-After, any other answer (a 404 too) a success taking its time.
FetchOutcome OutcomeOfAnswer(const FetchResponse& response);
// A record of `url` with what the frontier knows of it (URL, depth, referrer).
PageRecord RecordOf(const FrontierUrl& url);

class Crawler::Impl {
 public:
  explicit Impl(CrawlSetup setup)
      : setup_(std::move(setup)),
        requests_(RequestTable::Options{
            .max_pages = config().crawl.max_pages,
            .max_requests_per_second =
                config().politeness.max_requests_per_second}),
        stop_(StopControl::Options{
            .max_run_time = config().crawl.max_run_seconds > 0
                                ? absl::Seconds(config().crawl.max_run_seconds)
                                : absl::InfiniteDuration(),
            .grace = setup_.stop_grace}),
        checkpoints_(out() / "checkpoint",
                     absl::Seconds(config().crawl.checkpoint_seconds)) {}

  ~Impl() {
    render_.reset();  // Render and parser threads hold pointers into this.
    pool_.reset();
  }

  absl::Status Init();
  absl::StatusOr<CrawlSummary> Run();
  void RequestStop() {
    stop_.Request();
    if (fetcher_ != nullptr) fetcher_->Wakeup();
  }

 private:
  // A fetched page (or sitemap) coming back from a parser thread.
  struct ParsedPage {
    PageRecord record;
    FrontierUrl url;
    absl::Duration response_time;  // Default: 0.
    PageLinks links;               // Its links' fates. Default: none.
    // Set for a sitemap file. Default: nullopt.
    std::optional<SitemapLinks> sitemap;
    // A record of a page not parsed, sent through the pool only to keep its
    // place behind the pages parsing (WriteRecord). Default: false.
    bool record_only = false;
    // An HTML page to render (render.mode): the page as fetched. Its record
    // is written when the render ends (CollectRendered). Default: nullopt.
    std::optional<FetchResponse> to_render;
  };

  const CrawlConfig& config() const { return setup_.config; }
  std::filesystem::path out() const { return setup_.config.crawl.out; }
  const std::shared_ptr<spdlog::logger>& log() const { return setup_.logger; }
  CrawlCounters& counters() { return state_.counters; }

  // crawler_init.cc
  // Init's steps, in order: the robots.txt token and revisit options; the
  // output directory's lock, the DNS cache and the politeness keys; the
  // frontier restored from the checkpoint (with the crawl's state and the
  // revisit history) or made new with the seeds; the archive, scope and
  // record sink; the Fetcher; the link policy, sitemap queue, parser pool
  // and the reporter (progress, metrics).
  absl::Status InitOptions();
  absl::Status LockAndResolve();
  absl::Status ResumeFrontier(const std::filesystem::path& scratch);
  absl::Status StartFrontier(const std::filesystem::path& scratch);
  absl::Status OpenOutputs();
  absl::Status StartFetcher();
  absl::Status StartParsing();
  // Adds setup_.seeds to the frontier at depth 0 (their hosts join
  // state_.seed_hosts); returns how many it queued (the rest were seen).
  size_t AddSeeds();

  // crawler.cc
  void Dispatch(absl::Time now, absl::Duration& wait, bool& frontier_empty);
  // Whether the loop ends at `now` (after its turn's work): stopped and no
  // transfer left (or the grace period over), or nothing left to fetch, or
  // max_pages reached (`pool_idle_before`: no page was parsing or rendering
  // when the turn began, so an empty frontier is final); sets `wait` to 0
  // while pages parse or render.
  bool RunEnds(absl::Time now, bool frontier_empty, bool pool_idle_before,
               absl::Duration& wait);
  // After the loop: the archive closed, the last checkpoint, the summary.
  absl::StatusOr<CrawlSummary> EndRun();
  // Between pages (the pool idle, every parsed page recorded), the record
  // sink's and the archive's files synced, their lengths saved with the
  // counters and the frontier in one snapshot.
  absl::Status WriteCheckpointNow();

  // crawler_robots.cc
  void HandleReady(FrontierUrl url, absl::Time now);
  // Fetches robots.txt of `parts`' origin (the gate has it in flight) as a
  // request to `host` (its politeness key): in a URL's slot, or `in_lane`.
  void FetchRobots(const UrlParts& parts, std::string host, bool in_lane,
                   absl::Time now);
  void OnRobots(const Request& request, const FetchResponse& response,
                absl::Time now);

  // crawler_pages.cc
  void SubmitPage(FrontierUrl url, absl::Time now);
  void OnResponse(FetchResponse response, absl::Time now);
  // A page's answer is classified (Classify), then handled by its kind's
  // handler; the kinds that parse share one submission (SubmitParse).
  void OnPage(Request request, FetchResponse response, absl::Time now,
              const std::optional<WarcLocation>& archived);
  enum class AnswerKind {
    kFetchError,   // No HTTP answer (dns, connect, timeout, blocked, ...).
    kThrottled,    // 429/503: the frontier retries it.
    kNotModified,  // 304 to a revisit's conditional request.
    kRedirect,     // 3xx.
    kHttpError,    // Other 4xx/5xx.
    kSitemap,      // A sitemap file: parsed for its entries.
    kStylesheet,   // A CSS page requisite: parsed for url()s, @imports.
    kHtml,         // An HTML page: parsed for links.
    kOther,        // Anything else answered: recorded as it is.
  };
  enum class ParseKind { kHtml, kStylesheet, kSitemap };
  // One page answer on its way through OnPage's handlers.
  struct Answer {
    FrontierUrl url;
    Origin origin;
    PageRecord record;
    FetchResponse response;
    std::optional<Failure> failure;
    std::optional<WarcLocation> archived;
    absl::Time start;  // When its request was submitted.
    absl::Time now;
  };
  AnswerKind Classify(const Answer& answer);
  void OnFetchError(Answer& answer);
  // Sets the record's redirect target and queues it through the link policy.
  void OnRedirect(Answer& answer);
  // A 2xx answer counted as ok and noted as a visit (revisits).
  void CountAnswered(Answer& answer);
  void NoteAnswerVisit(Answer& answer);
  // Finish for a page answer.
  void FinishAnswer(Answer& answer, const FetchOutcome& outcome);
  // Reports the answer done and hands its body to the parser pool.
  void SubmitParse(ParseKind kind, Answer& answer);
  // Tells the frontier how the fetch of `url` ended and returns what became of
  // the URL; kRetryLater also on a frontier error (logged).
  UrlFate ReportDone(const FrontierUrl& url, const FetchOutcome& outcome,
                     absl::Time now);
  // Reports `outcome` and writes the record unless the frontier retries the
  // URL; a URL given up is recorded with "given up" in its error_detail.
  // `page_started`: a page request was made for it (counted against
  // max_pages by the request table, which a retry gives back).
  void Finish(PageRecord& record, const FrontierUrl& url,
              const FetchOutcome& outcome, absl::Time now, bool page_started);
  // A seed (or its robots.txt) redirected to `target`: its host joins the
  // scope and the private-address guard as a seed's.
  void AddRedirectedSeed(std::string_view from, std::string_view target);
  // Records a URL the frontier handed out unfetched, its host unreachable.
  void RecordUnreachable(const FrontierUrl& url, absl::Time now);
  // Done without a fetch (robots.txt forbids it, the URL does not parse).
  void SkipUrl(const FrontierUrl& url, absl::Time now);

  // crawler_render.cc
  // render.mode: the render queue made (off, with a message, where the mode
  // cannot be kept; an error for `always`).
  absl::Status StartRendering();
  // Whether the parse task renders a page (the mode, and for auto the page's
  // signs); thread-safe.
  bool ShouldRender(const FetchResponse& response,
                    const PageLinks& links) const;
  // On the loop, before a page the parse picked is rendered: `always`, or the
  // host's renders still add links (kRendersWithoutLinks, the frontier's
  // count).
  bool RenderPays(std::string_view host) const;
  // Each turn, before Dispatch: the renders' requests fetched (or held, or
  // refused), robots.txt of their origins fetched where not known, `wait`
  // shortened to the next held host's turn.
  void ServeSubresources(absl::Time now, absl::Duration& wait);
  // Whether a request to `host` (its politeness key) starts at `now`: zero
  // when it does (the host's lane is taken until EndHostRequest), how long to
  // hold it otherwise (the rate cap, fetch.concurrency, the host's turn); the
  // lane's error for a host that takes none (unreachable).
  absl::StatusOr<absl::Duration> StartInHostLane(const std::string& host,
                                                 absl::Time now);
  // A subresource's answer goes back to its render.
  void OnSubresource(const Request& request, const FetchResponse& response,
                     absl::Time now);
  // A parsed page to render goes to the render queue.
  void SubmitRender(ParsedPage& page);
  // The renders ended: their pages' records, with the links rendering added.
  void CollectRendered();
  // Counts the requests of a render that the browser refused itself (method,
  // type, budget); the others are counted where the crawl handled them.
  void CountRefusedInBrowser(const std::vector<RenderedRequest>& requests);
  // Before a checkpoint: every render submitted ends and is recorded (the
  // loop's fetches go on meanwhile, no new page starts).
  void SettleRenders();

  // crawler_records.cc
  // Writes the record of a URL the frontier counts as done, once the pages
  // handed to the pool before it are written, so records leave in the order
  // their answers came (a host's fetched_at never goes back).
  void WriteRecord(const PageRecord& record);
  // `count_links`: the record's links_found/links_new go to the counters
  // (not a parsed sitemap's: its entries are sitemap_urls).
  void WriteRecordNow(const PageRecord& record, bool count_links = true);
  // Writes `url` to skipped.jsonl (with output.skipped), found on
  // `found_on` ("" for a seed), once per reason; counts what it writes.
  void RecordSkipped(std::string_view url, std::string_view found_on,
                     SkipReason reason);
  // Adds the fates of links found on `found_on` (a page, sitemap or
  // redirect) to the counters, and RecordSkipped for each one refused.
  void CountLinks(const LinkOutcomes& links, std::string_view found_on);
  // Records the parsed pages, then the URLs the frontier discarded for their
  // host's page cap (host_page_cap); before a checkpoint, so both are on disk.
  void CollectParsed(absl::Time now);
  // Records a parsed sitemap and queues the sitemaps its index lists.
  void RecordSitemap(ParsedPage& page);

  // Writes the exchange of `response` (fetched since `start`) to the
  // archive when WARC is on and a response arrived; nullopt otherwise. An
  // I/O error is fatal.
  std::optional<WarcLocation> Archive(FetchResponse& response,
                                      absl::Time start);
  // With WARC on, the render of `url` as its resource record
  // (crawler/render/render_archive.h). An I/O error is fatal.
  void ArchiveRender(const std::string& url, const RenderResult& result);

  // The setup (config, seeds, logger, the output directory's lock) and what
  // the checkpoint saves (counters, seeds' hosts, file offsets).
  CrawlSetup setup_;
  CrawlState state_;
  // The loop's own: the requests in flight, when and why the run ends, when
  // the crawl saves itself.
  RequestTable requests_;
  StopControl stop_;
  Checkpointer checkpoints_;
  // The owners, made by Init (each header says what it owns); destroyed in
  // the reverse order, each before what it points to.
  std::unique_ptr<RobotsGate> robots_;
  std::unique_ptr<LinkRules> rules_;
  std::unique_ptr<CrawlFrontier> frontier_;
  std::unique_ptr<RevisitScheduler> revisits_;  // Its histories: frontier_.
  std::unique_ptr<CrawlArchive> archive_;
  std::unique_ptr<RecordSink> sink_;
  std::unique_ptr<Fetcher> fetcher_;
  std::unique_ptr<SitemapQueue> sitemaps_;
  std::unique_ptr<WorkerPool<ParsedPage>> pool_;
  std::unique_ptr<CrawlReporter> reporter_;
  // render.mode: the pages rendering (null: rendering off).
  std::unique_ptr<RenderQueue> render_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_CRAWLER_IMPL_H_
