// fetch/address_guard.h: which IP addresses a crawler must not connect to
// unless told to: loopback, private, link-local, shared (CGNAT), unique-local,
// multicast, unspecified, reserved and documentation ranges, and the IPv6
// forms that carry one of these IPv4 addresses inside (IPv4-mapped,
// IPv4-compatible, 6to4, NAT64).
//
// The Fetcher asks this for every socket curl is about to open (libcurl's
// CURLOPT_OPENSOCKETFUNCTION), so what is checked is the address actually
// connected, after DNS, for every redirect curl follows: a DNS answer, DNS
// rebinding or a redirect cannot lead a fetch to an address this refuses.
// FetchOptions::allow_private_addresses and private_address_hosts say when it
// is allowed anyway.
//
// The ranges are those of the IANA special-purpose address registries (IPv4
// RFC 6890 and updates; IPv6 likewise) that are not globally reachable, as
// SSRF guards such as Go's code.dny.dev/ssrf and Python's ipaddress.is_global
// draw them. IPv6 is allowed only inside global unicast 2000::/3, and there
// not in 2001::/23 (IETF protocol assignments, Teredo), 2001:db8::/32 and
// 3fff::/20 (documentation), nor a 6to4 2002::/16 address whose IPv4 is
// refused.
//
// Example:
//   sockaddr_in a{.sin_family = AF_INET};
//   inet_pton(AF_INET, "169.254.169.254", &a.sin_addr);
//   sieve::BlockedAddressRange(reinterpret_cast<const sockaddr&>(a));
//   // -> "link-local 169.254.0.0/16"
#ifndef SIEVE_FETCH_ADDRESS_GUARD_H_
#define SIEVE_FETCH_ADDRESS_GUARD_H_

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace sieve {

// The name of the refused range `address` falls in ("loopback 127.0.0.0/8"),
// or nullopt for a globally reachable address. An address family other than
// AF_INET and AF_INET6 is refused ("not an IP address"). REQUIRES: `address`
// starts a whole sockaddr_in or sockaddr_in6 when its family says so. Pure;
// O(1).
std::optional<absl::string_view> BlockedAddressRange(const sockaddr& address);

// The same for an IPv4 address in host byte order (127.0.0.1 = 0x7F000001),
// and an IPv6 address in network byte order.
std::optional<absl::string_view> BlockedIpv4Range(uint32_t address);
std::optional<absl::string_view> BlockedIpv6Range(
    const std::array<uint8_t, 16>& address);

// `address` as text ("127.0.0.2", "::1"), for messages. "?" when it is neither
// IPv4 nor IPv6.
std::string AddressText(const sockaddr& address);

}  // namespace sieve

#endif  // SIEVE_FETCH_ADDRESS_GUARD_H_
