// crawler/loop/crawler.cc: the crawl loop's main loop (Run, Dispatch, the
// end of a run), and the Crawler methods that forward to Crawler::Impl. Its
// setup is in crawler_init.cc, the other steps in crawler_robots.cc,
// crawler_pages.cc and crawler_records.cc (see crawler_impl.h).
#include "crawler/loop/crawler.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "crawler/loop/crawler_impl.h"
#include "crawler/output/summary.h"

namespace sieve {
namespace {

// Fetched HTML pages waiting for (or being parsed by) each parser thread before
// the loop stops starting transfers: enough that no parser ever waits for the
// network, few enough that bodies waiting in memory stay a handful of pages.
constexpr size_t kParseBacklogPerThread = 4;

}  // namespace

void Crawler::Impl::Dispatch(absl::Time now, absl::Duration& wait,
                             bool& frontier_empty) {
  frontier_empty = false;
  const size_t concurrency = static_cast<size_t>(config().fetch.concurrency);
  // Backpressure: a fetched page holds its body until a parser takes it, and
  // fetching outruns parsing on a fast site, so no new transfer starts while
  // the parsers have a few pages each waiting. A finished parse wakes the loop.
  const size_t parse_backlog = kParseBacklogPerThread * pool_->threads();
  while (!stop_.stopping() && requests_.PageBudgetLeft() &&
         fetcher_->in_flight() < concurrency &&
         pool_->pending() < parse_backlog) {
    // politeness.max_requests_per_second: one request per interval.
    if (std::optional<absl::Duration> hold = requests_.RateWait(now)) {
      wait = std::min(wait, *hold);
      break;
    }
    NextUrl next = frontier_->Next(now);
    if (next.state == NextUrl::kReady) {
      if (next.url.unreachable()) {
        RecordUnreachable(next.url, now);
      } else {
        HandleReady(std::move(next.url), now);
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
  checkpoints_.Start(started);
  stop_.Start(started);
  while (stop_.fatal().ok()) {
    absl::Time now = absl::Now();
    if (stop_.Check(now)) {
      log()->info("stopping ({}): waiting up to {} for {} transfers in flight",
                  StopReasonName(*stop_.reason()),
                  absl::FormatDuration(stop_.grace()), fetcher_->in_flight());
    }
    absl::Duration wait = absl::Milliseconds(500);
    bool frontier_empty = false;
    // Links of pages parsed or rendered after Dispatch's look at the Frontier
    // are only seen next time round: "empty" is final only if no page was
    // parsing or rendering (a render thread queues its links itself).
    const bool pool_idle_before =
        pool_->pending() == 0 &&
        (render_ == nullptr || render_->pending() == 0);
    // A render's requests go first: they wait in a render, and take their
    // host's turn ahead of its queued pages.
    ServeSubresources(now, wait);
    Dispatch(now, wait, frontier_empty);
    CollectParsed(now);
    CollectRendered();
    if (absl::Status s = frontier_->status(); !s.ok() && stop_.fatal().ok()) {
      // A disk error of the frontier's store: its queues may be incomplete on
      // disk, so stop here; the last checkpoint is intact.
      stop_.Fail(s);
      break;
    }
    if (checkpoints_.Due(now) && !stop_.stopping()) {
      if (absl::Status s = WriteCheckpointNow(); !s.ok()) return s;
    }
    if (reporter_->CheckCapacity(stop_.stopping())) {
      stop_.Stop(StopReason::kCapacity, now);
    }
    reporter_->Tick(now, stop_.reason());
    if (RunEnds(now, frontier_empty, pool_idle_before, wait)) break;
    wait = std::min(wait, checkpoints_.next() - now);
    if (stop_.deadline() != absl::InfiniteFuture()) {
      wait = std::min(wait, stop_.deadline() - now);
    }
    wait = std::max(wait, absl::ZeroDuration());
    for (FetchResponse& response : fetcher_->Poll(wait)) {
      OnResponse(std::move(response), absl::Now());
    }
  }
  if (!stop_.fatal().ok()) return stop_.fatal();
  return EndRun();
}

bool Crawler::Impl::RunEnds(absl::Time now, bool frontier_empty,
                            bool pool_idle_before, absl::Duration& wait) {
  const bool fetching = fetcher_->in_flight() > 0 || pool_->pending() > 0 ||
                        (render_ != nullptr && render_->pending() > 0);
  if (stop_.stopping()) return !fetching || stop_.GraceOver(now);
  if (fetching) return false;
  if (frontier_empty && pool_idle_before) return true;
  if (!pool_idle_before) wait = absl::ZeroDuration();
  if (!requests_.PageBudgetLeft()) {
    stop_.Stop(StopReason::kMaxPages, now);
    return true;
  }
  return false;
}

absl::Status Crawler::Impl::WriteCheckpointNow() {
  // Between pages: every parsed (and rendered) page is recorded and done, so
  // the Frontier and pages.jsonl agree.
  pool_->WaitIdle();
  CollectParsed(absl::Now());
  SettleRenders();
  if (absl::Status s = sink_->Sync(state_); !s.ok()) return s;
  // The same instant for the WARC files: every response archived so far
  // belongs to a URL recorded above pages_offset (or to robots.txt).
  absl::StatusOr<std::vector<WarcFileState>> warc_files = archive_->Sync();
  if (!warc_files.ok()) return warc_files.status();
  state_.warc_files = *std::move(warc_files);
  ++state_.sequence;
  state_.domain_budget = rules_->domains().Save();
  counters().run_seconds = reporter_->RunSeconds(absl::Now());
  // The revisit history is in the frontier's store, which it checkpoints.
  return checkpoints_.Write(state_, *frontier_);
}

absl::StatusOr<CrawlSummary> Crawler::Impl::EndRun() {
  // Pages still parsing are recorded; transfers still in flight are abandoned
  // and stay queued in the checkpoint.
  const absl::Time end = absl::Now();
  // Renders still running end now with what they found (their requests are
  // refused) and are recorded by the last checkpoint.
  if (render_ != nullptr) render_->Close();
  // The last WARC file is finished (its .cdxj written) before the final
  // checkpoint, which records it complete.
  if (absl::Status s = archive_->Close(); !s.ok()) return s;
  if (absl::Status s = WriteCheckpointNow(); !s.ok()) return s;
  CrawlSummary summary = reporter_->Finish(end, stop_.reason());
  if (absl::Status s = WriteSummaryJson(out() / "summary.json", summary);
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
