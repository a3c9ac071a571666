// python/bind_sieve.cc: sieve.Sieve, the Bloom-filter-guarded FIFO
// (frontier/sieve.h) for Python.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/sieve.h"
#include "python/bindings.h"
#include "python/py_support.h"

namespace sieve::python {
namespace {

// The Sieve is thread-safe itself; the wrapper only makes close() safe while
// another thread is inside a call (each call holds its own reference).
class PySieve {
 public:
  explicit PySieve(std::unique_ptr<Sieve> s)
      : sieve_(std::move(s)), relay_(std::make_shared<CapacityRelay>()) {
    sieve_->OnCapacityExceeded(CapacityRelay::Install(relay_));
  }
  std::shared_ptr<Sieve> Get() const {
    if (sieve_ == nullptr) RaiseError("the Sieve is closed");
    return sieve_;
  }
  void Close() { sieve_.reset(); }
  CapacityRelay& relay() { return *relay_; }

 private:
  std::shared_ptr<Sieve> sieve_;
  std::shared_ptr<CapacityRelay> relay_;
};

py::dict StatsDict(const SieveStats& s) {
  py::dict d;
#define SIEVE_PY_STAT(field) d[#field] = s.field;
  SIEVE_PY_STAT(pushed)
  SIEVE_PY_STAT(queued)
  SIEVE_PY_STAT(dropped_as_seen)
  SIEVE_PY_STAT(store_lookups)
  SIEVE_PY_STAT(false_positives_caught)
  SIEVE_PY_STAT(popped)
  SIEVE_PY_STAT(spilled)
  SIEVE_PY_STAT(size)
  SIEVE_PY_STAT(records_on_disk)
  SIEVE_PY_STAT(queue_bytes_in_memory)
  SIEVE_PY_STAT(filter_estimated_count)
  SIEVE_PY_STAT(filter_capacity)
  SIEVE_PY_STAT(filter_estimated_fp_rate)
  SIEVE_PY_STAT(filter_bytes)
  SIEVE_PY_STAT(store_bytes_on_disk)
#undef SIEVE_PY_STAT
  return d;
}

}  // namespace

void BindSieve(py::module_& m) {
  py::class_<PySieve>(m, "Sieve", R"doc(
The Sieve: a FIFO of URLs guarded by a Bloom filter (frontier/sieve.h).

push(url) drops a URL the filter has (probably) seen and queues it otherwise;
pop() returns the oldest. The queue keeps memory_budget_bytes of records in
RAM and spills the rest to a scratch RocksDB store under work_dir, deleted
with the Sieve (close() or the end of a `with` block).

Surprises first: without lossless=True, a URL never pushed is dropped with
probability about fp_rate (false positives); with it, every "maybe seen" is
confirmed against an exact store of 64-bit fingerprints. Thread-safe. The
Sieve does not normalise URLs: "http://a/" and "HTTP://a" are two keys.

Example:
    with sieve.Sieve(expected_urls=1_000_000, fp_rate=0.01) as s:
        s.push("http://a/")     # True
        s.push("http://a/")     # False: seen
        s.pop()                 # "http://a/"
)doc")
      .def(py::init([](uint64_t expected_urls, double fp_rate,
                       const std::string& filter_kind, bool lossless,
                       uint64_t memory_budget_bytes,
                       const std::optional<std::string>& work_dir) {
             return std::make_unique<PySieve>(ValueOrThrow(Sieve::Create(
                 MakeSieveOptions(expected_urls, fp_rate, filter_kind, lossless,
                                  memory_budget_bytes, work_dir))));
           }),
           py::kw_only(), py::arg("expected_urls") = 1'000'000,
           py::arg("fp_rate") = 0.01, py::arg("filter_kind") = "classic",
           py::arg("lossless") = false,
           py::arg("memory_budget_bytes") = uint64_t{64} << 20,
           py::arg("work_dir") = py::none(), R"doc(
expected_urls: the filter's capacity (> 0); past it sieve.CapacityWarning.
fp_rate: target false-positive rate at expected_urls, in (0, 1).
filter_kind: any sieve.Filter kind.
lossless: confirm each "maybe seen" against exact fingerprints (no loss).
memory_budget_bytes: queued records kept in RAM before spilling to disk.
work_dir: where the scratch store is made (default: the temp directory).
Raises ValueError for a bad option.
)doc")
      .def(
          "push",
          [](PySieve& self, const std::string& url,
             const std::string& payload) {
            bool queued = self.Get()->Push(url, payload);
            self.relay().Deliver();
            return queued;
          },
          py::arg("url"), py::arg("payload") = std::string(),
          "Queues url (with payload bytes, returned by pop_entry) unless it "
          "was (probably) seen; returns whether it was queued.")
      .def(
          "push_many",
          [](PySieve& self, const std::vector<std::string>& urls,
             const std::optional<std::vector<std::string>>& payloads) {
            if (payloads.has_value() && payloads->size() != urls.size()) {
              throw py::value_error("payloads must have one entry per url");
            }
            std::shared_ptr<Sieve> s = self.Get();
            std::vector<std::string_view> u(urls.begin(), urls.end());
            std::vector<std::string_view> p(urls.size());
            if (payloads.has_value())
              p.assign(payloads->begin(), payloads->end());
            std::unique_ptr<bool[]> queued(new bool[urls.size()]);
            {
              py::gil_scoped_release release;
              s->PushMany(u, p, std::span<bool>(queued.get(), urls.size()));
            }
            self.relay().Deliver();
            return std::vector<bool>(queued.get(), queued.get() + urls.size());
          },
          py::arg("urls"), py::arg("payloads") = py::none(),
          "push for each url in one batch (GIL released); returns whether "
          "each was queued.")
      .def(
          "pop",
          [](PySieve& self) {
            std::shared_ptr<Sieve> s = self.Get();
            py::gil_scoped_release release;
            return s->Pop();
          },
          "The oldest queued URL, or None when empty.")
      .def(
          "pop_entry",
          [](PySieve& self) -> std::optional<py::tuple> {
            std::shared_ptr<Sieve> s = self.Get();
            std::optional<SieveEntry> e;
            {
              py::gil_scoped_release release;
              e = s->PopEntry();
            }
            if (!e.has_value()) return std::nullopt;
            return py::make_tuple(e->url, py::bytes(e->payload));
          },
          "The oldest queued (url, payload bytes), or None when empty.")
      .def(
          "__contains__",
          [](PySieve& self, const std::string& url) {
            std::shared_ptr<Sieve> s = self.Get();
            py::gil_scoped_release release;
            return s->MaybeSeen(url);
          },
          py::arg("url"),
          "Whether push(url) would drop it (exact in lossless mode).")
      .def("__len__", [](PySieve& self) { return self.Get()->size(); })
      .def(
          "stats", [](PySieve& self) { return StatsDict(self.Get()->stats()); },
          "Counters since construction (kept by checkpoints) and the state "
          "now, as a dict (SieveStats in frontier/sieve.h).")
      .def(
          "on_capacity_exceeded",
          [](PySieve& self, py::object callback) {
            self.relay().set_callback(std::move(callback));
          },
          py::arg("callback"),
          "Calls callback(event) instead of issuing sieve.CapacityWarning "
          "(None restores the warning).")
      .def(
          "checkpoint",
          [](PySieve& self, const std::string& dir) {
            std::shared_ptr<Sieve> s = self.Get();
            absl::Status status;
            {
              py::gil_scoped_release release;
              status = s->Checkpoint(std::filesystem::path(dir));
            }
            ThrowIfError(status);
          },
          py::arg("dir"),
          "Saves filter, queue and counters as a new snapshot under dir "
          "(committed atomically; GIL released).")
      .def_static(
          "restore",
          [](const std::string& dir, bool lossless,
             uint64_t memory_budget_bytes,
             const std::optional<std::string>& work_dir) {
            SieveOptions options = MakeSieveOptions(
                1, 0.01, "classic", lossless, memory_budget_bytes, work_dir);
            absl::StatusOr<std::unique_ptr<Sieve>> s;
            {
              py::gil_scoped_release release;
              s = Sieve::Restore(std::filesystem::path(dir), options);
            }
            return std::make_unique<PySieve>(ValueOrThrow(std::move(s)));
          },
          py::arg("dir"), py::kw_only(), py::arg("lossless") = false,
          py::arg("memory_budget_bytes") = uint64_t{64} << 20,
          py::arg("work_dir") = py::none(),
          "The Sieve saved by checkpoint(dir). The filter comes from the "
          "snapshot; lossless must match it (ValueError otherwise).")
      .def("close", &PySieve::Close,
           "Frees the Sieve and deletes its scratch store; later calls raise "
           "sieve.Error.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PySieve& self, py::args) { self.Close(); });
}

}  // namespace sieve::python
