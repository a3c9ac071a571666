// Host canonicalisation done before libcurl sees a URL. Private to
// sieve::parse.
//
// libcurl 7.88 validates host names and normalises IPv4/IPv6 literals, but it
// neither lower-cases names nor maps international names the way browsers do
// (its own IDN path goes through the process locale). This file does the WHATWG
// "host parser" steps around it: https://url.spec.whatwg.org/#host-parsing.
// Thread-safe, no state.
#ifndef SIEVE_PARSE_INTERNAL_HOST_H_
#define SIEVE_PARSE_INTERNAL_HOST_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve::url_internal {

// Percent-decodes `raw`, maps a non-ASCII name to punycode with libidn2 (UTS
// #46, non- transitional), lower-cases it and rejects forbidden domain code
// points. An IPv6 literal
// ("[...]") is returned unchanged for libcurl to validate. Cost: O(|raw|); IDNA
// only for non-ASCII names.
absl::StatusOr<std::string> CanonicalizeHost(std::string_view raw);

// WHATWG "ends in a number": the last label (ignoring one trailing dot) is all
// digits or "0x" hex. Such a host must be a valid IPv4 address, or the URL is
// rejected.
bool EndsInANumber(std::string_view host);

// True if `host` is a dotted quad of four decimal numbers, as libcurl prints a
// normalised IPv4.
bool IsDottedQuad(std::string_view host);

}  // namespace sieve::url_internal

#endif  // SIEVE_PARSE_INTERNAL_HOST_H_
