// RobotsCache and InterpretRobotsResponse: RFC 9309 lifetime (2.4), origins
// (2.3), the fetch-status rules (2.3.1, and 429 as 5xx), a bounded LRU. Time is
// a fake clock the test moves.
#include "crawler/policy/robots_cache.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;

constexpr char kAgent[] = "SieveBot";

FetchResponse Response(int status, std::string body = "") {
  FetchResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

RobotsVerdict Rules(std::string body) {
  return InterpretRobotsResponse(Response(200, std::move(body)), kAgent);
}

class RobotsCacheTest : public testing::Test {
 protected:
  RobotsCacheOptions Options(size_t max_entries = 100) {
    return {.max_entries = max_entries, .clock = [this] { return now_; }};
  }

  absl::Time now_ = absl::FromUnixSeconds(1'700'000'000);
};

TEST_F(RobotsCacheTest, AnswersFromStoredRules) {
  RobotsCache cache(Options());
  const std::string key = RobotsCache::Key("https", "a.com", 443);
  EXPECT_EQ(cache.Allowed(key, "/x"), std::nullopt);
  cache.Store(key, Rules("User-agent: *\nDisallow: /private\n"));
  EXPECT_EQ(cache.Allowed(key, "/private/x"), false);
  EXPECT_EQ(cache.Allowed(key, "/public"), true);
  EXPECT_TRUE(cache.Known(key));
}

// RFC 9309 2.4: "crawlers SHOULD NOT use a cached version for more than 24
// hours".
TEST_F(RobotsCacheTest, AnEntryExpiresAfter24HoursSoItIsFetchedAgain) {
  RobotsCache cache(Options());
  const std::string key = RobotsCache::Key("http", "a.com", 80);
  cache.Store(key, Rules("User-agent: *\nDisallow: /old\n"));
  now_ += absl::Hours(24) - absl::Seconds(1);
  EXPECT_EQ(cache.Allowed(key, "/old"), false);
  now_ += absl::Seconds(1);
  EXPECT_FALSE(cache.Known(key));
  EXPECT_EQ(cache.Allowed(key, "/old"), std::nullopt) << "must be refetched";
  EXPECT_EQ(cache.size(), 0u);
  // The refetched file replaces the old one, for another 24 hours.
  cache.Store(key, Rules("User-agent: *\nDisallow: /new\n"));
  EXPECT_EQ(cache.Allowed(key, "/old"), true);
  EXPECT_EQ(cache.Allowed(key, "/new"), false);
  now_ += absl::Hours(23);
  EXPECT_EQ(cache.Allowed(key, "/new"), false);
}

TEST_F(RobotsCacheTest, AllowAllExpiresToo) {
  RobotsCache cache(Options());
  const std::string key = RobotsCache::Key("http", "a.com", 80);
  cache.Store(key, InterpretRobotsResponse(Response(404), kAgent));
  EXPECT_EQ(cache.Allowed(key, "/x"), true);
  now_ += absl::Hours(25);
  EXPECT_EQ(cache.Allowed(key, "/x"), std::nullopt);
}

TEST_F(RobotsCacheTest, EvictsTheLeastRecentlyUsedOriginPastItsCapacity) {
  RobotsCache cache(Options(/*max_entries=*/2));
  const std::string a = RobotsCache::Key("http", "a.com", 80);
  const std::string b = RobotsCache::Key("http", "b.com", 80);
  const std::string c = RobotsCache::Key("http", "c.com", 80);
  cache.Store(a, Rules("User-agent: *\nDisallow: /\n"));
  cache.Store(b, Rules("User-agent: *\nDisallow: /\n"));
  EXPECT_EQ(cache.Allowed(a, "/x"), false);  // a is now the most recent.
  cache.Store(c, Rules("User-agent: *\nDisallow: /\n"));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Allowed(b, "/x"), std::nullopt) << "b was least recent";
  EXPECT_EQ(cache.Allowed(a, "/x"), false);
  EXPECT_EQ(cache.Allowed(c, "/x"), false);
}

TEST_F(RobotsCacheTest, EvictsTheLeastRecentlyUsedPastItsByteBudget) {
  std::string big = "User-agent: *\n";
  for (int i = 0; i < 2000; ++i)
    absl::StrAppend(&big, "Disallow: /p", i, "/\n");
  const RobotsVerdict large = Rules(big);
  const RobotsVerdict small = Rules("User-agent: *\nDisallow: /\n");
  ASSERT_GT(large.rules->approximate_bytes(),
            10 * small.rules->approximate_bytes());
  const std::string a = RobotsCache::Key("http", "a.com", 80);
  const std::string b = RobotsCache::Key("http", "b.com", 80);
  const std::string c = RobotsCache::Key("http", "c.com", 80);
  // What one small and one large entry cost (keys of equal length).
  RobotsCache measure(Options());
  measure.Store(a, small);
  const size_t one_small = measure.bytes();
  measure.Store(c, large);
  const size_t one_large = measure.bytes() - one_small;
  RobotsCacheOptions options = Options();
  options.max_bytes = one_large + one_small;  // Not room for two small ones.
  RobotsCache cache(options);
  cache.Store(a, small);
  cache.Store(b, small);
  EXPECT_EQ(cache.size(), 2u);
  cache.Store(c, large);  // Over budget: the oldest go first.
  EXPECT_LE(cache.bytes(), options.max_bytes);
  EXPECT_EQ(cache.Allowed(a, "/x"), std::nullopt);
  EXPECT_EQ(cache.Allowed(c, "/p7/x"), false);
  EXPECT_EQ(cache.Allowed(b, "/x"), false);
  cache.Forget(c);
  EXPECT_EQ(cache.bytes(), one_small);
}

// RFC 9309 2.3: rules apply to the protocol, host and port they came from.
TEST_F(RobotsCacheTest, KeepsHttpAndHttpsOfOneHostApart) {
  RobotsCache cache(Options());
  const std::string http = RobotsCache::Key("http", "h.com", 80);
  const std::string https = RobotsCache::Key("https", "h.com", 443);
  const std::string other_port = RobotsCache::Key("http", "h.com", 8080);
  EXPECT_NE(http, https);
  cache.Store(http, Rules("User-agent: *\nDisallow: /\n"));
  cache.Store(https, InterpretRobotsResponse(Response(404), kAgent));
  EXPECT_EQ(cache.Allowed(http, "/x"), false);
  EXPECT_EQ(cache.Allowed(https, "/x"), true);
  EXPECT_EQ(cache.Allowed(other_port, "/x"), std::nullopt);
}

TEST(RobotsCacheKeyTest, IsSchemeHostAndPortInOneSpelling) {
  EXPECT_EQ(RobotsCache::Key("HTTPS", "A.Com", 443), "https://a.com:443");
  EXPECT_EQ(RobotsCache::Key("http", "[::1]", 8080), "http://[::1]:8080");
}

TEST_F(RobotsCacheTest, ForgetDropsAnOrigin) {
  RobotsCache cache(Options());
  const std::string key = RobotsCache::Key("http", "a.com", 80);
  cache.Store(key, Rules("User-agent: *\nDisallow: /\n"));
  cache.Forget(key);
  EXPECT_EQ(cache.Allowed(key, "/x"), std::nullopt);
}

// Google: "429 ... treated as if the site is unavailable" (like 5xx).
TEST(InterpretRobotsResponseTest, A429IsUnavailableSoTheHostBacksOff) {
  EXPECT_EQ(InterpretRobotsResponse(Response(429), kAgent).kind,
            RobotsVerdict::kUnavailable);
  EXPECT_EQ(InterpretRobotsResponse(Response(503), kAgent).kind,
            RobotsVerdict::kUnavailable);
  RobotsCache cache;
  cache.Store("http://a.com:80",
              InterpretRobotsResponse(Response(429), kAgent));
  EXPECT_EQ(cache.Allowed("http://a.com:80", "/"), std::nullopt)
      << "an unavailable robots.txt is not stored";
}

// RFC 9309 2.3.1.
TEST(InterpretRobotsResponseTest, FollowsTheFetchStatusRules) {
  EXPECT_EQ(InterpretRobotsResponse(Response(404), kAgent).kind,
            RobotsVerdict::kAllowAll);
  EXPECT_EQ(InterpretRobotsResponse(Response(403), kAgent).kind,
            RobotsVerdict::kAllowAll);
  FetchResponse unreachable;
  unreachable.error = FetchError::kConnect;
  EXPECT_EQ(InterpretRobotsResponse(unreachable, kAgent).kind,
            RobotsVerdict::kUnavailable);
  FetchResponse blocked;
  blocked.error = FetchError::kBlockedAddress;
  EXPECT_EQ(InterpretRobotsResponse(blocked, kAgent).kind,
            RobotsVerdict::kUnavailable);
  FetchResponse too_many_redirects = Response(301);
  too_many_redirects.error = FetchError::kTooManyRedirects;
  EXPECT_EQ(InterpretRobotsResponse(too_many_redirects, kAgent).kind,
            RobotsVerdict::kAllowAll);
}

TEST(InterpretRobotsResponseTest, ReturnsCrawlDelayAndSitemaps) {
  const RobotsVerdict v = Rules(
      "Sitemap: https://a.com/s1.xml\nUser-agent: sievebot\n"
      "Crawl-delay: 2\nDisallow: /x\nSitemap: https://b.com/s2.xml\n");
  ASSERT_EQ(v.kind, RobotsVerdict::kRules);
  EXPECT_EQ(v.crawl_delay, absl::Seconds(2));
  EXPECT_THAT(v.sitemaps,
              ElementsAre("https://a.com/s1.xml", "https://b.com/s2.xml"));
  EXPECT_FALSE(v.rules->IsAllowed("/x"));
}

// Parser threads ask while the loop stores and the LRU evicts (run under TSan
// with the tsan label). Bounded: a fixed count of operations per thread.
TEST(RobotsCacheThreadsTest, AnswersWhileTheLoopStoresAndEvicts) {
  RobotsCache cache(RobotsCacheOptions{.max_entries = 8});
  const RobotsVerdict verdict = Rules("User-agent: *\nDisallow: /private\n");
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&cache, &wrong, t] {
      for (int i = 0; i < 20000; ++i) {
        const std::string key =
            RobotsCache::Key("http", absl::StrCat("h", (i + t) % 16), 80);
        const std::optional<bool> allowed = cache.Allowed(key, "/private/x");
        if (allowed.has_value() && *allowed) wrong.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < 20000; ++i) {
    cache.Store(RobotsCache::Key("http", absl::StrCat("h", i % 16), 80),
                verdict);
    if (i % 97 == 0) {
      cache.Forget(RobotsCache::Key("http", absl::StrCat("h", i % 5), 80));
    }
  }
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.size(), 8u);
}

}  // namespace
}  // namespace sieve
