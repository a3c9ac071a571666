// python/py_support.cc: see python/py_support.h.
#include "python/py_support.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sieve::python {
namespace {

// The exception types, made once by DefineExceptions and kept for the life of
// the interpreter (a module's types are never freed).
PyObject*& ErrorType() {
  static PyObject* type = nullptr;
  return type;
}
PyObject*& CapacityWarningType() {
  static PyObject* type = nullptr;
  return type;
}

}  // namespace

void DefineExceptions(py::module_& m) {
  ErrorType() = PyErr_NewExceptionWithDoc(
      "sieve.Error",
      "An error of the Sieve libraries that is neither a bad argument "
      "(ValueError) nor a missing key (KeyError): a disk or snapshot error, a "
      "closed object.",
      PyExc_Exception, nullptr);
  CapacityWarningType() = PyErr_NewExceptionWithDoc(
      "sieve.CapacityWarning",
      "Issued when a filter's estimated count first passes its capacity and "
      "at each doubling: its false-positive rate is now above the one it was "
      "sized for.",
      PyExc_UserWarning, nullptr);
  m.add_object("Error", py::handle(ErrorType()));
  m.add_object("CapacityWarning", py::handle(CapacityWarningType()));
}

void Raise(const absl::Status& status) {
  std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      throw py::value_error(message);
    case absl::StatusCode::kNotFound:
      throw py::key_error(message);
    default:
      RaiseError(status.ToString());
  }
}

void RaiseError(const std::string& message) {
  PyErr_SetString(ErrorType(), message.c_str());
  throw py::error_already_set();
}

absl::Duration Seconds(double seconds, const char* what) {
  if (!std::isfinite(seconds) || seconds < 0) {
    throw py::value_error(
        absl::StrCat(what, " must be a finite number of seconds >= 0"));
  }
  return absl::Seconds(seconds);
}

absl::Time TimeOrNow(const std::optional<double>& unix_seconds) {
  if (!unix_seconds.has_value()) return absl::Now();
  if (!std::isfinite(*unix_seconds))
    throw py::value_error("now must be finite");
  return absl::UnixEpoch() + absl::Seconds(*unix_seconds);
}

double ToSeconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

CapacityCallback CapacityRelay::Install(
    const std::shared_ptr<CapacityRelay>& relay) {
  return [relay](const CapacityEvent& event) {
    std::lock_guard lock(relay->mu_);
    relay->pending_.push_back(event);
  };
}

void CapacityRelay::Deliver() {
  std::vector<CapacityEvent> events;
  {
    std::lock_guard lock(mu_);
    events.swap(pending_);
  }
  for (const CapacityEvent& e : events) {
    if (!callback_.is_none()) {
      py::dict event;
      event["estimated_count"] = e.estimated_count;
      event["capacity"] = e.capacity;
      event["estimated_fp_rate"] = e.estimated_fp_rate;
      callback_(event);
      continue;
    }
    std::string message = absl::StrCat(
        "sieve: the filter's estimated count ", std::llround(e.estimated_count),
        " passed its capacity ", e.capacity,
        "; its false-positive rate is now about ", e.estimated_fp_rate);
    if (PyErr_WarnEx(CapacityWarningType(), message.c_str(), 2) != 0) {
      throw py::error_already_set();
    }
  }
}

SieveOptions MakeSieveOptions(uint64_t expected_urls, double fp_rate,
                              const std::string& filter_kind, bool lossless,
                              uint64_t memory_budget_bytes,
                              const std::optional<std::string>& work_dir) {
  SieveOptions options;
  options.expected_urls = expected_urls;
  options.fp_rate = fp_rate;
  options.filter_kind = ValueOrThrow(ParseFilterKind(filter_kind));
  options.verify_positives = lossless;
  options.memory_budget_bytes = memory_budget_bytes;
  if (work_dir.has_value()) options.work_dir = *work_dir;
  return options;
}

}  // namespace sieve::python
