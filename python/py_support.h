// python/py_support.h: what the bindings of python/ share: Status to Python
// exception, seconds to absl time, the capacity warning's relay from C++
// threads to Python, and the option parsing common to Sieve and Frontier.
//
// Errors map as docs/python.md says: InvalidArgument and OutOfRange to
// ValueError, NotFound to KeyError, anything else to sieve.Error.
#ifndef SIEVE_PYTHON_PY_SUPPORT_H_
#define SIEVE_PYTHON_PY_SUPPORT_H_

#include <pybind11/pybind11.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "filter/filter.h"
#include "frontier/sieve.h"

namespace sieve::python {

namespace py = pybind11;

// Defines sieve.Error and sieve.CapacityWarning in `m`; call once, first.
void DefineExceptions(py::module_& m);

// Raises the Python exception for `status`. REQUIRES: !status.ok(), GIL held.
[[noreturn]] void Raise(const absl::Status& status);
inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) Raise(status);
}
template <typename T>
T ValueOrThrow(absl::StatusOr<T> v) {
  if (!v.ok()) Raise(v.status());
  return *std::move(v);
}
// Raises sieve.Error with `message`.
[[noreturn]] void RaiseError(const std::string& message);

// Seconds (a float, >= 0 and finite) as a Duration; ValueError names `what`
// otherwise.
absl::Duration Seconds(double seconds, const char* what);
// Unix seconds as a Time; None is absl::Now().
absl::Time TimeOrNow(const std::optional<double>& unix_seconds);
double ToSeconds(absl::Duration d);

// Carries capacity events from whatever thread raised them (possibly with the
// GIL released) to Python: the C++ callback only queues the event; Deliver,
// called with the GIL after each call that adds keys, runs the Python
// callback or, with none set, issues a sieve.CapacityWarning. So a warning
// filter that raises turns into an exception of the call that added the key.
class CapacityRelay {
 public:
  // The C++ callback to install on the filter or Sieve. Keeps `this` alive.
  static CapacityCallback Install(const std::shared_ptr<CapacityRelay>& relay);
  // Runs the pending events. REQUIRES: GIL held.
  void Deliver();
  // None: warnings (the default). REQUIRES: GIL held.
  void set_callback(py::object callback) { callback_ = std::move(callback); }

 private:
  std::mutex mu_;
  std::vector<CapacityEvent> pending_;
  py::object callback_ = py::none();
};

// The Sieve's options from the keyword arguments Sieve and Frontier share.
SieveOptions MakeSieveOptions(uint64_t expected_urls, double fp_rate,
                              const std::string& filter_kind, bool lossless,
                              uint64_t memory_budget_bytes,
                              const std::optional<std::string>& work_dir);

}  // namespace sieve::python

#endif  // SIEVE_PYTHON_PY_SUPPORT_H_
