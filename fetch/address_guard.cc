#include "fetch/address_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace sieve {
namespace {

struct Ipv4Range {
  uint32_t base;  // Host byte order.
  int prefix_bits;
  absl::string_view name;
};

// IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates), the
// entries that are not globally reachable, plus multicast (RFC 5771). Order
// matters only where ranges nest: the broadcast address before 240.0.0.0/4.
constexpr Ipv4Range kBlockedIpv4[] = {
    {0x00000000, 8, "\"this network\" 0.0.0.0/8"},
    {0x0A000000, 8, "private 10.0.0.0/8"},
    {0x64400000, 10, "shared address space (CGNAT) 100.64.0.0/10"},
    {0x7F000000, 8, "loopback 127.0.0.0/8"},
    {0xA9FE0000, 16, "link-local 169.254.0.0/16"},
    {0xAC100000, 12, "private 172.16.0.0/12"},
    {0xC0000000, 24, "IETF protocol assignments 192.0.0.0/24"},
    {0xC0000200, 24, "documentation 192.0.2.0/24"},
    {0xC0586300, 24, "6to4 relay anycast 192.88.99.0/24"},
    {0xC0A80000, 16, "private 192.168.0.0/16"},
    {0xC6120000, 15, "benchmarking 198.18.0.0/15"},
    {0xC6336400, 24, "documentation 198.51.100.0/24"},
    {0xCB007100, 24, "documentation 203.0.113.0/24"},
    {0xE0000000, 4, "multicast 224.0.0.0/4"},
    {0xFFFFFFFF, 32, "broadcast 255.255.255.255"},
    {0xF0000000, 4, "reserved 240.0.0.0/4"},
};

bool InIpv4Range(uint32_t address, const Ipv4Range& range) {
  const uint32_t mask =
      range.prefix_bits == 0 ? 0 : ~uint32_t{0} << (32 - range.prefix_bits);
  return (address & mask) == range.base;
}

uint32_t Ipv4At(const std::array<uint8_t, 16>& a, size_t offset) {
  return uint32_t{a[offset]} << 24 | uint32_t{a[offset + 1]} << 16 |
         uint32_t{a[offset + 2]} << 8 | uint32_t{a[offset + 3]};
}

// True when the first `bytes` bytes of `a` equal `prefix`.
bool StartsWith(const std::array<uint8_t, 16>& a,
                std::initializer_list<uint8_t> prefix) {
  size_t i = 0;
  for (uint8_t byte : prefix) {
    if (a[i++] != byte) return false;
  }
  return true;
}

}  // namespace

std::optional<absl::string_view> BlockedIpv4Range(uint32_t address) {
  for (const Ipv4Range& range : kBlockedIpv4) {
    if (InIpv4Range(address, range)) return range.name;
  }
  return std::nullopt;
}

std::optional<absl::string_view> BlockedIpv6Range(
    const std::array<uint8_t, 16>& a) {
  // ::/96 holds the unspecified and loopback addresses and the deprecated
  // IPv4-compatible form (RFC 4291 2.5.5.1); none is reachable on the web.
  if (StartsWith(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})) {
    const uint32_t low = Ipv4At(a, 12);
    if (low == 0) return "unspecified ::";
    if (low == 1) return "loopback ::1";
    return "IPv4-compatible ::/96";
  }
  // IPv4-mapped ::ffff:0:0/96 (RFC 4291 2.5.5.2): the IPv4 address decides.
  if (StartsWith(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF})) {
    return BlockedIpv4Range(Ipv4At(a, 12));
  }
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the IPv4 address decides.
  if (StartsWith(a, {0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0})) {
    return BlockedIpv4Range(Ipv4At(a, 12));
  }
  // Everything outside global unicast 2000::/3: unique-local fc00::/7,
  // link-local fe80::/10, multicast ff00::/8, the IPv4-translated
  // ::ffff:0:0:0/96, local-use NAT64 64:ff9b:1::/48, discard 100::/64, and
  // the unassigned rest.
  if ((a[0] & 0xE0) != 0x20) {
    if ((a[0] & 0xFE) == 0xFC) return "unique-local fc00::/7";
    if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80) return "link-local fe80::/10";
    if (a[0] == 0xFE && (a[1] & 0xC0) == 0xC0) return "site-local fec0::/10";
    if (a[0] == 0xFF) return "multicast ff00::/8";
    return "reserved (outside global unicast 2000::/3)";
  }
  if (StartsWith(a, {0x20, 0x01, 0x0D, 0xB8})) {
    return "documentation 2001:db8::/32";
  }
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] < 0x02) {
    return "IETF protocol assignments 2001::/23";
  }
  if (a[0] == 0x3F && a[1] == 0xFF && (a[2] & 0xF0) == 0) {
    return "documentation 3fff::/20";
  }
  // 6to4 2002::/16 (RFC 3056) carries an IPv4 address in bits 16..47.
  if (a[0] == 0x20 && a[1] == 0x02) {
    if (BlockedIpv4Range(Ipv4At(a, 2)).has_value()) {
      return "6to4 2002::/16 of a refused IPv4 address";
    }
  }
  return std::nullopt;
}

std::optional<absl::string_view> BlockedAddressRange(const sockaddr& address) {
  if (address.sa_family == AF_INET) {
    sockaddr_in v4;
    std::memcpy(&v4, &address, sizeof(v4));
    return BlockedIpv4Range(ntohl(v4.sin_addr.s_addr));
  }
  if (address.sa_family == AF_INET6) {
    sockaddr_in6 v6;
    std::memcpy(&v6, &address, sizeof(v6));
    std::array<uint8_t, 16> bytes;
    std::memcpy(bytes.data(), &v6.sin6_addr, bytes.size());
    return BlockedIpv6Range(bytes);
  }
  return "not an IP address";
}

std::string AddressText(const sockaddr& address) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (address.sa_family == AF_INET) {
    sockaddr_in v4;
    std::memcpy(&v4, &address, sizeof(v4));
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
  } else if (address.sa_family == AF_INET6) {
    sockaddr_in6 v6;
    std::memcpy(&v6, &address, sizeof(v6));
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
  }
  return text;
}

}  // namespace sieve
