#include "study/url_stream.h"

#include <map>
#include <set>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace sieve::study {
namespace {

TEST(UrlStreamTest, SameSeedGivesTheSameBytes) {
  UrlStream a({.seed = 7});
  UrlStream b({.seed = 7});
  UrlStream c({.seed = 8});
  std::string x, y, z;
  int differs = 0;
  for (int i = 0; i < 1000; ++i) {
    a.Next(&x);
    b.Next(&y);
    c.Next(&z);
    ASSERT_EQ(x, y);
    differs += x != z;
  }
  EXPECT_GT(differs, 900);
}

TEST(UrlStreamTest, PinsTheFirstUrlSoTheStreamCannotChangeByAccident) {
  UrlStream stream({.seed = 42});
  std::string url;
  stream.Next(&url);
  // If this changes, every published study figure changes with it: update
  // docs/study too.
  EXPECT_EQ(url, "http://www.article116.com/books/local/music/cue8uahv.html");
}

TEST(UrlStreamTest, FreshUrlsAreDistinctAndRepeatsWereSeenBefore) {
  UrlStream stream({.seed = 1, .repeat_share = 0.3});
  absl::flat_hash_set<std::string> seen;
  std::string url;
  uint64_t repeats = 0;
  for (int i = 0; i < 200'000; ++i) {
    const bool fresh = stream.Next(&url);
    const bool inserted = seen.insert(url).second;
    ASSERT_EQ(fresh, inserted) << url;
    repeats += !fresh;
  }
  EXPECT_EQ(stream.fresh_count(), seen.size());
  EXPECT_NEAR(static_cast<double>(repeats) / 200'000, 0.3, 0.01);
}

TEST(UrlStreamTest, ProbeUrlsAreNeverEmittedByTheStream) {
  UrlStream stream({.seed = 3, .repeat_share = 0.1});
  absl::flat_hash_set<std::string> emitted;
  std::string url;
  for (int i = 0; i < 100'000; ++i) {
    stream.Next(&url);
    emitted.insert(url);
  }
  UrlBatch probes;
  stream.ProbeBatch(0, 100'000, &probes);
  absl::flat_hash_set<std::string_view> distinct(probes.urls().begin(),
                                                 probes.urls().end());
  EXPECT_EQ(distinct.size(), 100'000u);
  for (std::string_view probe : probes.urls())
    ASSERT_FALSE(emitted.contains(std::string(probe))) << probe;
}

TEST(UrlStreamTest, HostSizesAreZipfSkewedAndUrlsLookRealistic) {
  UrlStream stream({.seed = 5, .repeat_share = 0});
  std::map<std::string, int> per_host;
  std::string url;
  size_t total_length = 0;
  int with_query = 0;
  constexpr int kUrls = 100'000;
  for (int i = 0; i < kUrls; ++i) {
    stream.Next(&url);
    ASSERT_TRUE(url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0)
        << url;
    const size_t host_start = url.find("//") + 2;
    per_host[url.substr(host_start, url.find('/', host_start) - host_start)]++;
    total_length += url.size();
    with_query += url.find('?') != std::string::npos;
  }
  int largest = 0;
  for (const auto& [host, count] : per_host) largest = std::max(largest, count);
  // Zipf s = 1 over 2^20 hosts (continuous inversion): the top host gets
  // ln 2 / ln(2^20 + 1) = 5 % of the URLs; most hosts appear once or never.
  EXPECT_GT(largest, kUrls / 25);
  EXPECT_LT(largest, kUrls / 15);
  EXPECT_GT(per_host.size(), 20'000u);
  const double mean_length = static_cast<double>(total_length) / kUrls;
  EXPECT_GT(mean_length, 45);
  EXPECT_LT(mean_length, 90);
  EXPECT_NEAR(static_cast<double>(with_query) / kUrls, 3.0 / 8, 0.02);
}

TEST(UrlStreamTest, NextBatchStopsAtTheFreshLimit) {
  UrlStream stream({.seed = 9, .repeat_share = 0.5});
  UrlBatch batch;
  uint64_t fresh = 0;
  while (stream.fresh_count() < 10'000) {
    stream.NextBatch(4096, 10'000, &batch);
    for (size_t i = 0; i < batch.size(); ++i) fresh += batch.fresh()[i];
  }
  EXPECT_EQ(fresh, 10'000u);
  EXPECT_EQ(stream.fresh_count(), 10'000u);
  EXPECT_GT(stream.position(), 15'000u);
}

}  // namespace
}  // namespace sieve::study
