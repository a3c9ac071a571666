// Frontier's revisits (frontier.h, Revisit): a heap of due times, released
// into the host queues as they come due, within FrontierOptions::revisit_share.
#include <string>
#include <utility>

#include "frontier/frontier.h"
#include "frontier/internal/frontier_hosts.h"

namespace sieve {

absl::Status Frontier::Revisit(const FrontierAdd& url, absl::Time due) {
  std::lock_guard lock(mu_);
  revisits_.push(DueRevisit{.due = due,
                            .order = revisit_order_++,
                            .host = std::string(url.host),
                            .url = std::string(url.url),
                            .metadata = std::string(url.metadata),
                            .depth = url.depth});
  return absl::OkStatus();
}

void Frontier::ReleaseDueRevisits(absl::Time now) {
  while (!revisits_.empty() && revisits_.top().due <= now) {
    // revisit_share: with new URLs waiting, a revisit goes only while the
    // revisits handed out or queued stay within the share of all URLs.
    const bool new_waiting = sieve_->size() > 0 ||
                             hosts_->overflow.size() > 0 ||
                             hosts_->table.queued_urls() > revisits_queued_;
    const uint64_t revisits = revisits_dispatched_ + revisits_queued_;
    const uint64_t all = dispatched_here_ + revisits_queued_;
    if (new_waiting &&
        static_cast<double>(revisits + 1) >
            options_.revisit_share * static_cast<double>(all + 1))
      return;
    DueRevisit r = revisits_.top();
    revisits_.pop();
    // A dropped host (past max_urls_per_host, or DropHost) is not revisited;
    // its URLs were fetched, so nothing goes to TakeDiscarded.
    if (IsDropped(r.host)) continue;
    HostState& host = hosts_->table.GetOrCreate(r.host);
    // Ahead of the host's fresh URLs, behind its revisits that came due
    // first: it is due, and its host's politeness spaces it from the host's
    // other requests. `counted`: a revisit is no new page of the host
    // (max_urls_per_host).
    hosts_->table.PushRevisit(host, QueuedUrl{.url = std::move(r.url),
                                              .metadata = std::move(r.metadata),
                                              .depth = r.depth,
                                              .counted = true,
                                              .revisit = true,
                                              .seq = next_seq_++});
    ++revisits_queued_;
    Touch(host, now);
  }
}

}  // namespace sieve
