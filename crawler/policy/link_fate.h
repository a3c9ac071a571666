// crawler/policy/link_fate.h: what becomes of a URL the crawl discovers (a
// link, a redirect target, a sitemap entry, a URL robots.txt forbids when it
// is handed out), written once: the outcome, the reason skipped.jsonl gives
// it, and the summary counter that counts it. The scope's verdict
// (scope.h), the link policy's outcome (link_policy.h), the skip reason
// (skip_reason.h) and the crawl's counters (crawler/loop/crawl_state.h) all
// read this table; nothing maps one to another by hand.
//
// Example:
//   sieve::LinkOutcomes links;
//   links.Count(sieve::AddOutcome::kDenied);  // links.filtered == 1
//   sieve::SkipReasonOf(sieve::AddOutcome::kDenied);  // kDenyPattern
#ifndef SIEVE_CRAWLER_POLICY_LINK_FATE_H_
#define SIEVE_CRAWLER_POLICY_LINK_FATE_H_

#include <cstdint>
#include <optional>

#include "crawler/policy/skip_reason.h"

namespace sieve {

// The counts of refused links, as CrawlCounters (crawler/loop/crawl_state.h)
// names them: a page's LinkOutcomes holds one of each and the crawl adds them
// into its counters by these names.
// clang-format off
#define SIEVE_LINK_COUNTERS(X)                                               \
  X(off_site)            /* Outside the scope. */                            \
  X(filtered)            /* Refused by allow/deny patterns. */               \
  X(traps)               /* Refused by trap control (outlink cap too). */    \
  X(query_variant_traps) /* Of traps: past the query variants cap. */        \
  X(calendar_traps)      /* Of traps: past the date variants cap. */         \
  X(beyond_depth)        /* Past max_depth. */                               \
  X(robots_disallowed)   /* robots.txt forbids it. */
// clang-format on

// X(outcome, skip reason, counter, sub-counter): one line per fate. `none`
// (SIEVE_FATE_NONE) where a fate has no skip reason or counter. kQueued is
// counted apart (LinkOutcomes::queued); kSeen and kInvalid are not counted.
// clang-format off
#define SIEVE_LINK_FATES(X)                                                   \
  X(kQueued,         none,            none,              none)                \
  X(kSeen,           none,            none,              none)  /* Sieve */   \
  X(kInvalid,        none,            none,              none)  /* !http */   \
  X(kOffSite,        kOffScope,       off_site,          none)                \
  X(kNotAllowed,     kNotAllowed,     filtered,          none)  /* allow */   \
  X(kDenied,         kDenyPattern,    filtered,          none)  /* deny */    \
  X(kTooLong,        kTrapLength,     traps,             none)                \
  X(kRepeatedPath,   kTrapRepeat,     traps,             none)                \
  X(kBeyondDepth,    kMaxDepth,       beyond_depth,      none)                \
  X(kDisallowed,     kRobots,         robots_disallowed, none)                \
  X(kOverOutlinkCap, kOutlinkCap,     traps,             none)                \
  X(kQueryVariants,  kTrapQuery,      traps,             query_variant_traps) \
  X(kCalendar,       kTrapCalendar,   traps,             calendar_traps) \
  X(kDomainBudget,   kDomainBudget,   traps,             none)  /* domain */
// clang-format on

enum class AddOutcome {
#define SIEVE_FATE_ENUM(e, reason, counter, sub) e,
  SIEVE_LINK_FATES(SIEVE_FATE_ENUM)
#undef SIEVE_FATE_ENUM
  // The scope's "in scope" (Scope::Check): the link goes on to the next
  // rule; queued only if every rule and the Sieve let it through.
  kInScope = kQueued,
};

// How the links of one page (or sitemap, or redirect) fared, one count per
// SIEVE_LINK_COUNTERS name.
struct LinkFateCounts {
  int64_t queued = 0;  // The Frontier queued them.
#define SIEVE_LINK_COUNTER_MEMBER(name) uint64_t name = 0;
  SIEVE_LINK_COUNTERS(SIEVE_LINK_COUNTER_MEMBER)
#undef SIEVE_LINK_COUNTER_MEMBER

  // Counts one link's outcome (the table's counter and sub-counter).
  void Count(AddOutcome outcome);
};

// The reason a URL refused with `outcome` is skipped; nullopt for kQueued,
// kSeen and kInvalid.
std::optional<SkipReason> SkipReasonOf(AddOutcome outcome);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_LINK_FATE_H_
