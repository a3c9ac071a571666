// crawler/loop/stop_control.h: when and why a run of the crawl ends.
//
// Owns: the reason the run stops (the first one given wins: max_pages,
// max_run_time, a stop request, the filter's capacity), the stop request from
// another thread (RequestStop: SIGINT, SIGTERM), the run's deadline
// (crawl.max_run_seconds from Start), the grace period's end (transfers in
// flight may finish until then once stopping) and the first fatal error
// (output that cannot be written: the loop ends at once, the last checkpoint
// intact).
//
// Surprises first:
//   - Request() is thread-safe (an atomic flag); everything else is for the
//     crawl loop's thread.
//   - A fatal error does not set a stop reason: Run returns the error.
//
// Example:
//   StopControl stop({.max_run_time = absl::Minutes(5)});
//   stop.Start(absl::Now());
//   while (stop.fatal().ok()) {
//     if (stop.Check(absl::Now())) log("stopping");
//     if (stop.stopping() && (idle || stop.GraceOver(absl::Now()))) break;
//   }
#ifndef SIEVE_CRAWLER_LOOP_STOP_CONTROL_H_
#define SIEVE_CRAWLER_LOOP_STOP_CONTROL_H_

#include <atomic>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "crawler/loop/crawler.h"

namespace sieve {

class StopControl {
 public:
  struct Options {
    // crawl.max_run_seconds from Start; InfiniteDuration() = no limit.
    // REQUIRES: > 0. Default: no limit.
    absl::Duration max_run_time = absl::InfiniteDuration();
    // How long transfers in flight may run once stopping (CrawlSetup::
    // stop_grace). REQUIRES: >= 0. Default: 5 s.
    absl::Duration grace = absl::Seconds(5);
  };
  explicit StopControl(Options options) : options_(options) {}

  // The run starts now: the deadline is now + max_run_time.
  void Start(absl::Time now);
  // Asks the run to stop (thread-safe): Check stops it, kInterrupted.
  void Request() { requested_.store(true); }
  // Stops the run for `reason` unless it is already stopping; the grace
  // period starts `now`.
  void Stop(StopReason reason, absl::Time now);
  // Stops for a request (kInterrupted) or the deadline (kMaxRunTime); true
  // when this call stopped the run.
  bool Check(absl::Time now);
  // Keeps `status` as the fatal error unless one is kept already or it is ok.
  void Fail(const absl::Status& status);

  bool stopping() const { return reason_.has_value(); }
  std::optional<StopReason> reason() const { return reason_; }
  // Stopping, and the grace period is over at `now`.
  bool GraceOver(absl::Time now) const {
    return stopping() && now >= grace_end_;
  }
  // max_run_time from Start (InfiniteFuture when none).
  absl::Time deadline() const { return deadline_; }
  absl::Duration grace() const { return options_.grace; }
  const absl::Status& fatal() const { return fatal_; }
  // Where owners that stop the crawl keep the fatal error (RevisitScheduler);
  // the first one is kept.
  absl::Status* fatal_slot() { return &fatal_; }

 private:
  const Options options_;
  std::optional<StopReason> reason_;
  std::atomic<bool> requested_{false};
  absl::Time deadline_ = absl::InfiniteFuture();
  absl::Time grace_end_ = absl::InfiniteFuture();
  absl::Status fatal_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_STOP_CONTROL_H_
