#include "parse/internal/host.h"

#include <idn2.h>

#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "parse/internal/percent.h"

namespace sieve::url_internal {
namespace {

// https://url.spec.whatwg.org/#forbidden-domain-code-point (checked on the
// ASCII result).
bool IsForbiddenDomainByte(unsigned char c) {
  if (c <= 0x20 || c == 0x7F) return true;
  switch (c) {
    case '#':
    case '%':
    case '/':
    case ':':
    case '<':
    case '>':
    case '?':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '|':
      return true;
    default:
      return false;
  }
}

struct Idn2Free {
  void operator()(uint8_t* p) const { idn2_free(p); }
};

// UTS #46 ToASCII through libidn2. Non-transitional processing as the URL
// Standard asks (so "ß" stays "ß" and becomes "xn--zca"), NFC first.
absl::StatusOr<std::string> ToAscii(const std::string& name) {
  uint8_t* raw_out = nullptr;
  const int rc =
      idn2_lookup_u8(reinterpret_cast<const uint8_t*>(name.c_str()), &raw_out,
                     IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
  std::unique_ptr<uint8_t, Idn2Free> out(raw_out);
  if (rc != IDN2_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid international host name: ", idn2_strerror(rc)));
  }
  return std::string(reinterpret_cast<const char*>(out.get()));
}

}  // namespace

absl::StatusOr<std::string> CanonicalizeHost(std::string_view raw) {
  if (raw.empty()) return absl::InvalidArgumentError("empty host");
  if (raw.front() == '[')
    return std::string(raw);  // IPv6 literal: libcurl validates it.
  std::string host = DecodeAll(raw);
  bool ascii = true;
  for (char c : host) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  // An A-label ("xn--...") must decode (URL Standard: domain to ASCII validates
  // it); only then is an ASCII name passed through libidn2.
  const std::string lower = absl::AsciiStrToLower(host);
  const bool has_alabel =
      lower.starts_with("xn--") || lower.find(".xn--") != std::string::npos;
  if (!ascii || has_alabel) {
    absl::StatusOr<std::string> mapped = ToAscii(host);
    if (!mapped.ok()) return mapped.status();
    host = *std::move(mapped);
  }
  absl::AsciiStrToLower(&host);
  if (host.empty()) return absl::InvalidArgumentError("empty host");
  for (char c : host) {
    if (IsForbiddenDomainByte(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat("forbidden character in host: ", host));
    }
  }
  return host;
}

bool EndsInANumber(std::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  const size_t dot = host.rfind('.');
  std::string_view last =
      dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  bool digits = true;
  for (char c : last)
    digits = digits && absl::ascii_isdigit(static_cast<unsigned char>(c));
  if (digits) return true;
  if (last.size() >= 2 && last[0] == '0' &&
      (last[1] == 'x' || last[1] == 'X')) {
    for (char c : last.substr(2)) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  }
  return false;
}

bool IsDottedQuad(std::string_view host) {
  // Four decimal parts, each 0-255 without a leading zero, as inet_ntop prints
  // them.
  int dots = 0;
  std::string_view part;
  auto part_ok = [&part] {
    if (part.empty() || part.size() > 3 || (part.size() > 1 && part[0] == '0'))
      return false;
    return part.size() < 3 || part <= "255";
  };
  size_t start = 0;
  for (size_t i = 0; i <= host.size(); ++i) {
    if (i < host.size() && host[i] != '.') {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(host[i])))
        return false;
      continue;
    }
    part = host.substr(start, i - start);
    if (!part_ok()) return false;
    ++dots;
    start = i + 1;
  }
  return dots == 4;
}

}  // namespace sieve::url_internal
