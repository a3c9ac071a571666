// The frontier's host key of a URL under each politeness.key
// (crawler/policy/politeness_key.h). The key by IP through a real DNS server
// is crawler_crawl_per_ip_test's.
#include "crawler/policy/politeness_key.h"

#include <memory>

#include "gtest/gtest.h"

namespace sieve {
namespace {

UrlParts Parts(std::string_view url) {
  absl::StatusOr<UrlParts> parts = SplitUrl(url);
  EXPECT_TRUE(parts.ok()) << parts.status();
  return parts.ok() ? *parts : UrlParts{};
}

TEST(PolitenessKeyTest, NamesRoundTripAndBadOnesAreRefused) {
  for (PolitenessKey key : AllPolitenessKeys()) {
    absl::StatusOr<PolitenessKey> parsed =
        ParsePolitenessKey(PolitenessKeyName(key));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, key);
  }
  EXPECT_FALSE(ParsePolitenessKey("domain").ok());
}

TEST(PolitenessKeyTest, HostAndRegistrableDomainKeys) {
  const PolitenessKeys host(PolitenessKey::kHost, nullptr, absl::Seconds(1));
  EXPECT_EQ(host.KeyOf(Parts("http://a.example.co.uk:8080/x")),
            "a.example.co.uk:8080");
  const PolitenessKeys domain(PolitenessKey::kRegistrableDomain, nullptr,
                              absl::Seconds(1));
  EXPECT_EQ(domain.KeyOf(Parts("http://a.example.co.uk:8080/x")),
            "example.co.uk");
  EXPECT_EQ(domain.KeyOf(Parts("https://b.example.co.uk/")), "example.co.uk");
  EXPECT_EQ(domain.KeyOf(Parts("http://127.0.0.1:8080/")), "127.0.0.1");
  EXPECT_EQ(domain.KeyOf(Parts("http://[::1]:8080/")), "::1");
}

TEST(PolitenessKeyTest, IpKeyOfALiteralIsItselfAndOfAFailedNameTheHost) {
  // A server that refuses at once: 127.0.0.1 port 1.
  absl::StatusOr<std::unique_ptr<DnsCache>> dns =
      DnsCache::Create({.timeout = absl::Milliseconds(200),
                        .tries = 1,
                        .servers = {"127.0.0.1:1"}});
  ASSERT_TRUE(dns.ok()) << dns.status();
  const PolitenessKeys ip(PolitenessKey::kIp, dns->get(), absl::Seconds(2));
  EXPECT_EQ(ip.KeyOf(Parts("http://127.0.0.1:8080/")), "127.0.0.1");
  EXPECT_EQ(ip.KeyOf(Parts("http://[::1]:81/")), "::1");
  EXPECT_EQ(ip.KeyOf(Parts("http://no-such-host.invalid:81/")),
            "no-such-host.invalid:81");
}

}  // namespace
}  // namespace sieve
