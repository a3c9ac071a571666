// python/frontier_support.cc: the parts of sieve.Frontier and
// sieve.ClusterFrontier written once (python/frontier_support.h).
#include "python/frontier_support.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/ascii.h"

namespace sieve::python {
namespace {

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

}  // namespace

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

FrontierAdd MakeAdd(const std::string& url, const std::string& host,
                    uint32_t depth, const std::string& metadata,
                    const std::optional<std::string>& key) {
  return {.url = url,
          .host = host,
          .depth = depth,
          .metadata = metadata,
          .dedup_key =
              key.has_value() ? std::string_view(*key) : std::string_view()};
}

namespace {

// The keyword options of Frontier() and Frontier.restore(), written once:
// name, and how it sets FrontierOptions (kFrontierOptionsDoc documents them).
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

}  // namespace

bool SetFrontierOption(FrontierOptions& options, const std::string& name,
                       py::handle value) {
  auto it = std::find_if(std::begin(kOptions), std::end(kOptions),
                         [&](const auto& e) { return name == e.first; });
  if (it == std::end(kOptions)) return false;
  it->second(options, value);
  return true;
}

const char kFrontierOptionsDoc[] = R"doc(
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
      of a transient error before it is given up. Defaults 3 and 1.
  max_urls_per_host: page cap per host, 0 none. Default 0.
  host_queue_memory_bytes: per-host queues' RAM before they spill to disk.
  lease_timeout: a URL handed out by next and not done within this time is
      queued again (stats()["reclaimed"]); 0 none. Default 0.
  seed: the back-off jitter's seed.
Raises ValueError for a bad option (never aborts).
)doc";

const char kDoneDoc[] = R"doc(
Reports the end of the fetch of url (as next returned it).
outcome: an HTTP status (429 and 503 are "throttled", any other "success"), or
    "success", "throttled", "error" (transient=True: worth a retry),
    "not_fetched" (no request made), "deferred" (a request to its host was
    made for it, e.g. robots.txt: the URL goes back to the head).
retry_after: the server's Retry-After, seconds (honoured up to
    max_retry_after). response_time feeds the adaptive delay.
Returns "finished", "retry_later" (the frontier will hand it out again) or
"given_up". KeyError if url is not in flight.
)doc";

void BindNext(py::module_& m) {
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
}

NextUrl NextReleased(CrawlFrontier& f, absl::Time now) {
  py::gil_scoped_release release;
  return f.Next(now);
}

PyNext ToPyNext(NextUrl n) {
  PyNext out;
  out.state = NameOf(kStates, n.state);
  out.url = std::move(n.url.url);
  out.host = std::move(n.url.host);
  out.depth = n.url.depth;
  out.metadata = std::move(n.url.metadata);
  out.wait = ToSeconds(n.wait);
  out.unreachable_error = std::move(n.url.unreachable_error);
  return out;
}

const char* FateName(UrlFate fate) { return NameOf(kFates, fate); }

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

py::dict FilterStatsDict(const FrontierFilterStats& s) {
  py::dict d;
  d["capacity"] = s.capacity;
  d["estimated_count"] = s.estimated_count;
  d["estimated_fp_rate"] = s.estimated_fp_rate;
  return d;
}

}  // namespace sieve::python
