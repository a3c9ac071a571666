#include "parse/url.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "parse/internal/url_canon.h"

namespace sieve {
namespace {

using url_internal::UrlComponents;

// ASCII case-insensitive glob match; '*' matches any run. Iterative with one
// backtrack point, so O(|pattern|·|text|) at worst.
bool GlobMatches(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() &&
               absl::ascii_tolower(static_cast<unsigned char>(pattern[p])) ==
                   absl::ascii_tolower(static_cast<unsigned char>(text[t]))) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string_view ParamName(std::string_view param) {
  return param.substr(0, param.find('='));
}

void ApplyQueryOptions(const UrlOptions& options, UrlComponents* url) {
  if (!url->has_query ||
      (options.drop_query_params.empty() && !options.sort_query))
    return;
  std::vector<std::string_view> params;
  for (size_t start = 0; start <= url->query.size();) {
    const size_t end = std::min(url->query.find('&', start), url->query.size());
    if (end > start)
      params.push_back(std::string_view(url->query).substr(start, end - start));
    start = end + 1;
  }
  std::erase_if(params, [&](std::string_view param) {
    return std::any_of(options.drop_query_params.begin(),
                       options.drop_query_params.end(),
                       [&](const std::string& pattern) {
                         return GlobMatches(pattern, ParamName(param));
                       });
  });
  if (options.sort_query) {
    std::stable_sort(params.begin(), params.end(),
                     [](std::string_view a, std::string_view b) {
                       return ParamName(a) < ParamName(b);
                     });
  }
  std::string query;
  for (std::string_view param : params) {
    if (!query.empty()) query += '&';
    query += param;
  }
  url->has_query = !query.empty();
  url->query = std::move(query);
}

void ApplyHostOptions(const UrlOptions& options, UrlComponents* url) {
  if (options.drop_www && url->host.starts_with("www.") &&
      url->host.find('.', 4) != std::string::npos && url->host.back() != '.') {
    url->host.erase(0, 4);
  }
}

absl::StatusOr<UrlComponents> Canonical(std::string_view base,
                                        std::string_view href,
                                        const UrlOptions& options) {
  absl::StatusOr<UrlComponents> url =
      url_internal::ResolveComponents(base, href);
  if (url.ok()) url_internal::ApplyUrlOptions(options, &*url);
  return url;
}

}  // namespace

void url_internal::ApplyUrlOptions(const UrlOptions& options,
                                   UrlComponents* url) {
  ApplyQueryOptions(options, url);
  ApplyHostOptions(options, url);
}

absl::StatusOr<std::string> ResolveUrl(std::string_view base,
                                       std::string_view href,
                                       const UrlOptions& options) {
  absl::StatusOr<UrlComponents> url = Canonical(base, href, options);
  if (!url.ok()) return url.status();
  return url->Assemble();
}

absl::StatusOr<std::string> NormalizeUrl(std::string_view url,
                                         const UrlOptions& options) {
  return ResolveUrl("", url, options);
}

std::string UrlParts::Authority() const {
  const bool default_port =
      (scheme == "http" && port == 80) || (scheme == "https" && port == 443);
  return default_port ? host : absl::StrCat(host, ":", port);
}

absl::StatusOr<UrlParts> SplitUrl(std::string_view url,
                                  const UrlOptions& options) {
  absl::StatusOr<UrlComponents> components = Canonical("", url, options);
  if (!components.ok()) return components.status();
  UrlParts parts;
  parts.scheme = components->scheme;
  parts.host = components->host;
  parts.port = components->EffectivePort();
  parts.path_and_query =
      components->has_query
          ? absl::StrCat(components->path, "?", components->query)
          : components->path;
  parts.normalized_url = components->Assemble();
  return parts;
}

absl::StatusOr<UrlParts> SplitNormalizedUrl(std::string_view url) {
  const auto invalid = [url] {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a normalised URL: ", std::string(url.substr(0, 200))));
  };
  UrlParts parts;
  if (url.starts_with("https://")) {
    parts.scheme = "https";
  } else if (url.starts_with("http://")) {
    parts.scheme = "http";
  } else {
    return invalid();
  }
  const std::string_view rest = url.substr(parts.scheme.size() + 3);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return invalid();
  std::string_view authority = rest.substr(0, slash);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
  // The port follows the last ':' but for one inside an IPv6 literal.
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  std::string_view host = authority;
  parts.port = parts.scheme == "https" ? 443 : 80;
  if (colon != std::string_view::npos &&
      (bracket == std::string_view::npos || colon > bracket)) {
    host = authority.substr(0, colon);
    const std::string_view digits = authority.substr(colon + 1);
    if (digits.empty() || digits.size() > 5 ||
        !absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()),
                          &parts.port)) {
      return invalid();
    }
  }
  if (host.empty()) return invalid();
  parts.host = std::string(host);
  parts.path_and_query = std::string(rest.substr(slash));
  parts.normalized_url = std::string(url);
  return parts;
}

}  // namespace sieve
