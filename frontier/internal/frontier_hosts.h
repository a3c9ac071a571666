// frontier/internal/frontier_hosts.h: the Frontier's per-host state (the host
// table, the schedule of hosts by when they may be fetched, the queues on
// disk, the URLs in flight), kept out of the public frontier/frontier.h so
// that the host_* headers are not installed. Frontier (frontier.cc,
// frontier_queues.cc, frontier_hosts.cc, host_checkpoint.cc) holds one, under
// its mutex.
#ifndef SIEVE_FRONTIER_INTERNAL_FRONTIER_HOSTS_H_
#define SIEVE_FRONTIER_INTERNAL_FRONTIER_HOSTS_H_

#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "frontier/internal/host_overflow.h"
#include "frontier/internal/host_schedule.h"
#include "frontier/internal/host_table.h"
#include "frontier/internal/parked_store.h"

namespace sieve {

struct FrontierHosts {
  // A URL handed out by Next, until its Done.
  struct InFlight {
    QueuedUrl entry;
    HostState* host = nullptr;
    // When Next puts it back unless Done came (FrontierOptions::
    // lease_timeout); InfiniteFuture when leases are off.
    absl::Time lease_until = absl::InfiniteFuture();
  };

  FrontierHosts(HostOverflow::StoreOpener open_store, ParkedStore* parked,
                uint64_t max_parked_in_memory,
                std::function<void(const std::string&)> revived_dropped)
      : table(parked, max_parked_in_memory, std::move(revived_dropped)),
        overflow(std::move(open_store)) {}

  HostTable table;
  HostSchedule schedule;
  HostOverflow overflow;
  absl::flat_hash_map<std::string, InFlight> in_flight;
  // The lease of each URL handed out, earliest first; an entry whose URL is
  // no longer in flight with that lease_until is stale and skipped.
  std::priority_queue<std::pair<absl::Time, std::string>,
                      std::vector<std::pair<absl::Time, std::string>>,
                      std::greater<>>
      leases;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_INTERNAL_FRONTIER_HOSTS_H_
