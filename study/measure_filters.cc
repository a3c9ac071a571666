// The filter module's kinds at one n: built side by side in memory-bounded
// groups, fed the same stream, probed with the same never-inserted URLs; the
// filters of a group are spread over one thread per core.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "filter/filter.h"
#include "study/measure.h"
#include "study/memory_meter.h"

namespace sieve::study {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// A filter being measured: the filter (through filter/filter.h, one virtual
// call per batch of kBatchUrls keys) and what was measured of it. Finish()
// records its final shape so Release() can free the filter itself.
class FilterUnderTest {
 public:
  FilterUnderTest(double fp_rate, std::unique_ptr<Filter> filter)
      : kind_(filter->kind()), fp_rate_(fp_rate), filter_(std::move(filter)) {}

  FilterKind kind() const { return kind_; }
  double fp_rate() const { return fp_rate_; }
  Filter& filter() { return *filter_; }
  // k: probes per key (known while the filter lives).
  uint32_t hash_count() const { return filter_->hash_count(); }

  // Records m, k, bytes, the estimate and the formula's rate at n (a scalable
  // filter grows, so this is its final shape).
  void Finish(uint64_t n) {
    bits = filter_->bit_count();
    hashes = filter_->hash_count();
    memory_bytes = filter_->MemoryBytes();
    estimated_count = filter_->EstimatedCount();
    formula_fp_rate = filter_->FormulaFalsePositiveRate(n);
  }
  // Frees the filter's memory (the object stays, for what Finish recorded).
  void Release() { filter_.reset(); }

  // Measurements, filled while running.
  double insert_seconds = 0;
  double query_seconds = 0;
  uint64_t lost_new = 0;
  uint64_t false_positives = 0;
  // Recorded by Finish.
  uint64_t bits = 0;
  uint64_t hashes = 0;
  uint64_t memory_bytes = 0;
  double estimated_count = 0;
  double formula_fp_rate = 0;

 private:
  FilterKind kind_;
  double fp_rate_;
  std::unique_ptr<Filter> filter_;
};

absl::StatusOr<std::unique_ptr<FilterUnderTest>> MakeFilter(FilterKind kind,
                                                            uint64_t capacity,
                                                            double fp_rate) {
  absl::StatusOr<std::unique_ptr<Filter>> filter =
      CreateFilter({.kind = kind, .capacity = capacity, .fp_rate = fp_rate});
  if (!filter.ok()) return filter.status();
  return std::make_unique<FilterUnderTest>(fp_rate, *std::move(filter));
}

ResultRow RowFor(const FilterUnderTest& f, uint64_t n, uint64_t stream_urls,
                 uint64_t probes, const MeasureContext& context) {
  ResultRow row;
  row.family = "filter";
  row.structure = std::string(FilterKindName(f.kind()));
  row.fp_rate = f.fp_rate();
  row.n = n;
  row.stream_urls = stream_urls;
  row.bits = f.bits;
  row.hashes = f.hashes;
  row.bytes_own = f.memory_bytes;
  row.bits_per_url =
      8.0 * static_cast<double>(row.bytes_own) / static_cast<double>(n);
  if (f.kind() == FilterKind::kClassic) {
    // m/n = -ln p / (ln 2)^2 (docs/architecture.md, "Formulas"): 9.59 bits
    // per URL at 1 %.
    row.bits_per_url_theory =
        -std::log(f.fp_rate()) / (std::log(2.0) * std::log(2.0));
  }
  row.insert_ns = 1e9 * f.insert_seconds / static_cast<double>(stream_urls);
  row.query_ns = 1e9 * f.query_seconds / static_cast<double>(probes);
  row.probes = probes;
  row.false_positives = f.false_positives;
  row.fpr_measured =
      static_cast<double>(f.false_positives) / static_cast<double>(probes);
  row.fpr_formula = f.formula_fp_rate;
  row.estimated_count = f.estimated_count;
  row.lost_new = f.lost_new;
  row.repeat_share = context.stream.repeat_share;
  return row;
}

// Relative cost of feeding one key to `f`, for balancing lanes: its probes,
// times the stages a scalable filter checks (about four for the study's n/8
// first stage).
double LaneWeight(const FilterUnderTest& f) {
  const double stages = f.kind() == FilterKind::kScalable ? 4.0 : 1.0;
  return stages * static_cast<double>(f.hash_count());
}

// Splits `group` into at most `lanes` lists of similar total weight (longest
// first onto the lightest lane).
std::vector<std::vector<size_t>> SplitIntoLanes(
    const std::vector<std::unique_ptr<FilterUnderTest>>& group, size_t lanes) {
  std::vector<size_t> order(group.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return LaneWeight(*group[a]) > LaneWeight(*group[b]);
  });
  std::vector<std::vector<size_t>> split(std::min(lanes, group.size()));
  std::vector<double> load(split.size(), 0.0);
  for (size_t g : order) {
    const size_t lightest = static_cast<size_t>(
        std::min_element(load.begin(), load.end()) - load.begin());
    split[lightest].push_back(g);
    load[lightest] += LaneWeight(*group[g]);
  }
  return split;
}

// Feeds the filters `members` of `group` the stream to n, then probes each with
// its own number of never-inserted URLs. Each lane reads its own copy of the
// stream (a pure function of the seed), so lanes share nothing but `advance`.
// Returns the stream length.
uint64_t RunLane(const MeasureContext& context, uint64_t n,
                 std::vector<std::unique_ptr<FilterUnderTest>>& group,
                 const std::vector<size_t>& members,
                 const std::vector<uint64_t>& own_probes,
                 const std::function<void(uint64_t)>& advance) {
  std::unique_ptr<bool[]> answers(new bool[kBatchUrls]);
  uint64_t stream_urls = 0;
  FeedStream(context, n, [&](const UrlBatch& batch) {
    const std::span<const std::string_view> keys(batch.urls());
    const std::span<bool> out(answers.get(), keys.size());
    for (size_t g : members) {
      FilterUnderTest* f = group[g].get();
      const Clock::time_point start = Clock::now();
      f->filter().AddMany(keys, out);
      f->insert_seconds += Seconds(Clock::now() - start);
      for (size_t i = 0; i < keys.size(); ++i)
        f->lost_new += batch.fresh()[i] && !out[i];
    }
    stream_urls += keys.size();
    advance(keys.size() * members.size());
  });
  // One probe stream for the lane; each filter queries as many of its URLs as
  // its own rate needs (ProbeCount), so a p = 0.1 filter is not probed 4 * 10^6
  // times for the sake of a p = 10^-4 neighbour.
  uint64_t probes = 0;
  for (size_t g : members) probes = std::max(probes, own_probes[g]);
  uint64_t first = 0;  // Index of the batch's first probe.
  FeedProbes(context, probes, [&](const UrlBatch& batch) {
    for (size_t g : members) {
      if (first >= own_probes[g]) continue;
      const size_t count = static_cast<size_t>(
          std::min<uint64_t>(batch.size(), own_probes[g] - first));
      const std::span<const std::string_view> keys(batch.urls().data(), count);
      const std::span<bool> out(answers.get(), count);
      const Clock::time_point start = Clock::now();
      group[g]->filter().MayContainMany(keys, out);
      group[g]->query_seconds += Seconds(Clock::now() - start);
      for (size_t i = 0; i < count; ++i) group[g]->false_positives += out[i];
      advance(count);
    }
    first += batch.size();
  });
  return stream_urls;
}

// Builds, feeds and probes one group of filters, one lane per core (a 10^9 run
// is bound by memory latency, which two cores overlap); appends their rows.
absl::Status RunGroup(const MeasureContext& context, uint64_t n,
                      std::vector<std::unique_ptr<FilterUnderTest>>& group,
                      std::vector<ResultRow>* rows) {
  std::vector<uint64_t> own_probes;
  for (const auto& f : group) own_probes.push_back(ProbeCount(n, f->fp_rate()));
  const std::vector<std::vector<size_t>> lanes =
      SplitIntoLanes(group, std::max(1u, std::thread::hardware_concurrency()));
  std::mutex progress_mu;
  const std::function<void(uint64_t)> advance = [&](uint64_t units) {
    if (context.progress == nullptr) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    context.progress->Advance(units);
  };
  std::vector<uint64_t> stream_urls(lanes.size(), 0);
  std::vector<std::thread> helpers;
  for (size_t lane = 1; lane < lanes.size(); ++lane) {
    helpers.emplace_back([&, lane] {
      stream_urls[lane] =
          RunLane(context, n, group, lanes[lane], own_probes, advance);
    });
  }
  stream_urls[0] = RunLane(context, n, group, lanes[0], own_probes, advance);
  for (std::thread& helper : helpers) helper.join();

  for (size_t g = 0; g < group.size(); ++g) {
    FilterUnderTest* f = group[g].get();
    f->Finish(n);
    ResultRow row = RowFor(*f, n, stream_urls[0], own_probes[g], context);
    // RSS: what the process gives back when this filter is freed (its pages
    // were all touched).
    ReleaseFreeMemory();
    const uint64_t before = ResidentBytes();
    f->Release();
    ReleaseFreeMemory();
    const uint64_t after = ResidentBytes();
    row.bytes_rss = before >= after ? static_cast<double>(before - after) : 0.0;
    rows->push_back(std::move(row));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<ResultRow>> MeasureFilters(
    const MeasureContext& context, const std::vector<FilterKind>& kinds,
    const std::vector<double>& fp_rates, uint64_t n,
    const std::vector<ResultRow>& previous) {
  std::vector<ResultRow> rows;
  std::vector<std::unique_ptr<FilterUnderTest>> group;
  uint64_t group_bytes = 0;
  for (FilterKind kind : kinds) {
    for (double rate : fp_rates) {
      const uint64_t predicted = PredictedFilterBytes(kind, n, rate);
      if (predicted > context.memory_cap) {
        const ResultRow* base =
            LastMeasured(previous, FilterKindName(kind), rate);
        if (base != nullptr) rows.push_back(Extrapolate(*base, n, context));
        continue;
      }
      if (!group.empty() &&
          group_bytes + predicted > context.filter_group_budget) {
        absl::Status s = RunGroup(context, n, group, &rows);
        if (!s.ok()) return s;
        group.clear();
        group_bytes = 0;
      }
      const uint64_t capacity =
          kind == FilterKind::kScalable ? std::max<uint64_t>(1000, n / 8) : n;
      absl::StatusOr<std::unique_ptr<FilterUnderTest>> f =
          MakeFilter(kind, capacity, rate);
      if (!f.ok()) return f.status();
      group.push_back(std::move(*f));
      group_bytes += predicted;
    }
  }
  if (!group.empty()) {
    absl::Status s = RunGroup(context, n, group, &rows);
    if (!s.ok()) return s;
  }
  return rows;
}

}  // namespace sieve::study
