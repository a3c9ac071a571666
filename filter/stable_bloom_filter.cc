#include "filter/stable_bloom_filter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "filter/durable_file.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/file_io.h"
#include "filter/internal/lock_guards.h"
#include "filter/internal/own_image.h"

namespace sieve {

using filter_internal::ImageSource;
using filter_internal::ReaderGuard;
using filter_internal::WriterGuard;

namespace {

// Payload prefix: d (u32), reserved (u32), P (f64), generator state (u64),
// fresh adds (u64); the cell words follow.
constexpr uint64_t kPrefixBytes = 32;

uint64_t CellsPerWord(uint32_t cell_bits) { return 64 / cell_bits; }

// Bits of a word that belong to cells (d = 3 leaves the top bit unused).
uint64_t UsedBits(uint32_t cell_bits) {
  const uint64_t used = CellsPerWord(cell_bits) * cell_bits;
  return used == 64 ? ~uint64_t{0} : (uint64_t{1} << used) - 1;
}

// Bits [from, to) of a word set.
uint64_t BitRange(uint64_t from, uint64_t to) {
  const uint64_t high = to == 64 ? ~uint64_t{0} : (uint64_t{1} << to) - 1;
  return high & ~((uint64_t{1} << from) - 1);
}

absl::Status CheckParams(const StableParams& p) {
  if (p.cell_bits < 1 || p.cell_bits > 8 || p.hashes < 1 ||
      p.hashes >= p.cells || p.cells > BloomMath::kMaxBits ||
      !(p.decrements >= 0) || p.decrements > static_cast<double>(p.cells)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stable filter needs 1 <= d <= 8, 1 <= K < m and 0 <= P <= m, got d=",
        p.cell_bits, " K=", p.hashes, " m=", p.cells, " P=", p.decrements));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StableBloomFilter> StableBloomFilter::Create(
    const FilterOptions& options) {
  uint64_t memory_bits = options.memory_bytes * 8;
  if (memory_bits == 0) {
    absl::StatusOr<BloomParams> classic =
        BloomMath::OptimalParams(options.capacity, options.fp_rate);
    if (!classic.ok()) return classic.status();
    memory_bits = classic->bits;
  }
  absl::StatusOr<StableParams> params =
      BloomMath::OptimalStableParams(memory_bits, options.fp_rate);
  if (!params.ok()) return params.status();
  return CreateWithParams(*params, options);
}

absl::StatusOr<StableBloomFilter> StableBloomFilter::CreateWithParams(
    const StableParams& params, const FilterOptions& options) {
  StableParams p = params;
  if (p.cell_bits >= 1 && p.cell_bits <= 8) {
    const uint64_t per_word = CellsPerWord(p.cell_bits);
    p.cells = (p.cells + per_word - 1) / per_word * per_word;
  }
  if (absl::Status s = CheckParams(p); !s.ok()) return s;
  absl::StatusOr<filter_internal::WordArray> words =
      filter_internal::WordArray::Allocate(p.cells / CellsPerWord(p.cell_bits));
  if (!words.ok()) return words.status();
  StableBloomFilter filter;
  filter.params_ = p;
  filter.cells_per_word_ = static_cast<uint32_t>(CellsPerWord(p.cell_bits));
  filter.cell_mask_ = (uint64_t{1} << p.cell_bits) - 1;
  filter.low_bits_ = UsedBits(p.cell_bits) / filter.cell_mask_;
  filter.capacity_ =
      static_cast<uint64_t>(std::min(BloomMath::StableHalfLife(p), 1e18));
  filter.fp_rate_ = BloomMath::StableFalsePositiveRate(
      p, std::numeric_limits<double>::infinity());
  filter.seed_ = options.seed;
  filter.rng_ = options.seed;
  filter.concurrent_ = options.concurrent;
  filter.words_ = *std::move(words);
  return filter;
}

uint64_t StableBloomFilter::NextRandom() {
  // splitmix64 (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number
  // Generators", OOPSLA 2014).
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint32_t StableBloomFilter::CellAt(uint64_t index) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  const uint64_t word = words_.data()[index / cells_per_word_];
  return static_cast<uint32_t>(
      (word >> (index % cells_per_word_ * params_.cell_bits)) & cell_mask_);
}

void StableBloomFilter::DecrementRun(uint64_t first, uint64_t count) {
  // Word by word: `nonzero` has bit 0 of every nonzero cell in the run (a
  // cell's bits folded onto its bit 0), so word - nonzero takes 1 from each
  // of them with no borrow between cells; cells at exactly 1 become 0.
  const uint32_t d = params_.cell_bits;
  uint64_t* words = words_.data();
  while (count > 0) {
    const uint64_t index = first / cells_per_word_;
    const uint64_t offset = first % cells_per_word_;
    const uint64_t n = std::min<uint64_t>(count, cells_per_word_ - offset);
    const uint64_t run = BitRange(offset * d, (offset + n) * d) & low_bits_;
    uint64_t word = words[index];
    uint64_t upper = 0;  // bits 1..d-1 of each cell, folded onto bit 0
    for (uint32_t j = 1; j < d; ++j) upper |= word >> j;
    upper &= low_bits_;
    const uint64_t nonzero = (word | upper) & run;
    const uint64_t ones = word & ~upper & run;
    words[index] = word - nonzero;
    nonzero_ -= std::popcount(ones);
    first += n;
    if (first == params_.cells) first = 0;
    count -= n;
  }
}

bool StableBloomFilter::AddHash(const KeyHash& hash) {
  WriterGuard lock(mu_.get(), concurrent_);
  return AddHashLocked(hash);
}

bool StableBloomFilter::AddHashLocked(const KeyHash& hash) {
  // The paper's order: detect (is a cell 0?), then decrement P cells, then set
  // the key's K cells to Max.
  const bool fresh = !MayContainHashLocked(hash);
  const double whole = std::floor(params_.decrements);
  uint64_t count = static_cast<uint64_t>(whole);
  const uint64_t start = ReduceToRange(NextRandom(), params_.cells);
  if (params_.decrements > whole &&
      static_cast<double>(NextRandom() >> 11) * 0x1.0p-53 <
          params_.decrements - whole) {
    ++count;
  }
  if (count > 0) DecrementRun(start, count);
  ProbeSequence probes(hash);
  uint64_t* words = words_.data();
  for (uint32_t i = 0; i < params_.hashes; ++i) {
    const uint64_t cell = ReduceToRange(probes.Next(), params_.cells);
    uint64_t& word = words[cell / cells_per_word_];
    const uint64_t shift = cell % cells_per_word_ * params_.cell_bits;
    if (((word >> shift) & cell_mask_) == 0) ++nonzero_;
    word |= cell_mask_ << shift;
  }
  ++inserts_;
  if (fresh) ++fresh_;
  return fresh;
}

bool StableBloomFilter::MayContainHash(const KeyHash& hash) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return MayContainHashLocked(hash);
}

bool StableBloomFilter::MayContainHashLocked(const KeyHash& hash) const {
  ProbeSequence probes(hash);
  const uint64_t* words = words_.data();
  for (uint32_t i = 0; i < params_.hashes; ++i) {
    const uint64_t cell = ReduceToRange(probes.Next(), params_.cells);
    const uint64_t shift = cell % cells_per_word_ * params_.cell_bits;
    if (((words[cell / cells_per_word_] >> shift) & cell_mask_) == 0)
      return false;
  }
  return true;
}

void StableBloomFilter::AddMany(std::span<const std::string_view> keys,
                                std::span<bool> fresh) {
  WriterGuard lock(mu_.get(), concurrent_);
  filter_internal::RunBatched(
      keys, fresh, seed_, [](const KeyHash&) {},
      [this](const KeyHash& h) { return AddHashLocked(h); });
}

void StableBloomFilter::MayContainMany(std::span<const std::string_view> keys,
                                       std::span<bool> out) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  filter_internal::RunBatched(
      keys, out, seed_, [](const KeyHash&) {},
      [this](const KeyHash& h) { return MayContainHashLocked(h); });
}

double StableBloomFilter::EstimatedCount() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return static_cast<double>(std::min(fresh_, capacity_));
}

double StableBloomFilter::FillRatio() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return static_cast<double>(nonzero_) / static_cast<double>(params_.cells);
}

double StableBloomFilter::EstimatedFalsePositiveRate() const {
  return BloomMath::FalsePositiveRateAtFill(FillRatio(), params_.hashes);
}

double StableBloomFilter::FormulaFalsePositiveRate(uint64_t inserts) const {
  return BloomMath::StableFalsePositiveRate(params_,
                                            static_cast<double>(inserts));
}

void StableBloomFilter::WriteImage(filter_internal::ByteSink sink) const {
  filter_internal::ImageWriter writer(
      sink, filter_internal::ImageHeader{
                .kind = kKind,
                .hash_count = params_.hashes,
                .bit_count = params_.cells,
                .seed = seed_,
                .capacity = capacity_,
                .fp_rate = fp_rate_,
                .count = inserts_,
                .payload_bytes = kPrefixBytes + words_.bytes()});
  char prefix[kPrefixBytes] = {};
  std::memcpy(prefix, &params_.cell_bits, 4);
  std::memcpy(prefix + 8, &params_.decrements, 8);
  std::memcpy(prefix + 16, &rng_, 8);
  std::memcpy(prefix + 24, &fresh_, 8);
  writer.Append(std::string_view(prefix, sizeof(prefix)));
  writer.Append(std::string_view(reinterpret_cast<const char*>(words_.data()),
                                 words_.bytes()));
  writer.Finish();
}

void StableBloomFilter::SerializeTo(filter_internal::ByteSink sink) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  WriteImage(sink);
}

std::string StableBloomFilter::Serialize() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return filter_internal::ImageString(
      kPrefixBytes + words_.bytes(),
      [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::Status StableBloomFilter::SaveToFile(const std::string& path) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return WriteFileAtomically(
      path, [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::StatusOr<StableBloomFilter> StableBloomFilter::FromSource(
    const ImageSource& source) {
  absl::StatusOr<filter_internal::OwnPayload> in =
      filter_internal::OwnPayload::Open(source, kKind, kPrefixBytes,
                                        "no parameters");
  if (!in.ok()) return in.status();
  const filter_internal::ImageHeader& h = in->header();
  StableParams params{.cells = h.bit_count, .hashes = h.hash_count};
  params.cell_bits = in->Field<decltype(params.cell_bits)>(0);
  params.decrements = in->Field<decltype(params.decrements)>(8);
  const uint64_t rng = in->Field<uint64_t>(16);
  const uint64_t fresh = in->Field<uint64_t>(24);
  const std::string_view payload = in->rest();
  if (absl::Status s = CheckParams(params); !s.ok())
    return in->Corrupt(std::string(s.message()));
  if (params.cells % CellsPerWord(params.cell_bits) != 0)
    return in->Corrupt("cell count is not whole words");
  if (payload.size() != params.cells / CellsPerWord(params.cell_bits) * 8)
    return in->Corrupt("cell words do not match the cell count");
  if (fresh > h.count) return in->Corrupt("more fresh adds than adds");
  absl::StatusOr<StableBloomFilter> filter = CreateWithParams(
      params, FilterOptions{.concurrent = source.concurrent, .seed = h.seed});
  if (!filter.ok()) return filter.status();
  const uint64_t unused = ~UsedBits(params.cell_bits);
  uint64_t* words = filter->words_.data();
  std::memcpy(words, payload.data(), payload.size());
  for (uint64_t i = 0; i < filter->words_.size(); ++i) {
    if ((words[i] & unused) != 0) return in->Corrupt("padding bits set");
    for (uint64_t c = 0; c < filter->cells_per_word_; ++c) {
      if (((words[i] >> (c * params.cell_bits)) & filter->cell_mask_) != 0)
        ++filter->nonzero_;
    }
  }
  filter->rng_ = rng;
  filter->inserts_ = h.count;
  filter->fresh_ = fresh;
  return filter;
}

absl::StatusOr<StableBloomFilter> StableBloomFilter::Deserialize(
    std::string_view bytes, const LoadOptions& options) {
  return filter_internal::DeserializeOwnImage<StableBloomFilter>(bytes,
                                                                 options);
}

absl::StatusOr<StableBloomFilter> StableBloomFilter::LoadFromFile(
    const std::string& path, const LoadOptions& options) {
  return filter_internal::LoadOwnImage<StableBloomFilter>(path, options);
}

}  // namespace sieve
