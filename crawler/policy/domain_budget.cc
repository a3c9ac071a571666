#include "crawler/policy/domain_budget.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sieve {

DomainBudget::DomainBudget(DomainBudgetOptions options) : options_(options) {
  const size_t slots = std::bit_ceil(std::max(options_.table_slots, kWays));
  // calloc: a large zeroed block comes as fresh pages from the kernel, so RAM
  // is taken only by the buckets a domain has touched (a crawl of the seeds'
  // domains alone touches none), never more than the table.
  slots_.reset(static_cast<Slot*>(std::calloc(slots, sizeof(Slot))));
  if (slots_ == nullptr) throw std::bad_alloc();
  slot_count_ = slots;
  mask_ = slots / kWays - 1;
  stats_.slots = slots;
}

uint64_t DomainBudget::KeyOf(std::string_view domain) {
  // absl::Hash is seeded per process: a checkpoint needs a hash that is the
  // same in the next run, so FNV-1a 64, then a mixer (splitmix64's) so the
  // low bits that pick a bucket are well spread.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : domain) h = (h ^ c) * 0x100000001b3ull;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h == 0 ? 1 : h;  // 0 marks an empty slot.
}

uint64_t DomainBudget::Referrers(const Slot& slot) {
  // Linear counting: n = -m ln(V), V the share of zero bits (m = 128). With
  // no zero bit the estimate is taken at one zero bit (621), its saturation.
  const int ones =
      std::popcount(slot.referrers[0]) + std::popcount(slot.referrers[1]);
  const int zeros = std::max(1, 128 - ones);
  return static_cast<uint64_t>(
      std::llround(-128.0 * std::log(static_cast<double>(zeros) / 128.0)));
}

uint64_t DomainBudget::BudgetOfSlot(const Slot& slot) const {
  return options_.base + options_.per_referrer * Referrers(slot);
}

const DomainBudget::Slot* DomainBudget::Find(uint64_t key) const {
  const size_t first = (key & mask_) * kWays;
  for (size_t i = first; i < first + kWays; ++i) {
    if (slots_[i].key == key) return &slots_[i];
  }
  return nullptr;
}

DomainBudget::Slot* DomainBudget::Find(uint64_t key) {
  return const_cast<Slot*>(std::as_const(*this).Find(key));
}

DomainBudget::Slot& DomainBudget::Take(uint64_t key) {
  if (Slot* slot = Find(key)) return *slot;
  const size_t first = (key & mask_) * kWays;
  // An empty way, else the way whose domain has the fewest pages and
  // referrers: the one whose forgetting lets the least past a budget.
  Slot* victim = nullptr;
  for (size_t i = first; i < first + kWays; ++i) {
    Slot& s = slots_[i];
    if (s.key == 0) {
      victim = &s;
      break;
    }
    const auto weight = [](const Slot& w) {
      return w.count + static_cast<uint64_t>(std::popcount(w.referrers[0]) +
                                             std::popcount(w.referrers[1]));
    };
    if (victim == nullptr || weight(s) < weight(*victim)) victim = &s;
  }
  if (victim->key == 0) {
    ++stats_.domains;
  } else {
    ++stats_.evicted;
  }
  *victim = Slot{.key = key};
  return *victim;
}

bool DomainBudget::Admit(std::string_view domain) {
  if (!enabled()) return true;
  const uint64_t key = KeyOf(domain);
  std::lock_guard lock(mu_);
  Slot& slot = Take(key);
  if (slot.count >= BudgetOfSlot(slot)) {
    ++stats_.refused;
    return false;
  }
  if (slot.count < UINT32_MAX) ++slot.count;
  return true;
}

void DomainBudget::Release(std::string_view domain) {
  if (!enabled()) return;
  const uint64_t key = KeyOf(domain);
  std::lock_guard lock(mu_);
  if (Slot* slot = Find(key); slot != nullptr && slot->count > 0) {
    --slot->count;
  }
}

void DomainBudget::NoteLink(std::string_view from, std::string_view to) {
  if (!enabled() || from == to) return;
  const uint64_t bit = KeyOf(from) >> 57;  // 0..127.
  const uint64_t key = KeyOf(to);
  std::lock_guard lock(mu_);
  Slot& slot = Take(key);
  slot.referrers[bit >> 6] |= uint64_t{1} << (bit & 63);
}

uint64_t DomainBudget::Count(std::string_view domain) const {
  std::lock_guard lock(mu_);
  const Slot* slot = Find(KeyOf(domain));
  return slot == nullptr ? 0 : slot->count;
}

uint64_t DomainBudget::BudgetOf(std::string_view domain) const {
  std::lock_guard lock(mu_);
  const Slot* slot = Find(KeyOf(domain));
  return slot == nullptr ? options_.base : BudgetOfSlot(*slot);
}

DomainBudgetStats DomainBudget::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

size_t DomainBudget::bytes() const { return slot_count_ * sizeof(Slot); }

std::string DomainBudget::Save() const {
  std::lock_guard lock(mu_);
  std::string out;
  const size_t used = stats_.domains * sizeof(Slot);
  out.reserve(used);
  // The walk ends at the last used slot: a table no domain touched (a crawl
  // of the seeds' domains) is not read at all, so its calloc'd pages are not
  // faulted in (2,048 page faults a checkpoint at 8 MiB).
  for (const Slot& slot : std::span(slots_.get(), slot_count_)) {
    if (out.size() == used) break;
    if (slot.key == 0) continue;
    out.append(reinterpret_cast<const char*>(&slot), sizeof(Slot));
  }
  return out;
}

absl::Status DomainBudget::Load(std::string_view saved) {
  if (saved.size() % sizeof(Slot) != 0) {
    return absl::DataLossError(absl::StrCat("domain budget: ", saved.size(),
                                            " bytes is not a whole number of ",
                                            sizeof(Slot), "-byte slots"));
  }
  std::lock_guard lock(mu_);
  for (size_t at = 0; at < saved.size(); at += sizeof(Slot)) {
    Slot slot;
    std::memcpy(&slot, saved.data() + at, sizeof(Slot));
    if (slot.key == 0) continue;
    Take(slot.key) = slot;
  }
  return absl::OkStatus();
}

}  // namespace sieve
