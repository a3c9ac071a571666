#include "parse/internal/url_canon.h"

#include <charconv>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "parse/internal/curl_url.h"
#include "parse/internal/fast_path.h"
#include "parse/internal/host.h"
#include "parse/internal/percent.h"

namespace sieve::url_internal {
namespace {

absl::Status Invalid(std::string_view why, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(why), ": \"", std::string(what), "\""));
}

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed
// by ':'. Returns the lower-cased scheme and sets *colon, or returns "" when
// `s` has none.
std::string SchemeOf(std::string_view s, size_t* colon) {
  if (s.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(s[0])))
    return "";
  for (size_t i = 1; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ':') {
      *colon = i;
      std::string scheme(s.substr(0, i));
      absl::AsciiStrToLower(&scheme);
      return scheme;
    }
    if (!absl::ascii_isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return "";
}

// In special (http/https) URLs a browser reads '\' as '/' before the query (URL
// Standard, "path state" and "authority state").
void BackslashesToSlashes(std::string* s) {
  for (char& c : *s) {
    if (c == '?' || c == '#') return;
    if (c == '\\') c = '/';
  }
}

std::string_view StripLeadingSlashes(std::string_view s) {
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  return s;
}

std::string_view CutFragment(std::string_view s) {
  return s.substr(0, s.find('#'));
}

// Escapes what a browser escapes, then brings escapes to one spelling (RFC 3986
// §6.2.2).
std::string CanonicalPiece(std::string_view raw, EncodeSet set) {
  std::string encoded;
  encoded.reserve(raw.size());
  AppendEncoded(raw, set, &encoded);
  return NormalizeEscapes(encoded);
}

absl::StatusOr<std::string> CanonicalPort(std::string_view port,
                                          std::string_view scheme) {
  for (char c : port) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)))
      return Invalid("invalid port", port);
  }
  while (port.size() > 1 && port.front() == '0') port.remove_prefix(1);
  if (port.empty()) return std::string();
  int value = 0;
  if (port.size() > 5 ||
      std::from_chars(port.data(), port.data() + port.size(), value).ec !=
          std::errc() ||
      value > 65535) {
    return Invalid("port out of range", port);
  }
  if ((scheme == "http" && value == 80) || (scheme == "https" && value == 443))
    return std::string();
  return std::string(port);
}

// Parses "scheme://" + `rest` (leading slashes already stripped, '\' already
// '/').
absl::StatusOr<UrlComponents> ParseAbsolute(std::string_view scheme,
                                            std::string_view rest,
                                            Resolver resolver) {
  rest = CutFragment(rest);
  const size_t authority_end = std::min(rest.find_first_of("/?"), rest.size());
  const std::string_view authority = rest.substr(0, authority_end);
  const std::string_view tail = rest.substr(authority_end);

  UrlComponents url;
  url.scheme = std::string(scheme);
  // The last '@' ends the userinfo; earlier ones are escaped (URL Standard,
  // authority state).
  const size_t at = authority.rfind('@');
  std::string_view host_port = authority;
  if (at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    host_port = authority.substr(at + 1);
    const size_t colon = userinfo.find(':');
    const std::string user =
        CanonicalPiece(userinfo.substr(0, colon), EncodeSet::kUserinfo);
    const std::string password =
        colon == std::string_view::npos
            ? std::string()
            : CanonicalPiece(userinfo.substr(colon + 1), EncodeSet::kUserinfo);
    url.userinfo = password.empty() ? user : absl::StrCat(user, ":", password);
  }
  std::string_view raw_host = host_port;
  std::string_view raw_port;
  bool has_port = false;
  if (!host_port.empty() && host_port.front() == '[') {
    const size_t close = host_port.find(']');
    if (close == std::string_view::npos)
      return Invalid("unterminated IPv6 address", host_port);
    raw_host = host_port.substr(0, close + 1);
    const std::string_view after = host_port.substr(close + 1);
    if (!after.empty() && after.front() != ':')
      return Invalid("junk after IPv6 address", after);
    if (!after.empty()) raw_port = after.substr(1), has_port = true;
  } else if (const size_t colon = host_port.find(':');
             colon != std::string_view::npos) {
    raw_host = host_port.substr(0, colon);
    raw_port = host_port.substr(colon + 1);
    has_port = true;
  }
  if (raw_host.empty()) return Invalid("missing host", rest);
  absl::StatusOr<std::string> host = CanonicalizeHost(raw_host);
  if (!host.ok()) return host.status();
  if (has_port) {
    absl::StatusOr<std::string> port = CanonicalPort(raw_port, scheme);
    if (!port.ok()) return port.status();
    url.port = *std::move(port);
  }

  const size_t question = tail.find('?');
  url.path = CanonicalPiece(tail.substr(0, question), EncodeSet::kPath);
  if (question != std::string_view::npos) {
    url.has_query = true;
    url.query = CanonicalPiece(tail.substr(question + 1), EncodeSet::kQuery);
  }
  url.host = *std::move(host);
  if (resolver == Resolver::kFast && at == std::string_view::npos &&
      (IsPlainHostName(raw_host) || IsDottedQuad(raw_host)) &&
      url.path.size() <= kFastPathMaxBytes &&
      url.query.size() <= kFastPathMaxBytes) {
    // All libcurl would do here is remove dot segments (see fast_path.h); a
    // dotted quad as inet_ntop prints it is an IPv4 address it keeps as is
    // (ResolveRelative takes the same one).
    url.path = url.path.empty() ? "/" : RemoveDotSegments(url.path);
    return url;
  }
  const bool ipv4_like = EndsInANumber(url.host);
  if (ipv4_like && url.host.back() == '.')
    url.host.pop_back();  // "1.2.3.4." is 1.2.3.4

  // libcurl parses the assembled URL: it validates the host name, normalises
  // IPv4 ("0x7f.1") and IPv6 literals, and removes dot segments (RFC 3986
  // §5.2.4).
  const std::string assembled = url.Assemble();
  CurlUrl handle = MakeCurlUrl();
  if (!handle) return absl::ResourceExhaustedError("curl_url() failed");
  if (const CURLUcode rc =
          curl_url_set(handle.get(), CURLUPART_URL, assembled.c_str(), 0);
      rc != CURLUE_OK) {
    return Invalid(curl_url_strerror(rc), assembled);
  }
  std::optional<std::string> curl_host = GetPart(handle.get(), CURLUPART_HOST);
  std::optional<std::string> curl_path = GetPart(handle.get(), CURLUPART_PATH);
  if (!curl_host || curl_host->empty() || !curl_path)
    return Invalid("unparsable URL", assembled);
  if (ipv4_like && !IsDottedQuad(*curl_host)) {
    return Invalid("invalid IPv4 address", url.host);
  }
  url.host = *std::move(curl_host);
  url.path = curl_path->empty() ? "/" : *std::move(curl_path);
  return url;
}

// RFC 3986 §5.2 with `base` canonical and `ref` relative (no scheme, not "//").
absl::StatusOr<UrlComponents> ResolveRelative(const UrlComponents& base,
                                              std::string_view ref,
                                              Resolver resolver) {
  ref = CutFragment(ref);
  if (ref.empty()) return base;  // "" and "#frag" are the base document itself.
  const size_t question = ref.find('?');
  std::string prepared =
      CanonicalPiece(ref.substr(0, question), EncodeSet::kPath);
  // The base's path is not copied: the reference's replaces it but for "?y".
  UrlComponents url{.scheme = base.scheme,
                    .userinfo = base.userinfo,
                    .host = base.host,
                    .port = base.port,
                    .path = {},
                    .query = {},
                    .has_query = question != std::string_view::npos};
  if (url.has_query) {
    url.query = CanonicalPiece(ref.substr(question + 1), EncodeSet::kQuery);
    if (question == 0) {  // "?y": base path, new query.
      url.path = base.path;
      return url;
    }
  }
  if (resolver == Resolver::kFast && base.userinfo.empty() &&
      url.query.size() <= kFastPathMaxBytes &&
      (IsPlainHostName(base.host) || IsDottedQuad(base.host))) {
    if (std::optional<std::string> path =
            MergeRelativePath(base.path, prepared, url.has_query)) {
      url.path = path->empty() ? "/" : *std::move(path);
      return url;
    }
  }
  if (url.has_query) prepared += '?';
  // libcurl merges the path with the base's (RFC 3986 §5.2.3) and removes dot
  // segments. The query was taken above so libcurl's handling of an empty query
  // cannot change it.
  const std::string base_url = base.Assemble();
  CurlUrl handle = MakeCurlUrl();
  if (!handle) return absl::ResourceExhaustedError("curl_url() failed");
  CURLUcode rc = curl_url_set(handle.get(), CURLUPART_URL, base_url.c_str(), 0);
  if (rc == CURLUE_OK)
    rc = curl_url_set(handle.get(), CURLUPART_URL, prepared.c_str(), 0);
  if (rc != CURLUE_OK) return Invalid(curl_url_strerror(rc), ref);
  std::optional<std::string> path = GetPart(handle.get(), CURLUPART_PATH);
  if (!path) return Invalid("unparsable reference", ref);
  url.path = path->empty() ? "/" : *std::move(path);
  return url;
}

}  // namespace

int UrlComponents::EffectivePort() const {
  if (!port.empty()) return std::stoi(port);
  return scheme == "https" ? 443 : 80;
}

std::string UrlComponents::Assemble() const {
  std::string out;
  out.reserve(scheme.size() + userinfo.size() + host.size() + port.size() +
              path.size() + query.size() + 6);
  absl::StrAppend(&out, scheme, "://");
  if (!userinfo.empty()) absl::StrAppend(&out, userinfo, "@");
  out += host;
  if (!port.empty()) absl::StrAppend(&out, ":", port);
  out += path.empty() ? "/" : path;
  if (has_query) absl::StrAppend(&out, "?", query);
  return out;
}

namespace {

// `in` without leading and trailing C0 controls and spaces.
std::string_view TrimC0AndSpace(std::string_view in) {
  while (!in.empty() && static_cast<unsigned char>(in.front()) <= 0x20)
    in.remove_prefix(1);
  while (!in.empty() && static_cast<unsigned char>(in.back()) <= 0x20)
    in.remove_suffix(1);
  return in;
}

bool HasTabOrNewline(std::string_view in) {
  return in.find('\t') != std::string_view::npos ||
         in.find('\n') != std::string_view::npos ||
         in.find('\r') != std::string_view::npos;
}

}  // namespace

std::string Preprocess(std::string_view in) {
  in = TrimC0AndSpace(in);
  // Almost every href has none of the three: three memchr and one copy.
  if (!HasTabOrNewline(in)) return std::string(in);
  std::string out;
  out.reserve(in.size());
  for (char c : in) {
    if (c != '\t' && c != '\n' && c != '\r') out.push_back(c);
  }
  return out;
}

std::string LeadingScheme(std::string_view href) {
  size_t colon = 0;
  const std::string_view trimmed = TrimC0AndSpace(href);
  if (!HasTabOrNewline(trimmed)) return SchemeOf(trimmed, &colon);
  return SchemeOf(Preprocess(href), &colon);
}

absl::StatusOr<UrlComponents> ResolveComponents(std::string_view base,
                                                std::string_view href,
                                                Resolver resolver) {
  if (base.empty()) {
    return ResolveAgainst(
        absl::InvalidArgumentError("relative URL without a base"), href,
        resolver);
  }
  return ResolveAgainst(ResolveComponents("", base, resolver), href, resolver);
}

absl::StatusOr<UrlComponents> ResolveAgainst(
    const absl::StatusOr<UrlComponents>& base_url, std::string_view href,
    Resolver resolver) {
  std::string ref = Preprocess(href);
  size_t colon = 0;
  const std::string scheme = SchemeOf(ref, &colon);
  if (!scheme.empty() && scheme != "http" && scheme != "https") {
    return Invalid("unsupported scheme (only http and https)", scheme);
  }
  if (!scheme.empty()) ref.erase(0, colon + 1);
  BackslashesToSlashes(&ref);
  const bool network_path = ref.size() >= 2 && ref[0] == '/' && ref[1] == '/';
  if (!scheme.empty()) {
    // "http:foo" is relative to an http base (URL Standard, special relative or
    // authority state); otherwise it is "http://foo".
    if (!network_path && base_url.ok() && base_url->scheme == scheme) {
      return ResolveRelative(*base_url, ref, resolver);
    }
    return ParseAbsolute(scheme, StripLeadingSlashes(ref), resolver);
  }
  if (!base_url.ok()) return base_url.status();
  if (network_path)
    return ParseAbsolute(base_url->scheme, StripLeadingSlashes(ref), resolver);
  return ResolveRelative(*base_url, ref, resolver);
}

}  // namespace sieve::url_internal
