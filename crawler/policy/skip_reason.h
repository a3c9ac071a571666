// crawler/policy/skip_reason.h: why a URL the crawl found was not fetched, the
// closed set of reasons skipped.jsonl and summary.json's counters.skipped use
// (docs/crawling.md, "Every URL's fate"). Written once, as an X-macro, for
// every list of them (the enum, the names, the summary, the metrics).
//
// Example:
//   sieve::SkipReason r = sieve::SkipReason::kOffScope;
//   std::string_view name = sieve::SkipReasonName(r);  // "off_scope"
#ifndef SIEVE_CRAWLER_POLICY_SKIP_REASON_H_
#define SIEVE_CRAWLER_POLICY_SKIP_REASON_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace sieve {

// X(enumerator, name): one line per reason, in the order files and metrics
// list them.
// clang-format off
#define SIEVE_SKIP_REASONS(X)                                               \
  X(kRobots, "robots")                   /* robots.txt disallows it */      \
  X(kOffScope, "off_scope")              /* another host or domain */       \
  X(kNotAllowed, "not_allowed")          /* matches no crawl.allow */       \
  X(kDenyPattern, "deny_pattern")        /* matches a crawl.deny */         \
  X(kNofollow, "nofollow")               /* rel/meta/X-Robots-Tag */        \
  X(kMaxDepth, "max_depth")              /* past crawl.max_depth */         \
  X(kMaxRedirects, "max_redirects")      /* past crawl.max_redirects */     \
  X(kTrapQuery, "trap_query")            /* past query variants cap */      \
  X(kTrapCalendar, "trap_calendar")      /* past date variants cap */       \
  X(kTrapSession, "trap_session")        /* seen with its session ID cut */ \
  X(kTrapRepeat, "trap_repeat")          /* a path segment repeated */      \
  X(kTrapLength, "trap_length")          /* past crawl.max_url_length */    \
  X(kOutlinkCap, "outlink_cap")          /* past max_outlinks_per_page */   \
  X(kHostPageCap, "host_page_cap")       /* its host reached its cap */     \
  X(kDomainBudget, "domain_budget")      /* its domain's budget is used */ \
  X(kSitemapLocation, "sitemap_location") /* strict sitemap location */     \
  X(kBlockedAddress, "blocked_address")  /* private address, refused */
// clang-format on

enum class SkipReason {
#define SIEVE_SKIP_ENUM(e, name) e,
  SIEVE_SKIP_REASONS(SIEVE_SKIP_ENUM)
#undef SIEVE_SKIP_ENUM
};

inline constexpr size_t kSkipReasonCount = 0
#define SIEVE_SKIP_COUNT(e, name) +1
    SIEVE_SKIP_REASONS(SIEVE_SKIP_COUNT)
#undef SIEVE_SKIP_COUNT
    ;

// Every reason, in order.
constexpr std::array<SkipReason, kSkipReasonCount> AllSkipReasons() {
  return {
#define SIEVE_SKIP_ALL(e, name) SkipReason::e,
      SIEVE_SKIP_REASONS(SIEVE_SKIP_ALL)
#undef SIEVE_SKIP_ALL
  };
}

// "off_scope" for kOffScope: the name files and metrics use.
constexpr std::string_view SkipReasonName(SkipReason reason) {
  switch (reason) {
#define SIEVE_SKIP_NAME(e, name) \
  case SkipReason::e:            \
    return name;
    SIEVE_SKIP_REASONS(SIEVE_SKIP_NAME)
#undef SIEVE_SKIP_NAME
  }
  return "?";
}

// The reason named `name`, or nullopt.
constexpr std::optional<SkipReason> ParseSkipReason(std::string_view name) {
  for (SkipReason reason : AllSkipReasons()) {
    if (SkipReasonName(reason) == name) return reason;
  }
  return std::nullopt;
}

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_SKIP_REASON_H_
