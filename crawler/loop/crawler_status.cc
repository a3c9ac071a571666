// crawler/loop/crawler_status.cc: what the crawl saves of itself: the
// checkpoint (WriteCheckpointNow). What it reports (progress, metrics, the
// capacity warning, the summary) is the reporter's (crawl_reporter.h).
#include <vector>

#include "crawler/loop/crawler_impl.h"

namespace sieve {

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
  counters_.run_seconds = reporter_->RunSeconds(absl::Now());
  // The revisit history is in the frontier's store, which it checkpoints.
  return WriteCheckpoint(out_ / "checkpoint", state_, *frontier_,
                         &checkpoint_checksums_);
}

}  // namespace sieve
