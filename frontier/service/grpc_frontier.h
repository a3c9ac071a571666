// frontier/service/grpc_frontier.h: GrpcFrontier, a CrawlFrontier that is a
// URLFrontier client (`sieve crawl --frontier grpc://HOST:PORT`). The server
// (`sieve frontier serve`, or any URLFrontier server) holds the queues and the
// seen set; this side keeps per-host politeness for what it fetches.
//
// How it works:
//   - Add, AddMany: one PutDiscovered batch for all the URLs (a page's
//     links; Sieve's server says which were new); against a server without
//     PutDiscovered, one PutURLs stream (then a URL counts as queued when the
//     server acknowledged it). No lock is held during the call.
//   - Next: hands out URLs from a local buffer that GetURLs fills (at most
//     max_urls_per_queue per host per call); a host is ready when it has fewer
//     than max_in_flight_per_host URLs in flight and its delay since its last
//     fetch has passed. kEmpty when the buffer is empty, nothing is in flight
//     and the server's GetStats reports nothing queued and nothing in transit.
//   - Done: the URL goes back as a KnownURLItem: done (refetchable_from_date
//     0), or, throttled or a transient error within the retry limits, due
//     again after the back-off.
//
// Surprises first:
//   - Next and Done hold one mutex; Add/AddMany and Next make a round trip
//     each (Next when its buffer is empty), each bounded by `rpc_timeout`.
//   - URLs handed out by GetURLs are in transit on the server for
//     `delay_requestable`; a crawler that dies returns them to other crawlers
//     after that.
//   - Checkpoint writes nothing: the crawl's state is on the server.
//   - Depth and metadata travel in URLInfo.metadata ("sieve.depth",
//     "sieve.meta").
//
// Example:
//   auto f = sieve::service::GrpcFrontier::Create({.target = "127.0.0.1:7071"});
//   (*f)->Add("http://a.example/", "a.example", 0);
//   ... drive it as any CrawlFrontier ...
#ifndef SIEVE_FRONTIER_SERVICE_GRPC_FRONTIER_H_
#define SIEVE_FRONTIER_SERVICE_GRPC_FRONTIER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "frontier/crawl_frontier.h"
#include "frontier/politeness.h"

namespace sieve::service {

struct GrpcFrontierOptions {
  // "HOST:PORT" of the server. REQUIRES: not empty.
  std::string target{};
  // The server's crawl (namespace); empty = DEFAULT.
  std::string crawl_id{};
  // Per-host rules applied on this side (delay, in-flight cap, back-off,
  // retries, Crawl-delay cap).
  PolitenessOptions politeness{};
  // Bound of every call. Default: 10 s.
  absl::Duration rpc_timeout = absl::Seconds(10);
  // GetURLs' delay_requestable: seconds a URL handed to us stays in transit.
  // Default: 600.
  uint32_t delay_requestable = 600;
  // How long Next asks the loop to wait when the server has URLs that are not
  // due yet (or in transit at other crawlers). Default: 200 ms.
  absl::Duration idle_poll = absl::Milliseconds(200);
  // GetURLs limits. Defaults: 4 URLs per queue, 64 queues.
  uint32_t max_urls_per_queue = 4;
  uint32_t max_queues = 64;
};

// "grpc://HOST:PORT" -> "HOST:PORT"; InvalidArgument otherwise.
absl::StatusOr<std::string> ParseGrpcTarget(std::string_view url);

class GrpcFrontier final : public CrawlFrontier {
 public:
  // Connects (lazily: the first call opens the channel). InvalidArgument for
  // bad options.
  static absl::StatusOr<std::unique_ptr<GrpcFrontier>> Create(
      GrpcFrontierOptions options);
  ~GrpcFrontier() override;

  bool Add(std::string_view url, std::string_view host, uint32_t depth,
           std::string_view metadata = {}) override;
  // One stream for all of `urls`: one PutDiscovered batch (the server says
  // which were new), or, against another URLFrontier server, one PutURLs
  // stream. Holds no lock during the call.
  void AddMany(std::span<const FrontierAdd> urls,
               std::span<bool> queued) override;
  NextUrl Next(absl::Time now) override;
  absl::StatusOr<UrlFate> Done(std::string_view url,
                               const FetchOutcome& outcome,
                               absl::Time now) override;
  void SetCrawlDelay(std::string_view host, absl::Duration delay) override;
  absl::Status Checkpoint(SnapshotWriter& snapshot) override;
  FrontierStats stats() const override;
  FrontierFilterStats filter_stats() const override { return {}; }
  absl::Status status() const override;

 private:
  struct Host {
    int in_flight = 0;
    absl::Time next_allowed = absl::InfinitePast();
    HostPoliteness politeness;
  };
  struct InFlight {
    FrontierUrl url;
    int throttle_retries = 0;
    int error_retries = 0;
  };
  struct Rpc;  // The channel and stubs (grpc_frontier.cc).

  explicit GrpcFrontier(GrpcFrontierOptions options);
  // GetURLs into buffer_; the number of URLs received. REQUIRES: mu_ held.
  size_t RefillLocked();
  // PutURLs of one KnownURLItem. REQUIRES: mu_ held.
  absl::Status PutKnownLocked(const FrontierUrl& url, uint64_t refetch);
  // Whether the server reports nothing queued and nothing in transit.
  bool ServerEmptyLocked();
  void NoteErrorLocked(const absl::Status& s);

  const GrpcFrontierOptions options_;
  std::unique_ptr<Rpc> rpc_;
  mutable std::mutex mu_;
  std::deque<FrontierUrl> buffer_;
  absl::flat_hash_map<std::string, InFlight> in_flight_;
  // Retry counts of URLs sent back with a refetch date, by URL.
  absl::flat_hash_map<std::string, std::pair<int, int>> retries_;
  absl::flat_hash_map<std::string, Host> hosts_;
  absl::Time next_poll_ = absl::InfinitePast();
  std::atomic<bool> put_discovered_unavailable_ = false;
  std::mt19937_64 rng_{0x5eed};
  FrontierStats stats_;
  absl::Status status_;
};

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_GRPC_FRONTIER_H_
