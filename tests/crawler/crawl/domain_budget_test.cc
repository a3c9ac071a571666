// The per-registrable-domain budget (crawler/policy/domain_budget.h): a
// domain gets `base` pages, more per distinct other domain linking to it; the
// table is bounded and survives a checkpoint.
#include "crawler/policy/domain_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

TEST(DomainBudgetTest, ADomainGetsItsBaseBudgetAndNoMore) {
  DomainBudget budget({.base = 5, .per_referrer = 3});
  int admitted = 0;
  for (int i = 0; i < 20; ++i) admitted += budget.Admit("spam.test") ? 1 : 0;
  EXPECT_EQ(admitted, 5);
  EXPECT_EQ(budget.Count("spam.test"), 5u);
  EXPECT_EQ(budget.stats().refused, 15u);
}

TEST(DomainBudgetTest, EachReferringDomainRaisesTheBudgetOnce) {
  DomainBudget budget({.base = 5, .per_referrer = 3});
  budget.NoteLink("spam.test", "spam.test");  // Its own links earn nothing.
  EXPECT_EQ(budget.BudgetOf("spam.test"), 5u);
  for (int i = 0; i < 10; ++i) {
    budget.NoteLink(absl::StrCat("d", i, ".test"), "site.test");
    budget.NoteLink(absl::StrCat("d", i, ".test"), "site.test");  // Again.
  }
  // 10 referrers, estimated by linear counting (exact to within one here).
  EXPECT_NEAR(static_cast<double>(budget.BudgetOf("site.test")), 5 + 3 * 10, 3);
  // Many referrers: the estimate stays within 3 standard deviations.
  for (int i = 0; i < 200; ++i)
    budget.NoteLink(absl::StrCat("r", i, ".test"), "big.test");
  const double referrers = (budget.BudgetOf("big.test") - 5) / 3.0;
  EXPECT_NEAR(referrers, 200, 50);  // sd ~17 at 200 in 128 bits.
}

TEST(DomainBudgetTest, AnOffBudgetAdmitsEverything) {
  DomainBudget off({.base = 0, .per_referrer = 0});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(off.Admit("any.test"));
  EXPECT_EQ(off.stats().domains, 0u);
}

TEST(DomainBudgetTest, AReleasedPageIsGivenBack) {
  DomainBudget budget({.base = 2, .per_referrer = 0});
  ASSERT_TRUE(budget.Admit("a.test"));
  budget.Release("a.test");  // The frontier had seen it.
  EXPECT_TRUE(budget.Admit("a.test"));
  EXPECT_TRUE(budget.Admit("a.test"));
  EXPECT_FALSE(budget.Admit("a.test"));
}

// The table is fixed: more domains than slots evict the least used, and a
// domain at its budget (many pages) is kept.
TEST(DomainBudgetTest, TheTableIsBoundedAndKeepsTheDomainsAtTheirBudget) {
  DomainBudget budget({.base = 3, .per_referrer = 0, .table_slots = 64});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(budget.Admit("trap.test"));
  for (int i = 0; i < 10000; ++i) budget.Admit(absl::StrCat("d", i, ".test"));
  const DomainBudgetStats stats = budget.stats();
  EXPECT_EQ(stats.slots, 64u);
  EXPECT_LE(stats.domains, 64u);
  EXPECT_GT(stats.evicted, 9000u);
  EXPECT_EQ(budget.bytes(), 64u * 32u);
  EXPECT_FALSE(budget.Admit("trap.test"));  // Still remembered, still full.
}

TEST(DomainBudgetTest, SaveAndLoadKeepCountsAndReferrers) {
  DomainBudget budget({.base = 2, .per_referrer = 10});
  budget.NoteLink("x.test", "a.test");
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(budget.Admit("a.test"));
  ASSERT_FALSE(budget.Admit("a.test"));
  DomainBudget restored({.base = 2, .per_referrer = 10});
  ASSERT_TRUE(restored.Load(budget.Save()).ok());
  EXPECT_EQ(restored.Count("a.test"), 12u);
  EXPECT_EQ(restored.BudgetOf("a.test"), 12u);
  EXPECT_FALSE(restored.Admit("a.test"));
  EXPECT_FALSE(restored.Load("short").ok());
}

// Parser threads racing on one domain never pass its budget.
// Resident bytes of this process (/proc/self/statm), 0 when unreadable.
size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// The table takes RAM as domains come, not all at once: a crawl within the
// seeds' domains (one documentation site) never pays for its 8 MiB.
TEST(DomainBudgetTest, AnUnusedTableTakesNoRam) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's calloc writes the block it returns: the "
                  "RSS says nothing of the table here";
#endif
  const size_t before = ResidentBytes();
  if (before == 0) GTEST_SKIP() << "no /proc/self/statm";
  DomainBudget budget({});  // 2^18 slots, 8 MiB.
  ASSERT_EQ(budget.bytes(), size_t{8} << 20);
  EXPECT_LT(ResidentBytes(), before + (size_t{2} << 20));
  EXPECT_TRUE(budget.Admit("one.test"));
}

// A checkpoint of a table no domain touched reads none of it: the walk over
// 8 MiB of untouched calloc'd pages faulted each one in (2,048 minor faults).
TEST(DomainBudgetTest, SavingAnUnusedTableReadsNoPage) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's calloc writes the block it returns: its "
                  "pages are in before Save";
#endif
  DomainBudget budget({});  // 2^18 slots, 8 MiB.
  rusage before{};
  getrusage(RUSAGE_THREAD, &before);
  EXPECT_EQ(budget.Save(), "");
  rusage after{};
  getrusage(RUSAGE_THREAD, &after);
  EXPECT_LT(after.ru_minflt - before.ru_minflt, 64);
}

TEST(DomainBudgetTest, ConcurrentAdmitsNeverPassTheBudget) {
  DomainBudget budget({.base = 1000, .per_referrer = 0});
  std::vector<std::thread> threads;
  std::atomic<int> admitted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        if (budget.Admit("race.test")) admitted.fetch_add(1);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(admitted.load(), 1000);
}

}  // namespace
}  // namespace sieve
