// The private-address classifier (fetch/address_guard.h) over IPv4 and IPv6,
// and the host keys the allowed set is compared in.
#include "fetch/address_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

#include "fetch/internal/address_policy.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

// `text` as a socket address (AF_INET or AF_INET6); aborts the test on bad
// text.
sockaddr_storage Parse(const std::string& text) {
  sockaddr_storage storage{};
  if (text.find(':') == std::string::npos) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    EXPECT_EQ(inet_pton(AF_INET, text.c_str(), &v4->sin_addr), 1) << text;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    EXPECT_EQ(inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr), 1) << text;
  }
  return storage;
}

std::optional<absl::string_view> RangeOf(const std::string& text) {
  const sockaddr_storage storage = Parse(text);
  return BlockedAddressRange(reinterpret_cast<const sockaddr&>(storage));
}

class BlockedAddressTest : public testing::TestWithParam<const char*> {};
class PublicAddressTest : public testing::TestWithParam<const char*> {};

TEST_P(BlockedAddressTest, IsRefused) {
  EXPECT_TRUE(RangeOf(GetParam()).has_value()) << GetParam();
}

TEST_P(PublicAddressTest, IsAllowed) {
  const std::optional<absl::string_view> range = RangeOf(GetParam());
  EXPECT_FALSE(range.has_value()) << GetParam() << " in " << *range;
}

INSTANTIATE_TEST_SUITE_P(
    Ipv4, BlockedAddressTest,
    testing::Values("0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255",
                    "100.64.0.1", "100.127.255.255", "127.0.0.1", "127.0.0.2",
                    "127.255.255.254", "169.254.169.254", "172.16.0.1",
                    "172.31.255.255", "192.0.0.170", "192.0.2.1", "192.88.99.1",
                    "192.168.1.1", "198.18.0.1", "198.19.255.255",
                    "198.51.100.7", "203.0.113.9", "224.0.0.1",
                    "239.255.255.250", "240.0.0.1", "255.255.255.255"));

INSTANTIATE_TEST_SUITE_P(
    Ipv6, BlockedAddressTest,
    testing::Values("::", "::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3",
                    "::ffff:169.254.169.254", "::ffff:0.0.0.0", "::127.0.0.1",
                    "::8.8.8.8",  // IPv4-compatible: deprecated, never routed.
                    "::ffff:0:8.8.8.8", "64:ff9b::127.0.0.1",
                    "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "100::1", "fc00::1",
                    "fd12:3456::1", "fe80::1", "febf::1", "fec0::1", "ff02::1",
                    "ff0e::1", "2001:db8::1",
                    "2001::1",  // Teredo.
                    "2001:1ff::1", "3fff::1", "2002:7f00:1::1",
                    "2002:c0a8:101::1", "4000::1", "::2"));

INSTANTIATE_TEST_SUITE_P(
    Ipv4, PublicAddressTest,
    testing::Values("1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0",
                    "100.63.255.255", "100.128.0.0", "126.255.255.255",
                    "128.0.0.0", "169.253.255.255", "169.255.0.0",
                    "172.15.255.255", "172.32.0.0", "192.0.1.1",
                    "192.167.255.255", "192.169.0.0", "198.17.255.255",
                    "198.20.0.0", "223.255.255.255"));

INSTANTIATE_TEST_SUITE_P(Ipv6, PublicAddressTest,
                         testing::Values("2606:4700:4700::1111",
                                         "2a00:1450:4001:80b::200e",
                                         "::ffff:8.8.8.8", "64:ff9b::8.8.8.8",
                                         "2002:808:808::1", "2001:200::1",
                                         "3fff:1000::1", "2c0f:f248::1"));

TEST(BlockedAddressRangeTest, NamesTheRange) {
  EXPECT_EQ(RangeOf("127.0.0.2"), "loopback 127.0.0.0/8");
  EXPECT_EQ(RangeOf("169.254.169.254"), "link-local 169.254.0.0/16");
  EXPECT_EQ(RangeOf("100.64.0.1"),
            "shared address space (CGNAT) 100.64.0.0/10");
  EXPECT_EQ(RangeOf("::ffff:192.168.0.1"), "private 192.168.0.0/16");
  EXPECT_EQ(RangeOf("fd00::1"), "unique-local fc00::/7");
  EXPECT_EQ(RangeOf("::"), "unspecified ::");
}

TEST(BlockedAddressRangeTest, RefusesWhatIsNotAnIpAddress) {
  sockaddr unix_address{};
  unix_address.sa_family = AF_UNIX;
  EXPECT_EQ(BlockedAddressRange(unix_address), "not an IP address");
}

TEST(BlockedAddressRangeTest, PrintsTheAddress) {
  const sockaddr_storage v4 = Parse("127.0.0.2");
  const sockaddr_storage v6 = Parse("fe80::1");
  EXPECT_EQ(AddressText(reinterpret_cast<const sockaddr&>(v4)), "127.0.0.2");
  EXPECT_EQ(AddressText(reinterpret_cast<const sockaddr&>(v6)), "fe80::1");
}

TEST(GuardHostKeyTest, ComparesHostsInOneSpelling) {
  EXPECT_EQ(fetch_internal::GuardHostKey("Intranet.Example."),
            "intranet.example");
  EXPECT_EQ(fetch_internal::GuardHostKey("[::1]"), "::1");
  EXPECT_EQ(fetch_internal::GuardHostKey("127.0.0.1"), "127.0.0.1");
}

TEST(AddressPolicyTest, AllowsPrivateAddressesOnlyToListedHosts) {
  FetchOptions options;
  options.private_address_hosts = {"seed.example", "[::1]"};
  const fetch_internal::AddressPolicy policy(options);
  const sockaddr_storage loopback = Parse("127.0.0.1");
  const sockaddr_storage public_v4 = Parse("8.8.8.8");
  const sockaddr_storage loopback_v6 = Parse("::1");
  const auto& lo = reinterpret_cast<const sockaddr&>(loopback);
  EXPECT_EQ(policy.Refusal("SEED.example", lo), "");
  EXPECT_EQ(
      policy.Refusal("[::1]", reinterpret_cast<const sockaddr&>(loopback_v6)),
      "");
  EXPECT_NE(policy.Refusal("other.example", lo), "");
  EXPECT_EQ(policy.Refusal("other.example",
                           reinterpret_cast<const sockaddr&>(public_v4)),
            "");
  options.allow_private_addresses = true;
  EXPECT_EQ(fetch_internal::AddressPolicy(options).Refusal("other.example", lo),
            "");
}

}  // namespace
}  // namespace sieve
