// crawler/policy/domain_budget.h: a budget of pages per registrable domain
// that grows with how many other domains link to it (IRLbot's STAR/BEAST,
// Lee, Leonard, Wang & Loguinov, "IRLbot: Scaling to 6 Billion Pages and
// Beyond", WWW 2008, section 6): a wildcard domain (`*.example` answering
// every name) or a spam farm that makes hosts without end cannot take over
// the frontier, since its hosts share one budget; a domain the web links to
// from many places earns a larger one.
//
//   budget(d) = base + per_referrer x referring_domains(d)
//
// `referring_domains(d)` counts the distinct registrable domains whose pages
// linked to d (a domain's links to itself earn nothing), estimated by linear
// counting over 128 bits (Whang, Vander-Zanden & Taylor, "A linear-time
// probabilistic counting algorithm", TODS 1990): n = -m ln(zero bits / m),
// m = 128, within ~10 % (one standard deviation) up to ~250 referrers and
// saturating at 621 (the estimate with one zero bit), so a domain's budget
// is at most base + 621 x per_referrer.
//
// Surprises first:
//   - Thread-safe: parser threads call Admit/Release/NoteLink concurrently.
//   - Admit reserves a page: a URL the frontier then refuses as seen gives it
//     back (Release), so a page's duplicates cost nothing and parsers racing
//     on one domain never pass its budget.
//   - The seeds' domains are exempt: the link policy does not ask for them
//     (the scope owns the seeds, crawler/policy/scope.h, IsSeedDomain).
//   - Bounded: `table_slots` slots of 32 bytes, set-associative (4 per
//     bucket, chosen by the domain's hash). A new domain in a full bucket
//     takes the slot of the domain with the fewest pages and referrers, so a
//     domain at its budget (many pages) is the last forgotten; a forgotten
//     domain starts again from zero. Domains are keyed by a 64-bit hash of
//     their name: two domains colliding (about one pair in 2^64/n) share one
//     count.
//   - Checkpointed: Save/Load write the table's used slots (32 bytes each),
//     so a resumed crawl keeps each domain's count and referrers.
//
// Example:
//   sieve::DomainBudget budget({.base = 10000, .per_referrer = 1000});
//   budget.NoteLink("blog.example", "spam.test");
//   if (budget.Admit("spam.test")) {
//     if (!frontier.Add(...)) budget.Release("spam.test");
//   }
#ifndef SIEVE_CRAWLER_POLICY_DOMAIN_BUDGET_H_
#define SIEVE_CRAWLER_POLICY_DOMAIN_BUDGET_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/statusor.h"

namespace sieve {

struct DomainBudgetOptions {
  // Pages queued per registrable domain with no referring domain.
  // 0 turns the budget off. REQUIRES: >= 0. Default: 10,000.
  uint64_t base = 10000;
  // Pages added per distinct other domain linking to it. REQUIRES: >= 0.
  // Default: 1,000.
  uint64_t per_referrer = 1000;
  // Slots of the table (rounded up to a power of two, at least 4): domains
  // tracked at once, 32 bytes each. REQUIRES: >= 1. Default: 2^18
  // (262,144 domains, 8 MiB).
  size_t table_slots = size_t{1} << 18;
};

// What the table holds now, for the summary and /metrics.
struct DomainBudgetStats {
  uint64_t domains = 0;  // Slots in use.
  uint64_t slots = 0;    // Slots in all (the budget).
  uint64_t refused = 0;  // Admit calls refused: URLs past a domain's budget.
  uint64_t evicted = 0;  // Domains forgotten to make room.
};

class DomainBudget {
 public:
  explicit DomainBudget(DomainBudgetOptions options);

  bool enabled() const { return options_.base > 0; }

  // Reserves one page of `domain`; false when the domain has reached its
  // budget (nothing reserved). Always true when off.
  // O(1).
  bool Admit(std::string_view domain);
  // Gives back a page Admit reserved (the frontier did not queue the URL).
  void Release(std::string_view domain);
  // A page of domain `from` links to a URL of domain `to`. Different domains:
  // `to` gets `from` as a referrer (raising its budget). O(1).
  void NoteLink(std::string_view from, std::string_view to);

  // Pages counted and budget of `domain` now (0 and base when not tracked).
  uint64_t Count(std::string_view domain) const;
  uint64_t BudgetOf(std::string_view domain) const;
  DomainBudgetStats stats() const;
  // Bytes the table takes (its slots): the budget's RAM.
  size_t bytes() const;

  // The used slots, as bytes to keep in a checkpoint; Load puts them back
  // into a table of any size (slots that do not fit are dropped as in a
  // full bucket). DataLoss when `saved` is not a whole number of slots.
  // Save reads the table up to its last used slot: nothing when no domain
  // was counted (a crawl of the seeds' domains), so no page is faulted in.
  std::string Save() const;
  [[nodiscard]] absl::Status Load(std::string_view saved);

 private:
  struct Slot {
    uint64_t key = 0;  // The domain's hash; 0 = empty.
    uint32_t count = 0;
    uint32_t spare = 0;
    uint64_t referrers[2] = {0, 0};  // Linear-counting bitmap.
  };
  static_assert(sizeof(Slot) == 32);
  static_assert(std::is_trivially_copyable_v<Slot>);  // Zeroed by calloc.
  static constexpr size_t kWays = 4;

  static uint64_t KeyOf(std::string_view domain);
  static uint64_t Referrers(const Slot& slot);
  uint64_t BudgetOfSlot(const Slot& slot) const;
  // The slot of `key`, or nullptr. REQUIRES: mu_ held.
  Slot* Find(uint64_t key);
  const Slot* Find(uint64_t key) const;
  // The slot of `key`, taken (evicting the least used way) when absent.
  // REQUIRES: mu_ held.
  Slot& Take(uint64_t key);

  const DomainBudgetOptions options_;
  mutable std::mutex mu_;
  struct Free {
    void operator()(Slot* slots) const { std::free(slots); }
  };
  // All-zero bytes are an empty Slot. Guarded by mu_.
  std::unique_ptr<Slot[], Free> slots_;
  size_t slot_count_ = 0;
  size_t mask_ = 0;          // Buckets - 1.
  DomainBudgetStats stats_;  // Guarded by mu_; domains kept current.
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_DOMAIN_BUDGET_H_
