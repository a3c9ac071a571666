// python/bind_filter.cc: sieve.Filter, the filter module's Bloom filters
// (filter/filter.h) for Python.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "filter/filter.h"
#include "python/bindings.h"
#include "python/py_support.h"

namespace sieve::python {
namespace {

// One filter and the lock that makes it safe to share between Python threads
// (add_many and the file calls run with the GIL released).
struct PyFilter {
  explicit PyFilter(std::unique_ptr<Filter> f)
      : filter(std::move(f)), relay(std::make_shared<CapacityRelay>()) {
    filter->OnCapacityExceeded(CapacityRelay::Install(relay));
  }
  std::mutex mu;
  std::unique_ptr<Filter> filter;
  std::shared_ptr<CapacityRelay> relay;
};

std::unique_ptr<PyFilter> MakeFilter(const std::string& kind, uint64_t capacity,
                                     double fp_rate, uint64_t memory_bytes,
                                     uint32_t generations,
                                     std::optional<uint64_t> seed) {
  FilterOptions options;
  options.kind = ValueOrThrow(ParseFilterKind(kind));
  options.capacity = capacity;
  options.fp_rate = fp_rate;
  options.memory_bytes = memory_bytes;
  options.generations = generations;
  if (seed.has_value()) options.seed = *seed;
  return std::make_unique<PyFilter>(ValueOrThrow(CreateFilter(options)));
}

std::vector<bool> AddMany(PyFilter& self, const std::vector<std::string>& keys,
                          bool add) {
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::unique_ptr<bool[]> out(new bool[keys.size()]);
  {
    py::gil_scoped_release release;
    std::lock_guard lock(self.mu);
    if (add) {
      self.filter->AddMany(views, std::span<bool>(out.get(), keys.size()));
    } else {
      self.filter->MayContainMany(views,
                                  std::span<bool>(out.get(), keys.size()));
    }
  }
  self.relay->Deliver();
  return std::vector<bool>(out.get(), out.get() + keys.size());
}

}  // namespace

void BindFilter(py::module_& m) {
  py::class_<PyFilter>(m, "Filter", R"doc(
A Bloom filter of one of the filter module's kinds (filter/filter.h).

A filter may answer "maybe present" for a key never added (a false positive,
at about `fp_rate` once `capacity` keys are in); it never answers "absent" for
a key that was added, except for the kinds that forget by design ("stable",
"generational"). Keys are str (UTF-8) or bytes. Safe to share between
threads (one lock per filter).

When the estimated count first passes `capacity` (and at each doubling) a
sieve.CapacityWarning is issued, or the callback set with
on_capacity_exceeded is called.

Example:
    f = sieve.Filter("blocked", capacity=1_000_000, fp_rate=0.01)
    f.add("http://a/")        # True: it was absent
    "http://a/" in f          # True
)doc")
      .def(py::init(&MakeFilter), py::arg("kind") = "classic",
           py::arg("capacity") = 1'000'000, py::arg("fp_rate") = 0.01,
           py::kw_only(), py::arg("memory_bytes") = 0,
           py::arg("generations") = 4, py::arg("seed") = py::none(),
           R"doc(
kind: "classic", "blocked", "counting", "scalable", "stable" or "generational".
capacity: keys the filter is designed to hold at fp_rate (> 0).
fp_rate: target false-positive rate at capacity, in (0, 1).
memory_bytes: the forgetting kinds' memory (0: what a classic filter of
    capacity keys at fp_rate takes).
generations: "generational" only, 2..64.
seed: the key hash's seed; filters combine only with the same seed.
Raises ValueError for a bad option (never aborts).
)doc")
      .def(
          "add",
          [](PyFilter& self, const std::string& key) {
            bool fresh;
            {
              std::lock_guard lock(self.mu);
              fresh = self.filter->Add(key);
            }
            self.relay->Deliver();
            return fresh;
          },
          py::arg("key"),
          "Adds key; True when it was (probably) absent before. O(k) probes.")
      .def(
          "__contains__",
          [](PyFilter& self, const std::string& key) {
            std::lock_guard lock(self.mu);
            return self.filter->MayContain(key);
          },
          py::arg("key"), "False: key was never added. True: it probably was.")
      .def(
          "add_many",
          [](PyFilter& self, const std::vector<std::string>& keys) {
            return AddMany(self, keys, /*add=*/true);
          },
          py::arg("keys"),
          "Adds each key (hashed and prefetched in one batch, GIL released); "
          "returns what add would have returned for each, in order.")
      .def(
          "contains_many",
          [](PyFilter& self, const std::vector<std::string>& keys) {
            return AddMany(self, keys, /*add=*/false);
          },
          py::arg("keys"), "`key in filter` for each key, in one batch.")
      .def(
          "on_capacity_exceeded",
          [](PyFilter& self, py::object callback) {
            self.relay->set_callback(std::move(callback));
          },
          py::arg("callback"),
          "Calls callback(event) (a dict: estimated_count, capacity, "
          "estimated_fp_rate) instead of issuing sieve.CapacityWarning; None "
          "restores the warning.")
      .def(
          "save",
          [](PyFilter& self, const std::string& path) {
            absl::Status s;
            {
              py::gil_scoped_release release;
              std::lock_guard lock(self.mu);
              s = self.filter->SaveToFile(path);
            }
            ThrowIfError(s);
          },
          py::arg("path"),
          "Writes the filter to path (a temporary file, fsynced, renamed).")
      .def_static(
          "load",
          [](const std::string& path) {
            absl::StatusOr<std::unique_ptr<Filter>> f;
            {
              py::gil_scoped_release release;
              f = LoadFilterFromFile(path);
            }
            return std::make_unique<PyFilter>(ValueOrThrow(std::move(f)));
          },
          py::arg("path"),
          "Reads a filter written by save (any kind). ValueError or "
          "sieve.Error names what is wrong with the file.")
      .def(
          "to_bytes",
          [](PyFilter& self) {
            std::lock_guard lock(self.mu);
            return py::bytes(self.filter->Serialize());
          },
          "The filter as bytes (the saved format).")
      .def_static(
          "from_bytes",
          [](const std::string& bytes) {
            return std::make_unique<PyFilter>(
                ValueOrThrow(DeserializeFilter(bytes)));
          },
          py::arg("data"), "Reads bytes written by to_bytes.")
      .def_property_readonly(
          "kind",
          [](PyFilter& self) {
            return std::string(FilterKindName(self.filter->kind()));
          },
          "The kind's name.")
#define SIEVE_PY_FILTER_GETTER(name, call, doc) \
  .def_property_readonly(                       \
      name,                                     \
      [](PyFilter& self) {                      \
        std::lock_guard lock(self.mu);          \
        return self.filter->call();             \
      },                                        \
      doc)
      // clang-format off
      SIEVE_PY_FILTER_GETTER("capacity", capacity, "Designed capacity.")
      SIEVE_PY_FILTER_GETTER("estimated_count", EstimatedCount,
                             "Estimated distinct keys added (Swamidass & Baldi 2007).")
      SIEVE_PY_FILTER_GETTER("estimated_fp_rate", EstimatedFalsePositiveRate,
                             "False-positive rate at the current fill.")
      SIEVE_PY_FILTER_GETTER("fill_ratio", FillRatio, "Fraction of bits set.")
      SIEVE_PY_FILTER_GETTER("memory_bytes", MemoryBytes, "Bytes the filter owns.")
      SIEVE_PY_FILTER_GETTER("bit_count", bit_count, "m: bits (counters) in the filter.")
      SIEVE_PY_FILTER_GETTER("hash_count", hash_count, "k: probes per key.")
  // clang-format on
#undef SIEVE_PY_FILTER_GETTER
      .def("__repr__", [](PyFilter& self) {
        std::lock_guard lock(self.mu);
        return "<sieve.Filter " +
               std::string(FilterKindName(self.filter->kind())) +
               " capacity=" + std::to_string(self.filter->capacity()) +
               " estimated_count=" +
               std::to_string(self.filter->EstimatedCount()) + ">";
      });
}

}  // namespace sieve::python
