// filter/internal/lock_guards.h: reader and writer lock guards that do nothing
// unless the filter was built concurrent. Private to sieve::filter.
#ifndef SIEVE_FILTER_INTERNAL_LOCK_GUARDS_H_
#define SIEVE_FILTER_INTERNAL_LOCK_GUARDS_H_

#include <shared_mutex>

namespace sieve::filter_internal {

class WriterGuard {
 public:
  WriterGuard(std::shared_mutex* mu, bool enabled)
      : mu_(enabled ? mu : nullptr) {
    if (mu_ != nullptr) mu_->lock();
  }
  ~WriterGuard() {
    if (mu_ != nullptr) mu_->unlock();
  }

 private:
  std::shared_mutex* mu_;
};

class ReaderGuard {
 public:
  ReaderGuard(std::shared_mutex* mu, bool enabled)
      : mu_(enabled ? mu : nullptr) {
    if (mu_ != nullptr) mu_->lock_shared();
  }
  ~ReaderGuard() {
    if (mu_ != nullptr) mu_->unlock_shared();
  }

 private:
  std::shared_mutex* mu_;
};

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_LOCK_GUARDS_H_
