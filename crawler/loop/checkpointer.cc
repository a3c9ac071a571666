// crawler/loop/checkpointer.cc: the crawl's snapshots and when they are due
// (see checkpointer.h).
#include "crawler/loop/checkpointer.h"

namespace sieve {

absl::Status Checkpointer::Write(const CrawlState& state,
                                 CrawlFrontier& frontier) {
  absl::Status status = WriteCheckpoint(dir_, state, frontier, &checksums_);
  next_ = absl::Now() + every_;
  return status;
}

}  // namespace sieve
