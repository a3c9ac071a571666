// Frontier::Checkpoint and Frontier::Restore: the Sieve's files and the
// Frontier's host state (frontier/internal/host_snapshot.h) added to one
// snapshot (frontier/snapshot.h).
//
// Both halves are captured under the Frontier's mutex (no Next/Done) while
// the Sieve's capture holds the Sieve's (no Add), so together they describe
// one instant: every URL is in the Sieve's queue, in a host queue in RAM, or in
// a host queue on disk (the store's checkpoint), never in two, never in none.
// Under the locks only in-memory state is copied and the store's files are
// hard-linked (its write-ahead log copied); the copies are written after the
// locks are released.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/frontier.h"
#include "frontier/internal/frontier_hosts.h"
#include "frontier/internal/host_snapshot.h"
#include "frontier/internal/parked_store.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSievePrefix = "sieve/";
constexpr std::string_view kStateFile = "frontier.state";

}  // namespace

std::vector<uint64_t> Frontier::SnapshotCounters() const {
  FrontierStats totals = counters_;
  totals.refused_urls =
      refused_for_dropped_host_.load(std::memory_order_relaxed);
  return FrontierTotals(totals);
}

void Frontier::RestoreCounters(const std::vector<uint64_t>& c) {
  RestoreFrontierTotals(c, counters_);
  refused_for_dropped_host_.store(counters_.refused_urls,
                                  std::memory_order_relaxed);
}

absl::Status Frontier::Checkpoint(SnapshotWriter& snapshot) {
  // The store's memtables go to disk first, without the locks, so the
  // checkpoint under them copies only what was written since.
  if (absl::Status s = sieve_->PrepareCheckpoint(); !s.ok()) return s;
  absl::StatusOr<Sieve::Image> sieve_image;
  std::string state;
  {
    std::lock_guard lock(mu_);
    sieve_image = [&] {
      std::lock_guard<std::mutex> sieve_lock(sieve_->mu_);
      return sieve_->CaptureLocked(snapshot, kSievePrefix);
    }();
    if (!sieve_image.ok()) return sieve_image.status();

    // The host queues, with each host's in-flight URLs put back at its head
    // (oldest first): a restored crawl fetches them again, as it has no record
    // that they finished.
    absl::flat_hash_map<const HostState*, std::vector<QueuedUrl>>
        in_flight_by_host;
    for (const auto& [url, flight] : hosts_->in_flight) {
      in_flight_by_host[flight.host].push_back(flight.entry);
    }
    HostSnapshot hosts;
    hosts.next_seq = next_seq_;
    hosts.counters = SnapshotCounters();
    hosts_->table.ForEach([&](const HostState& host) {
      auto flying = in_flight_by_host.find(&host);
      if (host.queue.empty() && host.overflow_count == 0 &&
          flying == in_flight_by_host.end() && !host.dropped &&
          host.politeness.crawl_delay == absl::ZeroDuration() &&
          host.urls_dispatched == 0 && host.renders_without_links == 0) {
        return;
      }
      HostSnapshot::Host& out = hosts.hosts.emplace_back();
      out.name = host.name;
      out.id = host.id;
      out.crawl_delay = host.politeness.crawl_delay;
      out.dropped = host.dropped;
      out.renders_without_links = host.renders_without_links;
      out.urls_dispatched = host.urls_dispatched;
      out.overflow_count = host.overflow_count;
      if (flying != in_flight_by_host.end()) {
        out.urls = std::move(flying->second);
        std::sort(out.urls.begin(), out.urls.end(),
                  [](const QueuedUrl& a, const QueuedUrl& b) {
                    return a.seq < b.seq;
                  });
      }
      out.urls.insert(out.urls.end(), host.queue.begin(), host.queue.end());
      // Revisits are not saved: their owner queues them again on restore
      // (Frontier::Revisit), from the history that set their due times.
      std::erase_if(out.urls, [](const QueuedUrl& u) { return u.revisit; });
    });
    // Parked hosts in RAM as hosts with nothing queued (restored as such, and
    // parked again once Next sees them idle); those on disk are in the
    // store's checkpoint.
    hosts_->table.ForEachParked(
        [&](const std::string& name, const ParkedHost& parked) {
          HostSnapshot::Host& out = hosts.hosts.emplace_back();
          out.name = name;
          out.id = parked.id;
          out.crawl_delay = parked.crawl_delay;
          out.urls_dispatched = parked.urls_dispatched;
          out.dropped = parked.dropped;
          out.renders_without_links = parked.renders_without_links;
        });
    std::sort(hosts.hosts.begin(), hosts.hosts.end(),
              [](const HostSnapshot::Host& a, const HostSnapshot::Host& b) {
                return a.name < b.name;
              });
    state = EncodeHostSnapshot(hosts);
  }
  if (absl::Status s =
          sieve_->WriteImage(snapshot, kSievePrefix, *std::move(sieve_image));
      !s.ok()) {
    return s;
  }
  return snapshot.AddFile(kStateFile, state);
}

absl::Status Frontier::Checkpoint(const fs::path& dir) {
  absl::StatusOr<SnapshotWriter> snapshot = SnapshotWriter::Begin(dir);
  if (!snapshot.ok()) return snapshot.status();
  if (absl::Status s = Checkpoint(*snapshot); !s.ok()) return s;
  return snapshot->Commit();
}

absl::StatusOr<std::unique_ptr<Frontier>> Frontier::Restore(
    const fs::path& dir, FrontierOptions options) {
  absl::StatusOr<SnapshotReader> snapshot = SnapshotReader::Open(dir);
  if (!snapshot.ok()) return snapshot.status();
  return Restore(*snapshot, std::move(options));
}

absl::StatusOr<std::unique_ptr<Frontier>> Frontier::Restore(
    const SnapshotReader& snapshot, FrontierOptions options) {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  absl::StatusOr<std::string> bytes = snapshot.ReadFile(kStateFile);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<HostSnapshot> hosts = DecodeHostSnapshot(*bytes);
  if (!hosts.ok()) {
    return absl::DataLossError(absl::StrCat(
        snapshot.PathOf(kStateFile).string(), ": ", hosts.status().message()));
  }
  absl::StatusOr<std::unique_ptr<Sieve>> sieve =
      Sieve::Restore(snapshot, kSievePrefix, options.sieve);
  if (!sieve.ok()) return sieve.status();

  std::unique_ptr<Frontier> frontier(
      new Frontier(std::move(options), std::move(*sieve)));
  std::lock_guard lock(frontier->mu_);
  frontier->next_seq_ = hosts->next_seq;
  frontier->RestoreCounters(hosts->counters);
  uint64_t on_disk = 0;
  for (HostSnapshot::Host& saved : hosts->hosts) {
    if (frontier->hosts_->table.Find(saved.name) != nullptr || saved.id == 0) {
      return absl::DataLossError(
          absl::StrCat(snapshot.PathOf(kStateFile).string(),
                       ": host repeated or without id: ", saved.name));
    }
    HostState& host =
        frontier->hosts_->table.CreateWithId(saved.name, saved.id);
    RecordCrawlDelay(frontier->options_.politeness, saved.crawl_delay,
                     host.politeness);
    host.urls_dispatched = saved.urls_dispatched;
    host.renders_without_links = static_cast<uint8_t>(std::min<uint32_t>(
        saved.renders_without_links, kMaxRendersWithoutLinks));
    if (saved.dropped) {
      host.dropped = true;
      std::lock_guard dropped_lock(frontier->dropped_mu_);
      frontier->dropped_hosts_.insert(saved.name);
    }
    // RAM first (the disk queue holds only newer URLs), straight into RAM:
    // the budget is re-applied as the queues are refilled.
    for (QueuedUrl& url : saved.urls) {
      frontier->hosts_->table.PushBack(host, std::move(url));
    }
    host.overflow_count = saved.overflow_count;
    on_disk += saved.overflow_count;
    if (host.queue.empty()) frontier->Refill(host);
    frontier->Touch(host, absl::InfinitePast());
    if (!host.active) frontier->ForgetLater(host);  // Parked again.
  }
  frontier->hosts_->overflow.set_size(on_disk);
  // Parked hosts on disk are in the store the checkpoint seeded; ids handed
  // out from now on must not repeat theirs.
  absl::StatusOr<uint64_t> next_id =
      frontier->parked_->Restore(frontier->sieve_->OpenedStore());
  if (!next_id.ok()) return next_id.status();
  frontier->hosts_->table.ReserveIds(*next_id);
  return frontier;
}

}  // namespace sieve
