// python/bind_cluster.cc: sieve.ClusterFrontier, one worker of a crawl shared
// by many processes through Redis (frontier/cluster/redis_frontier.h,
// docs/cluster.md), for Python: the processes share the seen-set and the
// queues, and each host is fetched by one worker at a time under its delay.
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/cluster/redis_frontier.h"
#include "frontier/frontier.h"
#include "python/bindings.h"
#include "python/frontier_support.h"
#include "python/py_support.h"

namespace sieve::python {
namespace {

using cluster::RedisFrontier;
using cluster::RedisFrontierOptions;

// As PyFrontier: close() is safe while another thread is inside a call.
class PyClusterFrontier {
 public:
  PyClusterFrontier(std::unique_ptr<RedisFrontier> f, std::string worker_id)
      : frontier_(std::move(f)), worker_id_(std::move(worker_id)) {}
  std::shared_ptr<RedisFrontier> Get() const {
    if (frontier_ == nullptr) RaiseError("the ClusterFrontier is closed");
    return frontier_;
  }
  // Releases the worker's shard leases at once (the other workers take its
  // hosts without waiting for the leases to expire), then frees it.
  void Close() {
    std::shared_ptr<RedisFrontier> f = std::move(frontier_);
    if (f == nullptr) return;
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = f->Shutdown();
    }
    ThrowIfError(s);
  }
  void AfterAdd() {}
  const std::string& worker_id() const { return worker_id_; }

 private:
  std::shared_ptr<RedisFrontier> frontier_;
  std::string worker_id_;
};

// The options of ClusterFrontier() that are the cluster's own, written once
// (kClusterOptionsDoc documents them).
using ClusterSetter = void (*)(RedisFrontierOptions&, py::handle);
constexpr std::pair<const char*, ClusterSetter> kClusterOptions[] = {
    {"crawl_id",
     [](RedisFrontierOptions& o, py::handle v) {
       o.crawl_id = As<std::string>(v, "crawl_id");
     }},
    {"worker_id",
     [](RedisFrontierOptions& o, py::handle v) {
       if (!v.is_none()) o.worker_id = As<std::string>(v, "worker_id");
     }},
    {"shards", [](RedisFrontierOptions& o,
                  py::handle v) { o.shards = As<uint32_t>(v, "shards"); }},
    {"lease_seconds",
     [](RedisFrontierOptions& o, py::handle v) {
       o.lease_ttl = Seconds(As<double>(v, "lease_seconds"), "lease_seconds");
     }},
    {"connect_timeout",
     [](RedisFrontierOptions& o, py::handle v) {
       o.client.connect_timeout =
           Seconds(As<double>(v, "connect_timeout"), "connect_timeout");
     }},
    {"command_timeout",
     [](RedisFrontierOptions& o, py::handle v) {
       o.client.command_timeout =
           Seconds(As<double>(v, "command_timeout"), "command_timeout");
     }},
    {"fetch_slots",
     [](RedisFrontierOptions& o, py::handle v) {
       o.fetch_slots = As<uint32_t>(v, "fetch_slots");
     }},
    {"max_requests_per_second",
     [](RedisFrontierOptions& o, py::handle v) {
       o.max_requests_per_second = As<double>(v, "max_requests_per_second");
     }},
    {"max_key_bytes",
     [](RedisFrontierOptions& o, py::handle v) {
       o.filter.max_key_bytes = As<uint64_t>(v, "max_key_bytes");
     }},
    {"ack_after_record",
     [](RedisFrontierOptions& o, py::handle v) {
       o.ack_after_record = As<bool>(v, "ack_after_record");
     }},
    {"shared_settings",
     [](RedisFrontierOptions& o, py::handle v) {
       o.shared_settings = As<std::string>(v, "shared_settings");
     }},
    {"work_dir",
     [](RedisFrontierOptions& o, py::handle v) {
       if (!v.is_none()) o.work_dir = As<std::string>(v, "work_dir");
     }},
};

// The options ClusterFrontier takes from Frontier() (SetFrontierOption):
// the shared filter's sizing and the per-host rules of each shard.
constexpr const char* kSharedOptions[] = {
    "expected_urls",
    "fp_rate",
    "delay",
    "max_crawl_delay",
    "max_in_flight_per_host",
    "backoff_base",
    "backoff_cap",
    "backoff_jitter",
    "max_retry_after",
    "max_throttle_retries",
    "max_error_retries",
    "max_urls_per_host",
};

RedisFrontierOptions ParseClusterOptions(const std::string& url,
                                         const py::kwargs& kwargs) {
  RedisFrontierOptions o;
  o.endpoint = ValueOrThrow(cluster::ParseRedisUrl(url));
  FrontierOptions local;
  local.sieve.expected_urls = o.filter.expected_urls;
  local.sieve.fp_rate = o.filter.fp_rate;
  local.politeness = o.politeness;
  bool has_crawl_id = false;
  for (auto [key, value] : kwargs) {
    const std::string name = As<std::string>(key, "option name");
    auto it =
        std::find_if(std::begin(kClusterOptions), std::end(kClusterOptions),
                     [&](const auto& e) { return name == e.first; });
    if (it != std::end(kClusterOptions)) {
      it->second(o, value);
      has_crawl_id |= name == "crawl_id";
    } else if (std::find(std::begin(kSharedOptions), std::end(kSharedOptions),
                         name) != std::end(kSharedOptions)) {
      SetFrontierOption(local, name, value);
    } else {
      throw py::type_error("unknown ClusterFrontier option '" + name + "'");
    }
  }
  if (!has_crawl_id) throw py::type_error("ClusterFrontier needs crawl_id=");
  if (o.worker_id.empty()) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    o.worker_id = absl::StrCat(host, "-", getpid());
  }
  // Each shard's local Frontier takes the per-host rules when the worker
  // takes the shard (RedisFrontier::Create does not check them): a bad one
  // raises here, from a small Frontier with nothing on disk.
  FrontierOptions check;
  check.sieve.expected_urls = 1024;
  check.politeness = local.politeness;
  check.max_urls_per_host = local.max_urls_per_host;
  ValueOrThrow(Frontier::Create(check));
  o.filter.expected_urls = local.sieve.expected_urls;
  o.filter.fp_rate = local.sieve.fp_rate;
  o.politeness = local.politeness;
  o.max_urls_per_host = local.max_urls_per_host;
  return o;
}

constexpr char kClusterOptionsDoc[] = R"doc(
url: "redis://HOST[:PORT][/DB]" of the redis-server (or Redis Cluster node)
    every worker of the crawl connects to.
Options (keyword only; seconds as floats):
  crawl_id: names the crawl's keys in Redis; every worker of one crawl passes
      the same. Required.
  worker_id: unique among the crawl's live workers, no '/'. Default:
      HOSTNAME-PID.
  shards: the crawl's shard count, fixed by its first worker. Default 256.
  lease_seconds: a shard lease's expiry, renewed every third of it: a worker
      killed with kill -9 has its hosts taken over after this. Default 10.0.
  connect_timeout, command_timeout: bounds of every Redis call. Defaults 2.0
      and 5.0.
  fetch_slots: requests the caller makes at once; non-zero also spreads
      shards by hosts with work. Default 0.
  max_requests_per_second: of the whole crawl, every worker together; 0 none.
      Default 0.
  max_key_bytes: largest Redis string of the shared filter. Default 256 MiB.
  ack_after_record: a URL done ("finished" or "given_up") stays the crawl's
      until record_written(url): a worker killed before then (its links not
      yet added) has it fetched again by another. Default False: done
      acknowledges it.
  shared_settings: "key = value" lines every worker must agree on; a worker
      whose differ from the crawl's first raises sieve.Error. Default "".
  work_dir: scratch directory of the shards' local queues. Default: the
      system temp directory.
  expected_urls, fp_rate: the shared seen-set's sizing (first worker's
      win). Defaults 10,000,000 and 0.01.
  delay, max_crawl_delay, max_in_flight_per_host, backoff_base, backoff_cap,
  backoff_jitter, max_retry_after, max_throttle_retries, max_error_retries,
  max_urls_per_host: the per-host rules, as sieve.Frontier's.
Raises ValueError for a bad option or URL, sieve.Error when Redis cannot be
reached (never aborts). Connects with the GIL released.
)doc";

}  // namespace

void BindCluster(py::module_& m) {
  py::class_<PyClusterFrontier> cls(m, "ClusterFrontier", R"doc(
One worker of a crawl shared by several processes through Redis
(frontier/cluster/redis_frontier.h, docs/cluster.md). The workers share the
seen-set (a Bloom filter in Redis) and the queues (a stream per shard of
hosts); each shard, so each host, is held by one worker at a time, which
applies sieve.Frontier's per-host rules to it: the delay from the end of the
previous response, Crawl-delay, the in-flight cap, 429/503 back-off. A URL
added by one worker (with its metadata bytes) may be handed out by another.

Differs from sieve.Frontier: the seen-test is the shared one (no
dont_filter); next answers "wait" while other workers hold the crawl's
work and "empty" only when no worker has any left; a URL done is
acknowledged in Redis (one handed out and never done is fetched again by
the shard's next owner); nothing to checkpoint: the state is in Redis.
Every call may make Redis round trips (GIL released), bounded by the
timeouts; while Redis is away next answers "wait".

Example:
    f = sieve.ClusterFrontier("redis://127.0.0.1:6379", crawl_id="news",
                              delay=1.0)
    f.add("http://a.example/", metadata=b"seed")
    n = f.next()          # as sieve.Frontier's
    ...
    f.close()             # lets the other workers take its hosts now
)doc");
  cls.def(py::init([](const std::string& url, const py::kwargs& kwargs) {
            RedisFrontierOptions options = ParseClusterOptions(url, kwargs);
            std::string worker_id = options.worker_id;
            absl::StatusOr<std::unique_ptr<RedisFrontier>> f;
            {
              py::gil_scoped_release release;
              f = RedisFrontier::Create(std::move(options));
            }
            return std::make_unique<PyClusterFrontier>(
                ValueOrThrow(std::move(f)), std::move(worker_id));
          }),
          py::arg("url"), kClusterOptionsDoc)
      .def(
          "add",
          [](PyClusterFrontier& self, const std::string& url,
             const std::optional<std::string>& host, uint32_t depth,
             const std::string& metadata,
             const std::optional<std::string>& key) {
            const std::string host_key = host.has_value() ? *host : HostOf(url);
            const FrontierAdd add =
                MakeAdd(url, host_key, depth, metadata, key);
            std::shared_ptr<RedisFrontier> f = self.Get();
            bool queued = false;
            {
              py::gil_scoped_release release;
              f->AddMany(std::span<const FrontierAdd>(&add, 1),
                         std::span<bool>(&queued, 1));
            }
            return queued;
          },
          py::arg("url"), py::arg("host") = py::none(), py::arg("depth") = 0,
          py::arg("metadata") = std::string(), py::kw_only(),
          py::arg("key") = py::none(),
          "Queues url in the crawl unless the shared seen-set has (probably) "
          "seen it; returns whether it was queued. host, metadata, key: as "
          "sieve.Frontier.add (metadata travels through Redis to whichever "
          "worker hands the URL out).")
      .def_property_readonly("worker_id", &PyClusterFrontier::worker_id,
                             "This worker's id in the crawl.")
      .def(
          "record_written",
          [](PyClusterFrontier& self, const std::string& url) {
            std::shared_ptr<RedisFrontier> f = self.Get();
            absl::Status s;
            {
              py::gil_scoped_release release;
              s = f->RecordWritten(url);
            }
            ThrowIfError(s);
          },
          py::arg("url"),
          "With ack_after_record: url's outcome (its links included) is "
          "saved; acknowledges it in Redis. KeyError if no such URL waits.")
      .def(
          "held_shards",
          [](PyClusterFrontier& self) {
            std::shared_ptr<RedisFrontier> f = self.Get();
            py::gil_scoped_release release;
            return f->held_shards();
          },
          "The shards this worker holds now.")
      .def("close", &PyClusterFrontier::Close,
           "Releases this worker's shards to the others and disconnects; "
           "later calls raise sieve.Error. Entries handed out and not done "
           "are fetched again by their shard's next owner.");
  DefineCrawlFrontierMethods(cls);
}

}  // namespace sieve::python
