// frontier/cluster/ack_ledger.h: AckLedger, a RedisFrontier worker's
// acknowledgements of its shards' stream entries: the finished URLs that
// wait for their record (RedisFrontierOptions::ack_after_record), and the
// acknowledgements that failed and are sent again.
//
// Surprises first:
//   - An acknowledgement (XACK + XDEL, fenced by the shard's lease:
//     ShardQueue::Ack) that fails on a transient error is kept and sent again
//     by Retry; a fenced one, or one of a shard no longer held, is dropped:
//     the shard is another worker's, who fetches the URL again.
//   - Not thread-safe: RedisFrontier calls it under its mutex. It makes Redis
//     round trips (one per acknowledgement) and never sleeps.
//
// Example:
//   sieve::cluster::AckLedger acks(queue, leases);
//   acks.AwaitRecord(url, {.shard = 3, .id = "1700000000000-0"});
//   ... the record of url is written ...
//   if (auto e = acks.TakeAwaiting(url)) note(acks.AckOrKeep(*std::move(e)));
//   note(acks.Retry());  // at the next Next
#ifndef SIEVE_FRONTIER_CLUSTER_ACK_LEDGER_H_
#define SIEVE_FRONTIER_CLUSTER_ACK_LEDGER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "frontier/cluster/shard_leases.h"
#include "frontier/cluster/shard_queue.h"

namespace sieve::cluster {

class AckLedger {
 public:
  // One stream entry of a shard.
  struct Entry {
    uint32_t shard = 0;
    std::string id{};
  };

  // `queue` and `leases` must outlive the ledger.
  AckLedger(ShardQueue& queue, const ShardLeases& leases)
      : queue_(&queue), leases_(&leases) {}

  // `url` is finished; its entry is acknowledged once its record is written.
  void AwaitRecord(std::string url, Entry entry);
  // The entry of `url` if it awaits its record (no longer awaited after
  // this); nullopt if it does not.
  std::optional<Entry> TakeAwaiting(std::string_view url);
  bool AwaitsRecord(std::string_view url) const;
  // Some URL of `shard` awaits its record. Cost: O(URLs awaiting).
  bool AwaitsRecordOf(uint32_t shard) const;

  // Acknowledges `entry` now. Returns the attempt's status.
  absl::Status Ack(const Entry& entry);
  // Acknowledges `entry` now, or keeps it for Retry if that fails on a
  // transient error (not fenced). Returns the attempt's status.
  absl::Status AckOrKeep(Entry entry);
  // Sends the kept acknowledgements of the shards still held again (those of
  // shards let go are dropped). Returns the worst failure (a fatal error
  // before a transient one); has_kept() says whether some are still kept.
  absl::Status Retry();
  bool has_kept() const { return !kept_.empty(); }

  // Nothing awaits its record and nothing is kept.
  bool empty() const { return awaiting_.empty() && kept_.empty(); }

 private:
  ShardQueue* queue_;
  const ShardLeases* leases_;
  absl::flat_hash_map<std::string, Entry> awaiting_{};
  std::vector<Entry> kept_{};
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_ACK_LEDGER_H_
