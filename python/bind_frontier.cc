// python/bind_frontier.cc: sieve.Frontier, the per-host politeness scheduler
// of one process (frontier/frontier.h), for Python.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/frontier.h"
#include "python/bindings.h"
#include "python/frontier_support.h"
#include "python/py_support.h"

namespace sieve::python {
namespace {

// The Frontier is thread-safe itself; as PySieve, the wrapper makes close()
// safe while another thread is inside a call.
class PyFrontier {
 public:
  explicit PyFrontier(std::unique_ptr<Frontier> f)
      : frontier_(std::move(f)), relay_(std::make_shared<CapacityRelay>()) {
    frontier_->OnCapacityExceeded(CapacityRelay::Install(relay_));
  }
  std::shared_ptr<Frontier> Get() const {
    if (frontier_ == nullptr) RaiseError("the Frontier is closed");
    return frontier_;
  }
  void Close() { frontier_.reset(); }
  CapacityRelay& relay() { return *relay_; }
  void AfterAdd() { relay_->Deliver(); }

 private:
  std::shared_ptr<Frontier> frontier_;
  std::shared_ptr<CapacityRelay> relay_;
};

FrontierOptions ParseOptions(const py::kwargs& kwargs) {
  FrontierOptions options;
  for (auto [key, value] : kwargs) {
    std::string name = As<std::string>(key, "option name");
    if (!SetFrontierOption(options, name, value)) {
      throw py::type_error("unknown Frontier option '" + name + "'");
    }
  }
  return options;
}

}  // namespace

void BindFrontier(py::module_& m) {
  BindNext(m);
  py::class_<PyFrontier> cls(m, "Frontier", R"doc(
The frontier of one process (frontier/frontier.h): the Sieve in front for
dedup, then per-host queues handed out under per-host politeness: a delay
between two requests to a host counted from the end of the previous
response, robots.txt Crawl-delay (set_crawl_delay), an in-flight cap,
429/503 back-off honouring Retry-After, retries, a page cap per host.

Order: breadth-first, FIFO across hosts and within each host.
The clock: next and done take `now` (Unix seconds, default time.time()).
Thread-safe; calls that take a lock or touch disk release the GIL.

Example:
    f = sieve.Frontier(delay=0.5)
    f.add("http://a.example/", metadata=b"seed")
    n = f.next()
    if n.state == "ready":
        status = fetch(n.url)
        f.done(n.url, status)          # 429/503 back off the host
    elif n.state == "wait":
        time.sleep(n.wait)
)doc");
  cls.def(py::init([](const py::kwargs& kwargs) {
            return std::make_unique<PyFrontier>(
                ValueOrThrow(Frontier::Create(ParseOptions(kwargs))));
          }),
          kFrontierOptionsDoc)
      .def(
          "add",
          [](PyFrontier& self, const std::string& url,
             const std::optional<std::string>& host, uint32_t depth,
             const std::string& metadata, bool dont_filter,
             const std::optional<std::string>& key) {
            const std::string host_key = host.has_value() ? *host : HostOf(url);
            const FrontierAdd add =
                MakeAdd(url, host_key, depth, metadata, key);
            std::shared_ptr<Frontier> f = self.Get();
            bool queued;
            {
              py::gil_scoped_release release;
              queued = dont_filter ? f->AddUnfiltered(add) : f->Add(add);
            }
            self.AfterAdd();
            return queued;
          },
          py::arg("url"), py::arg("host") = py::none(), py::arg("depth") = 0,
          py::arg("metadata") = std::string(), py::kw_only(),
          py::arg("dont_filter") = false, py::arg("key") = py::none(),
          "Queues url unless it was (probably) seen or its host is past its "
          "page cap; returns whether it was queued. host: the politeness key "
          "(default: the URL's authority, lower-cased). metadata: bytes "
          "returned by next with the URL. key: what the seen-test checks "
          "instead of the URL (e.g. Scrapy's request fingerprint; str or "
          "bytes). dont_filter: queue it even if seen (Scrapy's dont_filter); "
          "its key is still marked seen, and it is checkpointed.")
      .def(
          "block_host",
          [](PyFrontier& self, const std::string& host, double until) {
            absl::Time t = TimeOrNow(until);
            std::shared_ptr<Frontier> f = self.Get();
            py::gil_scoped_release release;
            f->BlockHost(host, t);
          },
          py::arg("host"), py::arg("until"),
          "No request to host starts before until (Unix seconds).")
      .def(
          "on_capacity_exceeded",
          [](PyFrontier& self, py::object callback) {
            self.relay().set_callback(std::move(callback));
          },
          py::arg("callback"),
          "Calls callback(event) instead of issuing sieve.CapacityWarning "
          "(None restores the warning).")
      .def(
          "checkpoint",
          [](PyFrontier& self, const std::string& dir) {
            std::shared_ptr<Frontier> f = self.Get();
            absl::Status status;
            {
              py::gil_scoped_release release;
              status = f->Checkpoint(std::filesystem::path(dir));
            }
            ThrowIfError(status);
          },
          py::arg("dir"),
          "Saves the whole frontier (the Sieve, host queues, URLs in flight "
          "as queued, crawl delays, counters) as a new snapshot under dir, "
          "committed atomically. GIL released.")
      .def_static(
          "restore",
          [](const std::string& dir, const py::kwargs& kwargs) {
            FrontierOptions options = ParseOptions(kwargs);
            absl::StatusOr<std::unique_ptr<Frontier>> f;
            {
              py::gil_scoped_release release;
              f = Frontier::Restore(std::filesystem::path(dir), options);
            }
            return std::make_unique<PyFrontier>(ValueOrThrow(std::move(f)));
          },
          py::arg("dir"),
          "The frontier saved by checkpoint(dir); URLs in flight then are "
          "queued again. Takes Frontier()'s options (the filter's come from "
          "the snapshot).")
      .def("close", &PyFrontier::Close,
           "Frees the frontier and its scratch stores; later calls raise "
           "sieve.Error.");
  DefineCrawlFrontierMethods(cls);
}

}  // namespace sieve::python
