// The frontier's Sieve, plain and lossless, on streams with few and with many
// repeats.
#include <chrono>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "frontier/sieve.h"
#include "study/measure.h"
#include "study/memory_meter.h"

namespace sieve::study {
namespace {

using Clock = std::chrono::steady_clock;

// Bytes of regular files under `dir` (the Sieve's scratch store).
uint64_t DiskBytes(const std::filesystem::path& dir) {
  uint64_t total = 0;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    std::error_code size_error;
    if (it->is_regular_file(size_error)) {
      const uint64_t size = it->file_size(size_error);
      if (!size_error) total += size;
    }
  }
  return total;
}

absl::StatusOr<ResultRow> MeasureOne(const MeasureContext& context, uint64_t n,
                                     double repeat_share, bool lossless) {
  const std::filesystem::path work_dir =
      std::filesystem::path(context.scratch_dir) /
      absl::StrFormat("sieve-%s-%d", lossless ? "lossless" : "plain",
                      static_cast<int>(repeat_share * 100));
  std::error_code error;
  std::filesystem::create_directories(work_dir, error);
  if (error) {
    return absl::UnavailableError(absl::StrCat(
        "cannot create ", work_dir.string(), ": ", error.message()));
  }
  absl::StatusOr<std::unique_ptr<Sieve>> sieve =
      Sieve::Create(SieveOptions{.expected_urls = n,
                                 .fp_rate = 0.01,
                                 .verify_positives = lossless,
                                 .work_dir = work_dir});
  if (!sieve.ok()) return sieve.status();
  if (context.progress != nullptr) {
    context.progress->SetStage(absl::StrFormat("sieve %s repeats=%.0f%% n=%d",
                                               lossless ? "lossless" : "plain",
                                               100 * repeat_share, n));
  }
  MeasureContext stream_context = context;
  stream_context.stream.repeat_share = repeat_share;
  ResultRow row;
  row.family = "sieve";
  row.structure = lossless ? "sieve_lossless" : "sieve_plain";
  row.fp_rate = 0.01;
  row.n = n;
  row.repeat_share = repeat_share;
  row.lost_new = 0;
  double push_seconds = 0;
  FeedStream(stream_context, n, [&](const UrlBatch& batch) {
    const Clock::time_point start = Clock::now();
    for (size_t i = 0; i < batch.size(); ++i) {
      row.lost_new += !(*sieve)->Push(batch.urls()[i]) && batch.fresh()[i];
    }
    push_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    row.stream_urls += batch.size();
    // A crawler pops as it goes; keep the queue short so the push cost is the
    // dedup's cost.
    while ((*sieve)->Pop().has_value()) {
    }
    if (context.progress != nullptr) context.progress->Advance(batch.size());
  });
  // The store may still sit in RocksDB's memtable: a checkpoint flushes it, so
  // the disk bytes below are the store's files (the checkpoint itself goes
  // elsewhere and is deleted).
  const std::filesystem::path checkpoint_dir =
      work_dir.string() + "-checkpoint";
  if (absl::Status s = (*sieve)->Checkpoint(checkpoint_dir); !s.ok()) return s;
  const SieveStats stats = (*sieve)->stats();
  if (absl::Status s = (*sieve)->status(); !s.ok()) return s;
  row.insert_ns = 1e9 * push_seconds / static_cast<double>(row.stream_urls);
  row.bytes_own = stats.filter_bytes;
  row.bits_per_url =
      8.0 * static_cast<double>(row.bytes_own) / static_cast<double>(n);
  row.estimated_count = stats.filter_estimated_count;
  row.false_positives = stats.false_positives_caught;
  row.disk_bytes = lossless ? DiskBytes(work_dir) : 0;
  row.note = lossless
                 ? absl::StrFormat(
                       "lossless: %d store lookups, %d false positives caught",
                       stats.store_lookups, stats.false_positives_caught)
                 : "plain: false positives drop new URLs (lost_new)";
  sieve->reset();
  std::filesystem::remove_all(work_dir, error);
  std::filesystem::remove_all(checkpoint_dir, error);
  return row;
}

}  // namespace

absl::StatusOr<std::vector<ResultRow>> MeasureSieve(
    const MeasureContext& context, uint64_t n,
    const std::vector<double>& repeat_shares) {
  std::vector<ResultRow> rows;
  for (double share : repeat_shares) {
    for (bool lossless : {false, true}) {
      absl::StatusOr<ResultRow> row = MeasureOne(context, n, share, lossless);
      if (!row.ok()) return row.status();
      rows.push_back(std::move(*row));
    }
  }
  return rows;
}

}  // namespace sieve::study
