// crawler/policy/trap_guard.h: trap control beyond the URL rules of Scope (URL
// length, repeated path segments): the traps real sites have.
//   - Query variants: at most `max_query_variants` distinct query strings are
//     queued per host and path (sorting, filtering and search pages that
//     combine parameters without end).
//   - Calendars: a URL whose path or query holds a date (YYYY-MM, YYYY/MM,
//     YYYYMM, YYYY-MM-DD, year=YYYY) is reduced to its pattern, every run of
//     digits replaced by '#' ("/cal/#/#/" for "/cal/2026/11/"); at most
//     `max_date_variants` URLs are queued per host and pattern. A calendar
//     linking the next day forever is one pattern; a blog's dated posts each
//     keep their own slug, so each is a pattern of its own.
//   - Session IDs in a ";jsessionid=..." path parameter are cut from the URL
//     (StripPathSessionId); those in the query are dropped by the URL
//     normaliser (url.session_id_params joins UrlOptions::drop_query_params)
//     and counted here (HasSessionIdParam).
//
// Surprises first:
//   - Thread-safe (parser threads share one guard). Admit and Queued are two
//     steps, so parsers racing on one path may queue a few URLs past a cap.
//   - Counts are kept for at most `max_tracked` paths and patterns (16 bytes
//     each); when the table is full it is cleared, so a trap path may get
//     another round of variants then. Counts are not checkpointed: a resumed
//     crawl starts them again.
//
// Example:
//   sieve::TrapGuard guard({.max_query_variants = 1000,
//                           .max_date_variants = 1000});
//   if (guard.Admit("h:80", "/cal/2026/11/?x=1") == sieve::TrapKind::kNone &&
//       frontier.Add(...))
//     guard.Queued("h:80", "/cal/2026/11/?x=1");
#ifndef SIEVE_CRAWLER_POLICY_TRAP_GUARD_H_
#define SIEVE_CRAWLER_POLICY_TRAP_GUARD_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace sieve {

struct TrapOptions {
  size_t max_query_variants = 0;  // Per host and path; 0 = no limit.
  size_t max_date_variants = 0;   // Per host and date pattern; 0 = no limit.
  size_t max_tracked = size_t{1} << 20;
};

enum class TrapKind {
  kNone,
  kQueryVariants,  // Past max_query_variants for its path.
  kCalendar,       // Past max_date_variants for its date pattern.
};

class TrapGuard {
 public:
  explicit TrapGuard(TrapOptions options) : options_(options) {}

  // Whether the URL (authority "host:port" and normalised path and query) may
  // still be queued. Cost: one scan of the path and a hash-map lookup or two.
  TrapKind Admit(std::string_view authority,
                 std::string_view path_and_query) const {
    return Admit(authority, path_and_query, nullptr);
  }
  // The same, and `*counted` (when not null) tells whether the URL has a
  // query or a date the guard counts: only then does Queued matter for it.
  TrapKind Admit(std::string_view authority, std::string_view path_and_query,
                 bool* counted) const;
  // Counts a URL the Frontier queued as new.
  void Queued(std::string_view authority, std::string_view path_and_query);

  // True when the query of `url` has a parameter whose name matches one of
  // `patterns` (ASCII case-insensitive; '*' matches any run), as
  // UrlOptions::drop_query_params matches them.
  static bool HasSessionIdParam(std::string_view url,
                                const std::vector<std::string>& patterns);
  // `url` without a ";jsessionid=..." path parameter (any case), or nullopt
  // when it has none.
  static std::optional<std::string> StripPathSessionId(std::string_view url);

 private:
  struct Keys {
    std::optional<uint64_t> query;  // Host and path, when there is a query.
    std::optional<uint64_t> date;   // Host and date pattern, when dated.
  };
  Keys KeysOf(std::string_view authority,
              std::string_view path_and_query) const;

  const TrapOptions options_;
  mutable std::mutex mu_;
  absl::flat_hash_map<uint64_t, uint32_t> query_counts_;  // Guarded by mu_.
  absl::flat_hash_map<uint64_t, uint32_t> date_counts_;   // Guarded by mu_.
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_TRAP_GUARD_H_
