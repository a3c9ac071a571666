// python/bind_frontier.cc: sieve.Frontier, the per-host politeness scheduler
// of one process (frontier/frontier.h), for Python.
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "frontier/frontier.h"
#include "python/bindings.h"
#include "python/py_support.h"

namespace sieve::python {
namespace {

// What Frontier.next returns.
struct PyNext {
  std::string state;  // "ready", "wait", "wait_for_done", "empty"
  std::string url;
  std::string host;
  uint32_t depth = 0;
  std::string metadata;
  double wait = 0;
  std::string unreachable_error;
};

// NextUrl::State and UrlFate as Python strings, written once.
constexpr std::pair<NextUrl::State, const char*> kStates[] = {
    {NextUrl::kReady, "ready"},
    {NextUrl::kWait, "wait"},
    {NextUrl::kWaitForDone, "wait_for_done"},
    {NextUrl::kEmpty, "empty"},
};
constexpr std::pair<UrlFate, const char*> kFates[] = {
    {UrlFate::kFinished, "finished"},
    {UrlFate::kRetryLater, "retry_later"},
    {UrlFate::kGivenUp, "given_up"},
};
constexpr std::pair<FetchOutcome::Kind, const char*> kOutcomes[] = {
    {FetchOutcome::kSuccess, "success"},
    {FetchOutcome::kThrottled, "throttled"},
    {FetchOutcome::kError, "error"},
    {FetchOutcome::kNotFetched, "not_fetched"},
    {FetchOutcome::kDeferred, "deferred"},
};
template <typename K, size_t N>
const char* NameOf(const std::pair<K, const char*> (&table)[N], K key) {
  for (const auto& [k, name] : table) {
    if (k == key) return name;
  }
  return "unknown";
}

// The host key of `url`: its authority without user info, lower-cased (what
// the crawler passes, crawler/ taking it from sieve::parse).
std::string HostOf(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    throw py::value_error("cannot take a host from '" + std::string(url) +
                          "' (no scheme://): pass host=");
  }
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    rest = rest.substr(at + 1);
  }
  if (rest.empty()) {
    throw py::value_error("'" + std::string(url) + "' has no host");
  }
  return absl::AsciiStrToLower(std::string(rest));
}

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

 private:
  std::shared_ptr<Frontier> frontier_;
  std::shared_ptr<CapacityRelay> relay_;
};

template <typename T>
T As(py::handle value, const char* name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(name) + " has the wrong type");
  }
}

// The keyword options of Frontier() and Frontier.restore(), written once:
// name, and how it sets FrontierOptions (kOptionsDoc documents them).
using OptionSetter = void (*)(FrontierOptions&, py::handle);
constexpr std::pair<const char*, OptionSetter> kOptions[] = {
    {"expected_urls",
     [](FrontierOptions& o, py::handle v) {
       o.sieve.expected_urls = As<uint64_t>(v, "expected_urls");
     }},
    {"fp_rate",
     [](FrontierOptions& o, py::handle v) {
       o.sieve.fp_rate = As<double>(v, "fp_rate");
     }},
    {"filter_kind",
     [](FrontierOptions& o, py::handle v) {
       o.sieve.filter_kind =
           ValueOrThrow(ParseFilterKind(As<std::string>(v, "filter_kind")));
     }},
    {"lossless",
     [](FrontierOptions& o, py::handle v) {
       o.sieve.verify_positives = As<bool>(v, "lossless");
     }},
    {"memory_budget_bytes",
     [](FrontierOptions& o, py::handle v) {
       o.sieve.memory_budget_bytes = As<uint64_t>(v, "memory_budget_bytes");
     }},
    {"work_dir",
     [](FrontierOptions& o, py::handle v) {
       if (!v.is_none()) o.sieve.work_dir = As<std::string>(v, "work_dir");
     }},
    {"delay",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.min_delay = Seconds(As<double>(v, "delay"), "delay");
     }},
    {"max_crawl_delay",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.max_crawl_delay =
           Seconds(As<double>(v, "max_crawl_delay"), "max_crawl_delay");
     }},
    {"max_in_flight_per_host",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.max_in_flight_per_host =
           As<int>(v, "max_in_flight_per_host");
     }},
    {"backoff_base",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.backoff_base =
           Seconds(As<double>(v, "backoff_base"), "backoff_base");
     }},
    {"backoff_cap",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.backoff_cap =
           Seconds(As<double>(v, "backoff_cap"), "backoff_cap");
     }},
    {"backoff_jitter",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.backoff_jitter = As<double>(v, "backoff_jitter");
     }},
    {"max_retry_after",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.max_retry_after =
           Seconds(As<double>(v, "max_retry_after"), "max_retry_after");
     }},
    {"max_throttle_retries",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.max_throttle_retries = As<int>(v, "max_throttle_retries");
     }},
    {"max_error_retries",
     [](FrontierOptions& o, py::handle v) {
       o.politeness.max_error_retries = As<int>(v, "max_error_retries");
     }},
    {"max_urls_per_host",
     [](FrontierOptions& o, py::handle v) {
       o.max_urls_per_host = As<uint64_t>(v, "max_urls_per_host");
     }},
    {"host_queue_memory_bytes",
     [](FrontierOptions& o, py::handle v) {
       o.host_queue_memory_bytes = As<uint64_t>(v, "host_queue_memory_bytes");
     }},
    {"lease_timeout",
     [](FrontierOptions& o, py::handle v) {
       o.lease_timeout =
           Seconds(As<double>(v, "lease_timeout"), "lease_timeout");
     }},
    {"seed", [](FrontierOptions& o,
                py::handle v) { o.seed = As<uint64_t>(v, "seed"); }},
};

FrontierOptions ParseOptions(const py::kwargs& kwargs) {
  FrontierOptions options;
  for (auto [key, value] : kwargs) {
    std::string name = As<std::string>(key, "option name");
    auto it = std::find_if(std::begin(kOptions), std::end(kOptions),
                           [&](const auto& e) { return name == e.first; });
    if (it == std::end(kOptions)) {
      throw py::type_error("unknown Frontier option '" + name + "'");
    }
    it->second(options, value);
  }
  return options;
}

constexpr char kOptionsDoc[] = R"doc(
Options (keyword only; seconds as floats):
  expected_urls, fp_rate, filter_kind, lossless, memory_budget_bytes,
  work_dir: the Sieve in front (see sieve.Sieve).
  delay: minimum time between two requests to one host, counted from the
      end of the previous response. Default 1.0.
  max_crawl_delay: largest robots.txt Crawl-delay obeyed (set_crawl_delay);
      a larger one is capped. Default 30.0.
  max_in_flight_per_host: requests to one host at once (>= 1). Default 1.
  backoff_base, backoff_cap: back-off after a 429/503, doubling per repeat,
      capped. Defaults 5.0 and 600.0.
  backoff_jitter: the back-off times a uniform factor in [1, 1 + jitter).
      Default 0.25.
  max_retry_after: longest Retry-After honoured. Default 3600.0.
  max_throttle_retries, max_error_retries: refetches of a throttled URL and
      of a transient error before it is given up. Defaults 3 and 2.
  max_urls_per_host: page cap per host, 0 none. Default 0.
  host_queue_memory_bytes: per-host queues' RAM before they spill to disk.
  lease_timeout: a URL handed out by next and not done within this time is
      queued again (stats()["reclaimed"]); 0 none. Default 0.
  seed: the back-off jitter's seed.
Raises ValueError for a bad option (never aborts).
)doc";

FetchOutcome OutcomeOf(const py::object& outcome, double response_time,
                       const std::optional<double>& retry_after,
                       bool transient) {
  FetchOutcome o;
  if (py::isinstance<py::int_>(outcome)) {
    int status = outcome.cast<int>();
    o.kind = (status == 429 || status == 503) ? FetchOutcome::kThrottled
                                              : FetchOutcome::kSuccess;
  } else {
    std::string name = outcome.cast<std::string>();
    auto it = std::find_if(std::begin(kOutcomes), std::end(kOutcomes),
                           [&](const auto& e) { return name == e.second; });
    if (it == std::end(kOutcomes)) {
      throw py::value_error(
          "outcome must be an HTTP status or one of success, throttled, "
          "error, not_fetched, deferred; got '" +
          name + "'");
    }
    o.kind = it->first;
  }
  o.response_time = Seconds(response_time, "response_time");
  if (retry_after.has_value()) {
    o.retry_after = Seconds(*retry_after, "retry_after");
  }
  o.transient = transient;
  return o;
}

py::dict StatsDict(const FrontierStats& s) {
  py::dict d;
#define SIEVE_PY_FRONTIER_STAT(name, kind) d[#name] = s.name;
  SIEVE_FRONTIER_STATS(SIEVE_PY_FRONTIER_STAT)
#undef SIEVE_PY_FRONTIER_STAT
  return d;
}

}  // namespace

void BindFrontier(py::module_& m) {
  py::class_<PyNext>(m, "Next", R"doc(
What Frontier.next returns. state is one of:
  "ready": url (with host, depth, metadata bytes) may be fetched now; call
      Frontier.done(url, ...) when its fetch ends.
  "wait": no host is allowed yet; one will be after `wait` seconds.
  "wait_for_done": every queued URL's host is at its in-flight cap.
  "empty": nothing queued and nothing in flight.
unreachable_error is set (ready only) when the URL's host is unreachable: do
not fetch it; call done(url, "not_fetched").
)doc")
      .def_readonly("state", &PyNext::state)
      .def_readonly("url", &PyNext::url)
      .def_readonly("host", &PyNext::host)
      .def_readonly("depth", &PyNext::depth)
      .def_property_readonly(
          "metadata", [](const PyNext& n) { return py::bytes(n.metadata); })
      .def_readonly("wait", &PyNext::wait)
      .def_readonly("unreachable_error", &PyNext::unreachable_error)
      .def("__repr__", [](const PyNext& n) {
        return "<sieve.Next " + n.state +
               (n.state == "ready" ? " " + n.url : "") +
               (n.state == "wait" ? " " + std::to_string(n.wait) + "s" : "") +
               ">";
      });

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
          kOptionsDoc)
      .def(
          "add",
          [](PyFrontier& self, const std::string& url,
             const std::optional<std::string>& host, uint32_t depth,
             const std::string& metadata, bool dont_filter,
             const std::optional<std::string>& key) {
            const std::string host_key = host.has_value() ? *host : HostOf(url);
            const FrontierAdd add{.url = url,
                                  .host = host_key,
                                  .depth = depth,
                                  .metadata = metadata,
                                  .dedup_key = key.has_value()
                                                   ? std::string_view(*key)
                                                   : std::string_view()};
            std::shared_ptr<Frontier> f = self.Get();
            bool queued;
            {
              py::gil_scoped_release release;
              queued = dont_filter ? f->AddUnfiltered(add) : f->Add(add);
            }
            self.relay().Deliver();
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
          "add_many",
          [](PyFrontier& self, const std::vector<std::string>& urls,
             const std::optional<std::vector<std::string>>& metadata,
             uint32_t depth) {
            if (metadata.has_value() && metadata->size() != urls.size()) {
              throw py::value_error("metadata must have one entry per url");
            }
            std::vector<std::string> hosts;
            hosts.reserve(urls.size());
            for (const std::string& u : urls) hosts.push_back(HostOf(u));
            std::vector<FrontierAdd> adds(urls.size());
            for (size_t i = 0; i < urls.size(); ++i) {
              adds[i] = {.url = urls[i],
                         .host = hosts[i],
                         .depth = depth,
                         .metadata = metadata.has_value()
                                         ? std::string_view((*metadata)[i])
                                         : std::string_view()};
            }
            std::shared_ptr<Frontier> f = self.Get();
            std::unique_ptr<bool[]> queued(new bool[urls.size()]);
            {
              py::gil_scoped_release release;
              f->AddMany(adds, std::span<bool>(queued.get(), urls.size()));
            }
            self.relay().Deliver();
            return std::vector<bool>(queued.get(), queued.get() + urls.size());
          },
          py::arg("urls"), py::arg("metadata") = py::none(),
          py::arg("depth") = 0,
          "add for each url (one lock, one filter batch, GIL released); "
          "metadata: one bytes per url or None. Returns whether each was "
          "queued.")
      .def(
          "next",
          [](PyFrontier& self, std::optional<double> now) {
            absl::Time t = TimeOrNow(now);
            std::shared_ptr<Frontier> f = self.Get();
            NextUrl n;
            {
              py::gil_scoped_release release;
              n = f->Next(t);
            }
            PyNext out;
            out.state = NameOf(kStates, n.state);
            out.url = std::move(n.url.url);
            out.host = std::move(n.url.host);
            out.depth = n.url.depth;
            out.metadata = std::move(n.url.metadata);
            out.wait = ToSeconds(n.wait);
            out.unreachable_error = std::move(n.url.unreachable_error);
            return out;
          },
          py::arg("now") = py::none(),
          "A URL whose host may be fetched now (state 'ready'), else how long "
          "to wait or why none will be (see sieve.Next).")
      .def(
          "done",
          [](PyFrontier& self, const std::string& url, py::object outcome,
             double response_time, std::optional<double> retry_after,
             bool transient, std::optional<double> now) {
            FetchOutcome o =
                OutcomeOf(outcome, response_time, retry_after, transient);
            absl::Time t = TimeOrNow(now);
            std::shared_ptr<Frontier> f = self.Get();
            absl::StatusOr<UrlFate> fate;
            {
              py::gil_scoped_release release;
              fate = f->Done(url, o, t);
            }
            return std::string(NameOf(kFates, ValueOrThrow(fate)));
          },
          py::arg("url"), py::arg("outcome") = "success", py::kw_only(),
          py::arg("response_time") = 0.0, py::arg("retry_after") = py::none(),
          py::arg("transient") = false, py::arg("now") = py::none(),
          R"doc(
Reports the end of the fetch of url (as next returned it).
outcome: an HTTP status (429 and 503 are "throttled", any other "success"), or
    "success", "throttled", "error" (transient=True: worth a retry),
    "not_fetched" (no request made), "deferred" (a request to its host was
    made for it, e.g. robots.txt: the URL goes back to the head).
retry_after: the server's Retry-After, seconds (honoured up to
    max_retry_after). response_time feeds the adaptive delay.
Returns "finished", "retry_later" (the frontier will hand it out again) or
"given_up". KeyError if url is not in flight.
)doc")
      .def(
          "set_crawl_delay",
          [](PyFrontier& self, const std::string& host, double seconds) {
            absl::Duration d = Seconds(seconds, "crawl_delay");
            std::shared_ptr<Frontier> f = self.Get();
            py::gil_scoped_release release;
            f->SetCrawlDelay(host, d);
          },
          py::arg("host"), py::arg("seconds"),
          "Records host's robots.txt Crawl-delay (capped at max_crawl_delay; "
          "0 clears it), from its next request.")
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
          "stats",
          [](PyFrontier& self) {
            std::shared_ptr<Frontier> f = self.Get();
            FrontierStats s;
            {
              py::gil_scoped_release release;
              s = f->stats();
            }
            return StatsDict(s);
          },
          "The frontier's counters (FrontierStats in "
          "frontier/crawl_frontier.h) as a dict.")
      .def(
          "filter_stats",
          [](PyFrontier& self) {
            FrontierFilterStats s = self.Get()->filter_stats();
            py::dict d;
            d["capacity"] = s.capacity;
            d["estimated_count"] = s.estimated_count;
            d["estimated_fp_rate"] = s.estimated_fp_rate;
            return d;
          },
          "The dedup filter now: capacity, estimated_count, "
          "estimated_fp_rate.")
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
           "sieve.Error.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyFrontier& self, py::args) { self.Close(); });
}

}  // namespace sieve::python
