// The queue past its memory budget: records spill to RocksDB and come back in
// order, and RAM stays near filter + budget however long the queue.
#include <deque>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "frontier/sieve.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using ::testing::Optional;

// ~80-byte URLs, like real ones: long enough that holding 2*10^6 of them in RAM
// would cost ~250 MB (string + heap block each), far past the test's bound.
std::string LongUrl(uint64_t i) {
  return "https://www.host" + std::to_string(i % 977) +
         ".example.com/articles/2026/" + std::to_string(i) +
         "/a-reasonably-long-slug?ref=feed";
}

// Resident set size of this process, from /proc/self/status (VmRSS, kB).
uint64_t RssBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      uint64_t kb = 0;
      status >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized =
    true;  // Quarantine and shadow memory make RSS meaningless.
#else
constexpr bool kSanitized = false;
#endif

uint64_t BytesUnder(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

TEST(SieveSpillTest, TwoMillionUrlsComeBackInOrderWithinTheMemoryBound) {
  constexpr uint64_t kUrls = 2'000'000;
  constexpr size_t kBudget = size_t{1} << 20;
  const test::ScopedTempDir work_dir;
  Sieve s(SieveOptions{.expected_urls = kUrls,
                       .fp_rate = 0.01,
                       .memory_budget_bytes = kBudget,
                       .work_dir = work_dir});
  const uint64_t rss_before = RssBytes();
  // A false positive drops a URL (~0.3 % while the filter fills to its 1 %
  // design point).
  std::vector<bool> queued(kUrls);
  for (uint64_t i = 0; i < kUrls; ++i) queued[i] = s.Push(LongUrl(i));
  const uint64_t rss_full = RssBytes();
  const SieveStats full = s.stats();
  EXPECT_EQ(full.size, full.queued);
  EXPECT_GT(full.queued, kUrls * 99 / 100);
  EXPECT_LE(full.queue_bytes_in_memory, kBudget + 200);
  EXPECT_GE(full.records_on_disk, full.queued - kBudget / 100);
  // The store is a real directory on disk, holding (compressed) most of the
  // queue.
  EXPECT_GT(BytesUnder(work_dir), uint64_t{20} << 20);

  const uint64_t bound = kBudget + full.filter_bytes + (uint64_t{128} << 20);
  std::printf(
      "RSS growth with 2e6 queued: %.1f MB (bound %.1f MB); on disk %.1f MB\n",
      (rss_full - rss_before) / 1e6, bound / 1e6,
      full.store_bytes_on_disk / 1e6);
  if (!kSanitized) {
    EXPECT_LT(rss_full - rss_before, bound);
  }

  for (uint64_t i = 0; i < kUrls; ++i) {
    if (!queued[i]) continue;
    std::optional<std::string> url = s.Pop();
    ASSERT_TRUE(url.has_value()) << i;
    ASSERT_EQ(*url, LongUrl(i));
    if (i == kUrls / 2 && !kSanitized) {
      EXPECT_LT(RssBytes() - rss_before, bound);
    }
  }
  EXPECT_EQ(s.Pop(), std::nullopt);
  EXPECT_TRUE(s.status().ok()) << s.status();
}

// Pushes and pops interleaved at random over a tiny budget: every path between
// the RAM head, the disk segment and the RAM tail is crossed many times; the
// order must match a plain deque.
TEST(SieveSpillTest, InterleavedPushAndPopKeepFifoOrderAcrossSpills) {
  const test::ScopedTempDir work;
  Sieve s(SieveOptions{.expected_urls = 100'000,
                       .memory_budget_bytes = 4096,
                       .verify_positives = true,
                       .work_dir = work});
  std::deque<std::string> model;
  std::mt19937_64 rng(42);
  uint64_t next = 0;
  for (int step = 0; step < 60'000; ++step) {
    // Bursts of pushes and of pops, so the queue both grows past the budget and
    // drains.
    const bool push = (step / 5000) % 2 == 0 ? rng() % 10 < 8 : rng() % 10 < 3;
    if (push) {
      const std::string url = LongUrl(next++);
      ASSERT_TRUE(s.Push(url, "p" + url.substr(url.size() - 3)));
      model.push_back(url);
    } else {
      std::optional<SieveEntry> entry = s.PopEntry();
      if (model.empty()) {
        ASSERT_EQ(entry, std::nullopt);
        continue;
      }
      ASSERT_TRUE(entry.has_value());
      ASSERT_EQ(entry->url, model.front()) << "step " << step;
      ASSERT_EQ(entry->payload,
                "p" + model.front().substr(model.front().size() - 3));
      model.pop_front();
    }
    ASSERT_EQ(s.size(), model.size());
  }
  EXPECT_GT(s.stats().spilled, 1000u);
  while (!model.empty()) {
    ASSERT_THAT(s.Pop(), Optional(model.front()));
    model.pop_front();
  }
  EXPECT_TRUE(s.status().ok()) << s.status();
}

}  // namespace
}  // namespace sieve
