// render/browser_pool.cc: slots of browsers, tabs counted per slot, crashes
// counted in a sliding window.
#include "render/browser_pool.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sieve {
namespace {

constexpr absl::Duration kMaxBackoff = absl::Seconds(60);

// A render error that means the browser itself is gone or hung (not the
// page's own failure, such as a crashed tab or a refused URL).
bool BrowserFailed(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

}  // namespace

absl::StatusOr<std::unique_ptr<BrowserPool>> BrowserPool::Create(
    const BrowserPoolOptions& options) {
  if (options.browsers < 1 || options.tabs < 1 ||
      options.pages_per_browser < 1 || options.max_browser_mb < 64 ||
      options.max_crashes < 1) {
    return absl::InvalidArgumentError(
        "render pool: browsers, tabs, pages_per_browser and max_crashes must "
        "be >= 1, max_browser_mb >= 64");
  }
  auto pool = std::unique_ptr<BrowserPool>(new BrowserPool(options));
  absl::StatusOr<std::unique_ptr<Browser>> first =
      Browser::Launch(options.browser, options.startup_timeout);
  if (!first.ok()) return first.status();
  absl::MutexLock lock(&pool->mu_);
  pool->slots_[0].browser = std::move(*first);
  ++pool->stats_.spawns;
  return pool;
}

BrowserPool::BrowserPool(const BrowserPoolOptions& options)
    : options_(options), slots_(static_cast<size_t>(options.browsers)) {}

BrowserPool::~BrowserPool() {
  std::vector<std::shared_ptr<Browser>> browsers;
  {
    absl::MutexLock lock(&mu_);
    for (Slot& slot : slots_) browsers.push_back(std::move(slot.browser));
  }
  browsers.clear();  // each kills its process group
}

absl::StatusOr<BrowserPool::Lease> BrowserPool::Acquire(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  while (true) {
    if (!disabled_.ok()) return disabled_;
    const absl::Time now = absl::Now();
    absl::Time wake = deadline;
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = slots_[i];
      if (slot.browser != nullptr && !slot.retiring &&
          slot.active < options_.tabs) {
        ++slot.active;
        return Lease{i, slot.browser};
      }
    }
    bool spawned = false;
    for (size_t i = 0; i < slots_.size() && !spawned; ++i) {
      Slot& slot = slots_[i];
      if (slot.browser != nullptr || slot.spawning) continue;
      if (slot.next_spawn > now) {
        wake = std::min(wake, slot.next_spawn);
        continue;
      }
      slot.spawning = true;
      mu_.Unlock();
      absl::StatusOr<std::unique_ptr<Browser>> launched =
          Browser::Launch(options_.browser, options_.startup_timeout);
      mu_.Lock();
      slot.spawning = false;
      ++changes_;
      if (launched.ok()) {
        slot.browser = std::move(*launched);
        ++stats_.spawns;
      } else {
        RecordCrashLocked(absl::Now());
        slot.next_spawn = absl::Now() + BackoffLocked();
      }
      spawned = true;
    }
    if (spawned) continue;  // look again: the slot, or another, may serve
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError("no browser tab came free in time");
    }
    // Woken by a Release (a tab freed, a slot emptied) or the next spawn.
    const int64_t seen = changes_;
    auto changed = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return changes_ != seen;
    };
    mu_.AwaitWithDeadline(absl::Condition(&changed), wake);
  }
}

absl::StatusOr<RenderResult> BrowserPool::Render(const PageToRender& page,
                                                 RenderHandler& handler,
                                                 const RenderOptions& options) {
  absl::StatusOr<Lease> lease = Acquire(absl::Now() + options.timeout);
  if (!lease.ok()) return lease.status();
  absl::StatusOr<RenderResult> result =
      lease->browser->Render(page, handler, options);
  std::shared_ptr<Browser> done = Release(*lease, result.status());
  lease->browser.reset();
  done.reset();  // outside the lock: kills the group, up to 0.5 s
  return result;
}

std::shared_ptr<Browser> BrowserPool::Release(const Lease& lease,
                                              const absl::Status& status) {
  const bool check_pss = lease.browser->pages_rendered() % kPssCheckEvery == 0;
  const int64_t pss = check_pss ? lease.browser->PssBytes() : 0;
  absl::MutexLock lock(&mu_);
  ++stats_.pages;
  ++changes_;
  Slot& slot = slots_[lease.slot];
  --slot.active;
  if (slot.browser != lease.browser) return nullptr;  // already replaced
  if (BrowserFailed(status) || !lease.browser->alive()) {
    RecordCrashLocked(absl::Now());
    slot.next_spawn = absl::Now() + BackoffLocked();
    slot.retiring = false;
    // Its other tabs fail at once instead of waiting out a hung browser.
    lease.browser->Kill();
    return std::move(slot.browser);
  }
  if (lease.browser->pages_rendered() >= options_.pages_per_browser ||
      pss > options_.max_browser_mb * (int64_t{1} << 20)) {
    if (!slot.retiring) ++stats_.retirements;
    slot.retiring = true;
  }
  if (slot.retiring && slot.active == 0) {
    slot.retiring = false;
    slot.next_spawn = absl::InfinitePast();
    return std::move(slot.browser);
  }
  return nullptr;
}

absl::Duration BrowserPool::BackoffLocked() const {
  // respawn_backoff doubled for each further crash in the window.
  const int recent = static_cast<int>(crash_times_.size());
  return std::min(kMaxBackoff, options_.respawn_backoff *
                                   (1 << std::clamp(recent - 1, 0, 6)));
}

void BrowserPool::RecordCrashLocked(absl::Time now) {
  ++stats_.crashes;
  crash_times_.push_back(now);
  while (!crash_times_.empty() &&
         crash_times_.front() < now - options_.crash_window) {
    crash_times_.pop_front();
  }
  if (static_cast<int>(crash_times_.size()) >= options_.max_crashes &&
      disabled_.ok()) {
    disabled_ = absl::FailedPreconditionError(
        absl::StrCat("rendering switched off: ", crash_times_.size(),
                     " browser crashes within ",
                     absl::FormatDuration(options_.crash_window)));
  }
}

BrowserPool::Stats BrowserPool::stats() const {
  absl::MutexLock lock(&mu_);
  Stats stats = stats_;
  for (const Slot& slot : slots_) {
    stats.browsers_alive += slot.browser != nullptr && slot.browser->alive();
  }
  return stats;
}

absl::Status BrowserPool::disabled_reason() const {
  absl::MutexLock lock(&mu_);
  return disabled_;
}

std::vector<pid_t> BrowserPool::ProcessIds() const {
  std::vector<std::shared_ptr<Browser>> browsers;
  {
    absl::MutexLock lock(&mu_);
    for (const Slot& slot : slots_) {
      if (slot.browser != nullptr) browsers.push_back(slot.browser);
    }
  }
  std::vector<pid_t> pids;
  for (const auto& browser : browsers) {
    for (pid_t pid : browser->GroupPids()) pids.push_back(pid);
  }
  return pids;
}

}  // namespace sieve
