// frontier/internal/parked_store.h: parked hosts on disk (RocksDB), for the
// idle hosts past the Frontier's RAM budget for them
// (FrontierOptions::max_parked_hosts_in_memory). A crawl that keeps a page
// count per host (max_urls_per_host) or meets robots.txt Crawl-delays parks a
// host for every host it finished; on a web without end that set grows without
// end, so past the budget it lives here (IRLbot keeps its per-host state on
// disk for the same reason: Lee et al., "IRLbot: Scaling to 6 billion pages and
// beyond", WWW 2008).
//
// Keys are host names; values ParkedHost, 26 bytes (EncodeParkedHost). They
// live in the crawl's one store (frontier/internal/scratch_db.h, column family
// "parked_hosts", with a Bloom filter: most lookups are of hosts never
// parked), so a checkpoint hard-links them with the store and a restore finds
// them there. One more key, the empty one, holds the count and the next host
// id (so ids handed out after a restore never repeat a parked host's), written
// in the same batch as every change.
//
// Surprises first:
//   - Take and PutMany are called under the Frontier's mutex; IsDropped from
//     any thread (RocksDB reads are thread-safe; the counts are atomics).
//   - Lookups cost nothing while nothing was ever put here (size() == 0): the
//     store is not even opened.
//
// Example:
//   sieve::ParkedStore disk([&] { return sieve.OpenStore(); });
//   (void)disk.PutMany(spilled, next_id);
//   absl::StatusOr<std::optional<sieve::ParkedHost>> back =
//       disk.Take("example.com");
#ifndef SIEVE_FRONTIER_INTERNAL_PARKED_STORE_H_
#define SIEVE_FRONTIER_INTERNAL_PARKED_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontier/internal/host_table.h"

namespace sieve {
namespace internal {
class ScratchDb;
}  // namespace internal

// The 26 bytes a ParkedHost is stored as: id, urls_dispatched and the
// Crawl-delay in microseconds (8 bytes each, big-endian), flags (1 =
// Crawl-delay capped, 2 = dropped), renders_without_links. Decode returns
// nullopt for any other size, an unknown flag or a count past its maximum.
std::string EncodeParkedHost(const ParkedHost& host);
std::optional<ParkedHost> DecodeParkedHost(std::string_view bytes);

class ParkedStore {
 public:
  using StoreOpener = std::function<absl::StatusOr<internal::ScratchDb*>()>;
  explicit ParkedStore(StoreOpener open_store);
  ParkedStore(const ParkedStore&) = delete;
  ParkedStore& operator=(const ParkedStore&) = delete;

  // Writes `hosts` (names not already here) in one batch, with `next_id` (the
  // host table's next id) for a restore. Cost: one RocksDB write.
  [[nodiscard]] absl::Status PutMany(
      std::span<const std::pair<std::string, ParkedHost>> hosts,
      uint64_t next_id);
  // Removes and returns `host`'s record; nullopt when it is not here. Cost:
  // nothing while size() == 0, else one RocksDB read (a Bloom filter probe
  // for most hosts) and, when found, one write.
  [[nodiscard]] absl::StatusOr<std::optional<ParkedHost>> Take(
      std::string_view host);
  // Whether `host` is here and dropped. Cost as Take's read. Thread-safe.
  bool IsDropped(std::string_view host) const;
  // After a restore: reads the count and next id saved with the records in
  // `db` (the store a checkpoint seeded; nullptr when it had none). Returns
  // the next id (0 when nothing was saved).
  [[nodiscard]] absl::StatusOr<uint64_t> Restore(internal::ScratchDb* db);
  // Visits every record as fn(name, ParkedHost), in name order. Cost: a scan.
  absl::Status ForEach(
      const std::function<void(std::string_view, const ParkedHost&)>& fn) const;

  uint64_t size() const { return size_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  absl::Status EnsureOpen();

  StoreOpener open_store_;
  // Owned by the Sieve; set once, before size_ turns non-zero.
  std::atomic<internal::ScratchDb*> db_{nullptr};
  std::atomic<uint64_t> size_{0};
  std::atomic<uint64_t> dropped_{0};
  uint64_t next_id_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_INTERNAL_PARKED_STORE_H_
