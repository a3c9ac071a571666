// crawler/policy/scope.h: which discovered URLs the crawl follows: the scope
// (the seeds' hosts, their registrable domains, or anywhere), RE2 allow/deny
// patterns, and trap control.
//
// Surprises first:
//   - Thread-safe after construction (RE2 and libpsl lookups are read-only), so
//     parser threads call Check concurrently.
//   - "domain" uses the public suffix list compiled into Debian's libpsl:
//     a.example.co.uk and b.example.co.uk share example.co.uk, but a.github.io
//     and b.github.io do not. An IP address or a single-label host
//     ("localhost") is its own domain.
//   - Hosts are compared with their port (UrlParts::Authority), so
//     127.0.0.1:8080 and 127.0.0.1:8081 are different hosts, as they are for
//     politeness.
//
// Example:
//   absl::StatusOr<sieve::Scope> scope =
//       sieve::Scope::Create({.mode = sieve::ScopeMode::kDomain}, {"a.com"});
//   if (scope->Check(parts) == sieve::ScopeVerdict::kInScope)
//     frontier.Add(...);
#ifndef SIEVE_CRAWLER_POLICY_SCOPE_H_
#define SIEVE_CRAWLER_POLICY_SCOPE_H_

#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "crawler/policy/link_fate.h"
#include "crawler/policy/scope_mode.h"
#include "parse/url.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace sieve {

struct ScopeOptions {
  // Which hosts count as on-site. Default: kHost.
  ScopeMode mode = ScopeMode::kHost;
  // RE2 patterns (partial match on the normalised URL). When non-empty a URL
  // must match one.
  std::vector<std::string> allow = {};
  // RE2 patterns; a URL matching one is skipped.
  std::vector<std::string> deny = {};
  // Longer URLs are skipped. 0 = no limit. Default: 2048.
  size_t max_url_length = 2048;
  // URLs whose path repeats one segment more than this are skipped
  // (/a/b/a/b/a/b/...). 0 = no limit. Default: 3.
  int max_path_segment_repeats = 3;
};

// The scope's answer: kInScope, or the fate of a link it refuses (kOffSite,
// kNotAllowed, kDenied, kTooLong, kRepeatedPath), from link_fate.h's table.
using ScopeVerdict = AddOutcome;

class Scope {
 public:
  // `seed_hosts` are the seeds' authorities (UrlParts::Authority()).
  // InvalidArgument for a pattern RE2 rejects (the message names the pattern).
  [[nodiscard]] static absl::StatusOr<Scope> Create(
      const ScopeOptions& options, const std::vector<std::string>& seed_hosts);
  Scope(Scope&&) noexcept;
  Scope& operator=(Scope&&) noexcept;
  ~Scope();

  // The verdict for `url`. Cost: one PSL lookup in "domain" mode, one RE2 match
  // per pattern, a shared lock.
  ScopeVerdict Check(const UrlParts& url) const;
  // The verdict for a page requisite (crawl.page_requisites): the same rules
  // but the host scope and the allow patterns, which describe the pages to
  // crawl, not what they embed; so never kOffSite or kNotAllowed.
  ScopeVerdict CheckRequisite(const UrlParts& url) const;

  // Takes `authority` in as a seed's host (a seed redirected to it: Heritrix's
  // "seeds redirect new seeds"); false when it already was one. Thread-safe.
  bool AddSeedHost(std::string_view authority);
  // Whether `authority` is a seed's host. Thread-safe.
  bool IsSeedHost(std::string_view authority) const;
  // Whether `domain` (a RegistrableDomain) is a seed's host's. Thread-safe.
  bool IsSeedDomain(std::string_view domain) const;

  // Registrable domain of `host` (without port) by the public suffix list;
  // `host` itself when it has none (IP address, single label, a public suffix).
  static std::string RegistrableDomain(std::string_view host);

 private:
  Scope() = default;
  ScopeVerdict CheckUrl(const UrlParts& url, bool requisite) const;
  ScopeOptions options_;
  // Guards hosts_ and domains_ (in a box, so the Scope moves).
  std::unique_ptr<std::shared_mutex> mu_ =
      std::make_unique<std::shared_mutex>();
  absl::flat_hash_set<std::string> hosts_;    // Seed authorities.
  absl::flat_hash_set<std::string> domains_;  // Their registrable domains.
  std::vector<std::unique_ptr<re2::RE2>> allow_;
  std::vector<std::unique_ptr<re2::RE2>> deny_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_SCOPE_H_
