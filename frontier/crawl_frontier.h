// frontier/crawl_frontier.h: CrawlFrontier, the interface the crawl loop
// drives. It owns every per-host decision of a crawl: which URL may be fetched
// now, the delay between two requests to one host (counted from the end of the
// previous response), robots.txt Crawl-delay, the in-flight cap, 429/503 and
// Retry-After back-off, retries of throttled and failed fetches, and the cap on
// pages per host. The loop only fetches what Next hands out and reports how
// each fetch ended through Done.
//
// Implementations:
//   - sieve::Frontier (frontier/frontier.h): one process, the Sieve in front,
//     per-host queues in RAM and on disk.
//   - sieve::cluster::RedisFrontier (frontier/cluster/redis_frontier.h): many
//     workers sharing one crawl through Redis (docs/cluster.md).
//   - sieve::service::GrpcFrontier (frontier/service/grpc_frontier.h): a
//     client of a URLFrontier gRPC server (docs/urlfrontier.md).
// crawler/config/crawl_options.cc is the one place that picks one.
//
// Surprises first:
//   - Add is thread-safe and may be called from parser threads while one loop
//     calls Next and Done; implementations document anything stronger.
//   - The clock is injected: Next and Done take `now`; nothing sleeps.
//   - The frontier does not parse URLs: the caller passes each URL's host key
//     (for the crawler, the URL's authority) with it.
//   - Done says what became of the URL (UrlFate): a throttled fetch is retried
//     by the frontier itself, so the loop writes a record only for kFinished
//     and kGivenUp.
//
// Example (a crawl loop; `Fetch` is the caller's):
//   sieve::CrawlFrontier& f = *frontier;
//   f.Add("http://a.example/", "a.example", /*depth=*/0);
//   for (;;) {
//     sieve::NextUrl next = f.Next(absl::Now());
//     if (next.state == sieve::NextUrl::kEmpty) break;
//     if (next.state != sieve::NextUrl::kReady) {
//       ... wait up to next.wait (kWait) or for a fetch to end ...
//       continue;
//     }
//     int status = Fetch(next.url.url);
//     sieve::FetchOutcome outcome =
//         status == 429 ? sieve::FetchOutcome::Throttled()
//                       : sieve::FetchOutcome::Success(absl::Milliseconds(80));
//     absl::StatusOr<sieve::UrlFate> fate =
//         f.Done(next.url.url, outcome, absl::Now());
//     if (fate.ok() && *fate != sieve::UrlFate::kRetryLater) {
//       ... record the page ...
//     }
//   }
#ifndef SIEVE_FRONTIER_CRAWL_FRONTIER_H_
#define SIEVE_FRONTIER_CRAWL_FRONTIER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "filter/filter.h"
#include "frontier/frontier_stats.h"
#include "frontier/snapshot.h"

namespace sieve {

class UrlRecordStore;  // frontier/url_record_store.h

// One URL handed out by Next.
struct FrontierUrl {
  std::string url{};
  std::string host{};
  uint32_t depth = 0;
  std::string metadata{};
  // Set when the URL's host is unreachable (PolitenessOptions::
  // unreachable_after connection failures in a row): do not fetch it; record
  // it as failed with these (the last failure's FetchOutcome::error and
  // ::detail) and call Done with FetchOutcome::NotFetched().
  std::string unreachable_error{};
  std::string unreachable_detail{};
  // When the host's next URL is expected to be handed out, from Next: its
  // delay when another URL of it is queued; else how long until its URLs in
  // the Sieve come out, or one pushed now (a link the page may hold), at the
  // rate the Sieve is drained (minutes on a broad crawl); InfiniteDuration
  // for a host dropped. The crawl keeps a connection open only for a host
  // due again soon (FetchRequest::next_request_in). Default: ZeroDuration,
  // what a frontier that does not know (the cluster's, the gRPC client's)
  // leaves.
  absl::Duration host_due_again = absl::ZeroDuration();

  bool unreachable() const { return !unreachable_error.empty(); }
};

// What Next returns.
struct NextUrl {
  enum State {
    // `url` may be fetched now; call Done(url.url, ...) when it is finished.
    kReady,
    // No host is allowed yet; one will be after `wait`.
    kWait,
    // Every queued URL belongs to a host at its in-flight cap: wait for Done.
    kWaitForDone,
    // Nothing queued and nothing in flight: the crawl is finished.
    kEmpty,
  };
  State state = kEmpty;
  FrontierUrl url{};                           // kReady only.
  absl::Duration wait = absl::ZeroDuration();  // kWait only; > 0.
};

// How the fetch of a URL handed out by Next ended, as Done needs it.
struct FetchOutcome {
  enum Kind {
    // The server answered (2xx, 3xx, 404, ...) and it is not throttling:
    // resets the host's back-off; response_time feeds the adaptive delay.
    kSuccess,
    // 429 or 503: the host backs off (at least retry_after when given); the
    // URL is fetched again after the back-off, up to max_throttle_retries
    // times.
    kThrottled,
    // No answer (connection refused or reset, timeout, ...). `transient`:
    // worth another try; the host backs off and the URL is fetched again up
    // to max_error_retries times. Otherwise the URL is finished.
    kError,
    // No request was made for the URL (robots.txt forbids it, its URL is
    // malformed, its host is unreachable): finished, no politeness effect.
    kNotFetched,
    // No request was made for the URL, but one was made to its host for it
    // (its robots.txt) and ended now: the URL goes back to the head of its
    // host's queue, no retry counted, and the host's delay starts now.
    kDeferred,
  };
  Kind kind = kSuccess;
  absl::Duration response_time = absl::ZeroDuration();
  std::optional<absl::Duration> retry_after = std::nullopt;
  bool transient = false;  // kError only.
  // kError only: no connection to the host could be made (DNS, TCP, TLS).
  // Such failures in a row make the host unreachable
  // (PolitenessOptions::unreachable_after); they add no back-off beyond the
  // host's delay. `error` and `detail` (a code and the cause, e.g. "connect"
  // and curl's message) come back on the host's URLs handed out while it is
  // unreachable (FrontierUrl::unreachable_error).
  bool connection_failed = false;
  std::string_view error = {};
  std::string_view detail = {};

  static FetchOutcome Success(absl::Duration response_time) {
    return {.kind = kSuccess, .response_time = response_time};
  }
  static FetchOutcome Throttled(
      std::optional<absl::Duration> retry_after = std::nullopt) {
    return {.kind = kThrottled, .retry_after = retry_after};
  }
  static FetchOutcome Error(bool transient = false) {
    return {.kind = kError, .transient = transient};
  }
  static FetchOutcome ConnectionFailed(bool transient, std::string_view error,
                                       std::string_view detail) {
    return {.kind = kError,
            .transient = transient,
            .connection_failed = true,
            .error = error,
            .detail = detail};
  }
  static FetchOutcome NotFetched() { return {.kind = kNotFetched}; }
  static FetchOutcome Deferred() { return {.kind = kDeferred}; }
};

// What Done did with the URL.
enum class UrlFate {
  // The URL is done: record its outcome.
  kFinished,
  // The frontier will hand the URL out again later (throttled or transient
  // error within the retry limit, or deferred): record nothing yet.
  kRetryLater,
  // Throttled or failed past the retry limit: the frontier dropped it. Record
  // it once as given up.
  kGivenUp,
};

// One URL for CrawlFrontier::AddMany: Add's arguments.
struct FrontierAdd {
  std::string_view url;
  std::string_view host;
  uint32_t depth = 0;
  std::string_view metadata = {};
  // What the seen-test checks instead of the URL (Scrapy's request
  // fingerprint). Empty: the URL. Honoured by Frontier (frontier/frontier.h)
  // and by RedisFrontier's AddMany (frontier/cluster/redis_frontier.h); a
  // CrawlFrontier that does not say so dedups on the URL. Default: empty.
  std::string_view dedup_key = {};
};

class CrawlFrontier {
 public:
  virtual ~CrawlFrontier() = default;

  // Queues `url` of host `host` unless it was (probably) seen or its host is
  // past its page cap; returns whether it was queued. `metadata` (opaque, e.g.
  // the referrer) comes back from Next. Thread-safe.
  virtual bool Add(std::string_view url, std::string_view host, uint32_t depth,
                   std::string_view metadata = {}) = 0;

  // Add for each of `urls`, in order (a URL repeated in `urls` is queued at
  // most once); `queued[i]` is what Add(urls[i]) would have returned. The
  // crawl loop hands over a page's links this way. This default calls Add
  // for each; the local Frontier takes its lock once and probes its filter
  // in one batch (hash all, prefetch, then probe). REQUIRES: queued.size() ==
  // urls.size(). Thread-safe.
  virtual void AddMany(std::span<const FrontierAdd> urls,
                       std::span<bool> queued) {
    for (size_t i = 0; i < urls.size(); ++i) {
      queued[i] =
          Add(urls[i].url, urls[i].host, urls[i].depth, urls[i].metadata);
    }
  }

  // Queues `url` (fetched before) to be handed out again, not before `due`
  // (a due time in the past is now): the Sieve is not asked, since the URL
  // was seen, but everything else applies as to a new URL (host delays,
  // in-flight cap, robots.txt, back-off, dropped hosts). While revisits wait,
  // Next never returns kEmpty: the crawl goes on until the caller stops it.
  // How revisits share requests with new URLs is the implementation's
  // (Frontier: FrontierOptions::revisit_share). REQUIRES: `url` is not queued
  // or in flight. Unimplemented by default (a frontier that cannot revisit).
  [[nodiscard]] virtual absl::Status Revisit(const FrontierAdd& url,
                                             absl::Time due) {
    (void)url;
    (void)due;
    return absl::UnimplementedError("this frontier does not revisit URLs");
  }

  // The frontier's store of one opaque record per URL, on disk and in its
  // checkpoints (frontier/url_record_store.h), for what the caller must
  // remember of each URL it fetched (the crawler's revisit history). The
  // store lives as long as the frontier; every call returns the same one.
  // Unimplemented by default (a frontier without a store of its own:
  // frontier/cluster, frontier/service).
  [[nodiscard]] virtual absl::StatusOr<UrlRecordStore*> UrlRecords() {
    return absl::UnimplementedError("this frontier keeps no URL records");
  }

  // A URL that may be fetched at `now`, or how long until one may be, or why
  // none will be.
  virtual NextUrl Next(absl::Time now) = 0;

  // Reports the end of the fetch of `url` (as returned by Next) at `now`.
  // NotFound if `url` is not in flight.
  [[nodiscard]] virtual absl::StatusOr<UrlFate> Done(
      std::string_view url, const FetchOutcome& outcome, absl::Time now) = 0;

  // The loop has handed the record of `url` to its output writer (`url` was
  // finished by Done: kFinished or kGivenUp, after a request was made; a
  // kNotFetched URL gets no record and no call). A frontier that hands work
  // to others acknowledges it only now (frontier/cluster: the URL's queue
  // entry is deleted), so a crash before the record is written fetches the
  // URL again instead of losing its record. NotFound if `url` awaits no
  // record. Default: nothing to do (the local Frontier).
  virtual absl::Status RecordWritten(std::string_view url) {
    (void)url;
    return absl::OkStatus();
  }

  // The URLs discarded unfetched since the last call because their host
  // reached its page cap (or was dropped): those queued at that moment, those
  // coming out of the dedup queue after it, and those Add refused after it
  // that the frontier had not (probably) seen, each with the metadata Add
  // got. A URL linked again and again may come back each time. The crawl
  // loop records them (skipped.jsonl's host_page_cap) before each
  // checkpoint, so none is lost with a crash. Cost: a swap under a lock.
  // Default: none (a frontier without a page cap).
  //
  //   for (const FrontierUrl& u : frontier.TakeDiscarded())
  //     RecordSkipped(u.url, /*found_on=*/ReferrerIn(u.metadata),
  //                   SkipReason::kHostPageCap);
  virtual std::vector<FrontierUrl> TakeDiscarded() { return {}; }

  // Records the robots.txt Crawl-delay of `host` (capped by the frontier's
  // policy; zero clears it). Takes effect from the host's next request.
  virtual void SetCrawlDelay(std::string_view host,
                             absl::Duration crawl_delay) = 0;

  // The host lane for a request that is no URL of the queue (a page's
  // subresource fetched for a render, crawler/render/render_queue.h): it
  // obeys the host's politeness as a URL handed out by Next would (delay,
  // Crawl-delay, in-flight cap, back-off) and goes ahead of the host's queued
  // URLs, since the caller asks before its next Next. Returns zero when the
  // request may start at `now`: it is then the host's request in flight (its
  // delay runs, its slot is taken) until EndHostRequest; otherwise how long
  // until it may (at least 1 ms; a host whose slots are all taken waits for a
  // Done, and the duration is only a hint). Unavailable for a host found
  // unreachable; Unimplemented by default (a frontier without this lane:
  // frontier/cluster, frontier/service). Not counted in the page caps.
  [[nodiscard]] virtual absl::StatusOr<absl::Duration> StartHostRequest(
      std::string_view host, absl::Time now) {
    (void)host;
    (void)now;
    return absl::UnimplementedError("this frontier has no host lane");
  }
  // The request StartHostRequest started for `host` ended at `now` as
  // `outcome` says: the slot is freed and the host's politeness follows the
  // answer as after Done (its delay from `now`, the adaptive delay of
  // outcome.response_time, back-off after a 429/503 (at least retry_after)
  // or a transient error, a success resetting it, connection failures
  // counted towards unreachable). No URL is retried and nothing is counted
  // in FrontierStats: the caller counts its own requests.
  virtual void EndHostRequest(std::string_view host,
                              const FetchOutcome& outcome, absl::Time now) {
    (void)host;
    (void)outcome;
    (void)now;
  }

  // render.mode = auto's per-host decision (docs/crawling.md, "Rendering"):
  // how many renders of `host`'s pages in a row added no link. Kept with the
  // host's state (parked hosts too) and in checkpoints. 0 by default (a
  // frontier that keeps no host state: every page the signs pick renders).
  virtual uint32_t RendersWithoutLinks(std::string_view host) {
    (void)host;
    return 0;
  }
  // Counts one render of a page of `host`: one that added links resets the
  // count.
  virtual void NoteRender(std::string_view host, bool added_links) {
    (void)host;
    (void)added_links;
  }

  // Adds the frontier's state to `snapshot` (files the caller commits with
  // its own, as one checkpoint). Everything handed out by Next and not yet
  // Done is saved as queued. Restoring is each implementation's own factory.
  [[nodiscard]] virtual absl::Status Checkpoint(SnapshotWriter& snapshot) = 0;

  virtual FrontierStats stats() const = 0;
  virtual FrontierFilterStats filter_stats() const = 0;
  // The first disk error of the frontier's stores, OK if none. After one the
  // crawl should stop: queues may no longer be complete on disk.
  virtual absl::Status status() const = 0;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_CRAWL_FRONTIER_H_
