// python/frontier_support.h: what sieve.Frontier (python/bind_frontier.cc) and
// sieve.ClusterFrontier (python/bind_cluster.cc) share: sieve.Next, the
// keyword options both take (the per-host rules and the filter's sizing), the
// outcome of done, and the methods of any CrawlFrontier (next, done, add_many,
// set_crawl_delay, stats, filter_stats, close, with).
#ifndef SIEVE_PYTHON_FRONTIER_SUPPORT_H_
#define SIEVE_PYTHON_FRONTIER_SUPPORT_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/crawl_frontier.h"
#include "frontier/frontier.h"
#include "python/py_support.h"

namespace sieve::python {

// What next returns (sieve.Next).
struct PyNext {
  std::string state;  // "ready", "wait", "wait_for_done", "empty"
  std::string url;
  std::string host;
  uint32_t depth = 0;
  std::string metadata;
  double wait = 0;
  std::string unreachable_error;
};

// Defines sieve.Next in `m`; call once, before the frontier classes.
void BindNext(py::module_& m);

// The host key of `url`: its authority without user info, lower-cased (what
// the crawler passes, crawler/ taking it from sieve::parse). ValueError if it
// has none.
std::string HostOf(std::string_view url);

// The FrontierAdd of add()'s arguments (`key`: the dedup key, if any); it
// points into them.
FrontierAdd MakeAdd(const std::string& url, const std::string& host,
                    uint32_t depth, const std::string& metadata,
                    const std::optional<std::string>& key);

// `value` as T; TypeError naming `name` otherwise.
template <typename T>
T As(py::handle value, const char* name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(name) + " has the wrong type");
  }
}

// Sets the keyword option `name` of Frontier() in `options`; false if there
// is no such option. ValueError or TypeError for a bad value.
bool SetFrontierOption(FrontierOptions& options, const std::string& name,
                       py::handle value);
// Frontier()'s options, documented (the docstring of its constructor).
extern const char kFrontierOptionsDoc[];

// What the methods shared by both frontiers do with the GIL released.
NextUrl NextReleased(CrawlFrontier& f, absl::Time now);
PyNext ToPyNext(NextUrl n);
FetchOutcome OutcomeOf(const py::object& outcome, double response_time,
                       const std::optional<double>& retry_after,
                       bool transient);
const char* FateName(UrlFate fate);
py::dict StatsDict(const FrontierStats& s);
py::dict FilterStatsDict(const FrontierFilterStats& s);
extern const char kDoneDoc[];

// Defines next, done, add_many, set_crawl_delay, stats, filter_stats, close
// and the context manager on `cls`. W wraps one CrawlFrontier: W::Get()
// returns a std::shared_ptr to it (sieve.Error once closed), W::Close() frees
// it, W::AfterAdd() runs with the GIL after each add.
template <typename W>
void DefineCrawlFrontierMethods(py::class_<W>& cls) {
  cls.def(
         "add_many",
         [](W& self, const std::vector<std::string>& urls,
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
           auto f = self.Get();
           std::unique_ptr<bool[]> queued(new bool[urls.size()]);
           {
             py::gil_scoped_release release;
             f->AddMany(adds, std::span<bool>(queued.get(), urls.size()));
           }
           self.AfterAdd();
           return std::vector<bool>(queued.get(), queued.get() + urls.size());
         },
         py::arg("urls"), py::arg("metadata") = py::none(),
         py::arg("depth") = 0,
         "add for each url (one batch, GIL released); metadata: one bytes "
         "per url or None. Returns whether each was queued.")
      .def(
          "next",
          [](W& self, std::optional<double> now) {
            absl::Time t = TimeOrNow(now);
            auto f = self.Get();
            return ToPyNext(NextReleased(*f, t));
          },
          py::arg("now") = py::none(),
          "A URL whose host may be fetched now (state 'ready'), else how long "
          "to wait or why none will be (see sieve.Next). GIL released.")
      .def(
          "done",
          [](W& self, const std::string& url, py::object outcome,
             double response_time, std::optional<double> retry_after,
             bool transient, std::optional<double> now) {
            FetchOutcome o =
                OutcomeOf(outcome, response_time, retry_after, transient);
            absl::Time t = TimeOrNow(now);
            auto f = self.Get();
            absl::StatusOr<UrlFate> fate;
            {
              py::gil_scoped_release release;
              fate = f->Done(url, o, t);
            }
            return std::string(FateName(ValueOrThrow(fate)));
          },
          py::arg("url"), py::arg("outcome") = "success", py::kw_only(),
          py::arg("response_time") = 0.0, py::arg("retry_after") = py::none(),
          py::arg("transient") = false, py::arg("now") = py::none(), kDoneDoc)
      .def(
          "set_crawl_delay",
          [](W& self, const std::string& host, double seconds) {
            absl::Duration d = Seconds(seconds, "crawl_delay");
            auto f = self.Get();
            py::gil_scoped_release release;
            f->SetCrawlDelay(host, d);
          },
          py::arg("host"), py::arg("seconds"),
          "Records host's robots.txt Crawl-delay (capped at max_crawl_delay; "
          "0 clears it), from its next request.")
      .def(
          "stats",
          [](W& self) {
            auto f = self.Get();
            FrontierStats s;
            {
              py::gil_scoped_release release;
              s = f->stats();
            }
            return StatsDict(s);
          },
          "The frontier's counters (FrontierStats in "
          "frontier/frontier_stats.h) as a dict.")
      .def(
          "filter_stats",
          [](W& self) {
            auto f = self.Get();
            FrontierFilterStats s;
            {
              py::gil_scoped_release release;
              s = f->filter_stats();
            }
            return FilterStatsDict(s);
          },
          "The dedup filter now: capacity, estimated_count, "
          "estimated_fp_rate.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](W& self, py::args) { self.Close(); });
}

}  // namespace sieve::python

#endif  // SIEVE_PYTHON_FRONTIER_SUPPORT_H_
