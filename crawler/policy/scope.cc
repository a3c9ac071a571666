#include "crawler/policy/scope.h"

#include <arpa/inet.h>
#include <libpsl.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"

namespace sieve {
namespace {

// Debian's Abseil has its own string_view: hash-set lookups take that.
absl::string_view AbslView(std::string_view s) { return {s.data(), s.size()}; }

absl::Status CompilePatterns(const std::vector<std::string>& patterns,
                             std::string_view what,
                             std::vector<std::unique_ptr<re2::RE2>>& out) {
  for (const std::string& pattern : patterns) {
    auto re = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
    if (!re->ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("crawl.", std::string(what), ": pattern '", pattern,
                       "': ", re->error()));
    }
    out.push_back(std::move(re));
  }
  return absl::OkStatus();
}

// "example.com:8080" -> "example.com"; "[::1]:80" -> "[::1]".
std::string_view HostWithoutPort(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    return close == std::string_view::npos ? authority
                                           : authority.substr(0, close + 1);
  }
  size_t colon = authority.rfind(':');
  return colon == std::string_view::npos ? authority
                                         : authority.substr(0, colon);
}

// True when some segment of `path` (query excluded) occurs more than `max`
// times.
bool RepeatsSegments(std::string_view path_and_query, int max) {
  std::string_view path = path_and_query.substr(0, path_and_query.find('?'));
  const absl::InlinedVector<absl::string_view, 16> segments = absl::StrSplit(
      absl::string_view(path.data(), path.size()), '/', absl::SkipEmpty());
  if (segments.size() <= 16) {
    // Real paths have a few segments: compared in place, no allocation.
    for (size_t i = 0; i < segments.size(); ++i) {
      if (std::count(segments.begin() + i, segments.end(), segments[i]) > max)
        return true;
    }
    return false;
  }
  // Long paths (a trap's, a hostile URL's): counted in a map, linear time.
  absl::flat_hash_map<absl::string_view, int> counts;
  for (absl::string_view segment : segments) {
    if (++counts[segment] > max) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Scope> Scope::Create(
    const ScopeOptions& options, const std::vector<std::string>& seed_hosts) {
  Scope scope;
  scope.options_ = options;
  for (const std::string& host : seed_hosts) {
    scope.hosts_.insert(host);
    scope.domains_.insert(RegistrableDomain(HostWithoutPort(host)));
  }
  if (absl::Status s = CompilePatterns(options.allow, "allow", scope.allow_);
      !s.ok())
    return s;
  if (absl::Status s = CompilePatterns(options.deny, "deny", scope.deny_);
      !s.ok())
    return s;
  return scope;
}

bool Scope::AddSeedHost(std::string_view authority) {
  std::string domain = RegistrableDomain(HostWithoutPort(authority));
  std::unique_lock lock(*mu_);
  if (!hosts_.emplace(std::string(authority)).second) return false;
  domains_.insert(std::move(domain));
  return true;
}

bool Scope::IsSeedHost(std::string_view authority) const {
  std::shared_lock lock(*mu_);
  return hosts_.contains(AbslView(authority));
}

bool Scope::IsSeedDomain(std::string_view domain) const {
  std::shared_lock lock(*mu_);
  return domains_.contains(AbslView(domain));
}

Scope::Scope(Scope&&) noexcept = default;
Scope& Scope::operator=(Scope&&) noexcept = default;
Scope::~Scope() = default;

std::string Scope::RegistrableDomain(std::string_view host) {
  std::string name(host);
  // An IP address has no registrable domain (libpsl would treat "127.0.0.1" as
  // a name).
  in_addr v4;
  if (name.empty() || name.front() == '[' ||
      inet_pton(AF_INET, name.c_str(), &v4) == 1) {
    return name;
  }
  // psl_builtin() is the list compiled into libpsl: a static, read-only table
  // (thread-safe).
  const char* domain = psl_registrable_domain(psl_builtin(), name.c_str());
  return domain == nullptr ? name : std::string(domain);
}

ScopeVerdict Scope::Check(const UrlParts& url) const {
  return CheckUrl(url, /*requisite=*/false);
}

ScopeVerdict Scope::CheckRequisite(const UrlParts& url) const {
  return CheckUrl(url, /*requisite=*/true);
}

ScopeVerdict Scope::CheckUrl(const UrlParts& url, bool requisite) const {
  const std::string& u = url.normalized_url;
  if (options_.max_url_length > 0 && u.size() > options_.max_url_length) {
    return ScopeVerdict::kTooLong;
  }
  if (options_.max_path_segment_repeats > 0 &&
      RepeatsSegments(url.path_and_query, options_.max_path_segment_repeats)) {
    return ScopeVerdict::kRepeatedPath;
  }
  switch (requisite ? ScopeMode::kAny : options_.mode) {
    case ScopeMode::kHost: {
      std::shared_lock lock(*mu_);
      if (!hosts_.contains(url.Authority())) return ScopeVerdict::kOffSite;
      break;
    }
    case ScopeMode::kDomain: {
      const std::string domain = RegistrableDomain(url.host);
      std::shared_lock lock(*mu_);
      if (!domains_.contains(domain)) return ScopeVerdict::kOffSite;
      break;
    }
    case ScopeMode::kAny:
      break;
  }
  for (const auto& re : deny_) {
    if (re2::RE2::PartialMatch(u, *re)) return ScopeVerdict::kDenied;
  }
  if (!allow_.empty() && !requisite) {
    bool any = false;
    for (const auto& re : allow_) {
      if (re2::RE2::PartialMatch(u, *re)) {
        any = true;
        break;
      }
    }
    if (!any) return ScopeVerdict::kNotAllowed;
  }
  return ScopeVerdict::kInScope;
}

}  // namespace sieve
