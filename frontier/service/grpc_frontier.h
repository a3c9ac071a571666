// frontier/service/grpc_frontier.h: GrpcFrontier, a CrawlFrontier that is a
// URLFrontier client (`sieve crawl --frontier grpc://HOST:PORT`). The server
// (`sieve frontier serve`, or any URLFrontier server) holds the queues and the
// seen set; the per-host rules are those of a local sieve::Frontier that this
// client feeds from GetURLs, as each shard of RedisFrontier does
// (frontier/cluster/redis_frontier.h): one enforcer of politeness, retries,
// page caps, adaptive delay and unreachable hosts for every frontier.
//
// How it works:
//   - Add, AddMany: one PutDiscovered batch for all the URLs (a page's
//     links; Sieve's server says which were new); against a server without
//     PutDiscovered, one PutURLs stream (then a URL counts as queued when the
//     server acknowledged it). No lock is held during the call. A URL of a
//     host past max_urls_per_host here is refused without a call.
//   - Next: hands out what the local Frontier says may be fetched now. While
//     none may, each Next calls GetURLs (at most max_urls_per_queue per host
//     and max_queues hosts per call) to feed it, up to max_queues *
//     max_urls_per_queue URLs held here, and after an answer with none, once
//     per idle_poll. kEmpty when the local Frontier is empty and the server's
//     GetStats reports nothing queued and nothing in transit.
//   - Done: the local Frontier decides the URL's fate. A retry stays here
//     (behind its host's URLs held here, after the host's back-off) and in
//     transit on the server; a finished or given-up URL goes back to the
//     server as a KnownURLItem, done (refetchable_from_date 0).
//   - A URL the local Frontier refuses when fed (its host past its page cap,
//     or finished here before) is reported done at once; when a host reaches
//     its cap, its URLs held here are reported done.
//
// Surprises first:
//   - Next and Done hold one mutex and may make a round trip (Next: GetURLs,
//     GetStats; Done: one PutURLs), each bounded by `rpc_timeout`. An update
//     that failed is sent again at the next Next; the crawl does not end
//     before it is sent. Any failed call is reported by status().
//   - URLs handed out by GetURLs are in transit on the server for
//     `delay_requestable`; a crawler that dies returns them to other crawlers
//     after that. One that waits here longer (its host's delay, a retry's
//     back-off) may be handed out again to another crawler; to this one it is
//     not fed twice.
//   - The page cap counts the pages this client fetched of a host: several
//     clients of one server each fetch up to max_urls_per_host of it.
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
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "frontier/crawl_frontier.h"
#include "frontier/frontier.h"
#include "frontier/politeness.h"

namespace sieve::service {

struct GrpcFrontierOptions {
  // "HOST:PORT" of the server. REQUIRES: not empty.
  std::string target{};
  // The server's crawl (namespace); empty = DEFAULT.
  std::string crawl_id{};
  // Per-host rules of the local Frontier (delay, in-flight cap, adaptive
  // delay, back-off, retries, Crawl-delay cap, unreachable hosts). Default:
  // PolitenessOptions's defaults.
  PolitenessOptions politeness{};
  // Page cap per host of the local Frontier (FrontierOptions::
  // max_urls_per_host). 0: no cap. Default: 0.
  uint64_t max_urls_per_host = 0;
  // Scratch directory of the local Frontier (its disk spill). Default: empty,
  // the system temp directory.
  std::filesystem::path work_dir{};
  // Bound of every call. Default: 10 s.
  absl::Duration rpc_timeout = absl::Seconds(10);
  // GetURLs' delay_requestable: seconds a URL handed to us stays in transit.
  // Default: 600.
  uint32_t delay_requestable = 600;
  // How long Next asks the loop to wait when the server has URLs that are not
  // due yet (or in transit at other crawlers), and the least time between
  // two GetURLs after one that found none. Default: 200 ms.
  absl::Duration idle_poll = absl::Milliseconds(200);
  // GetURLs limits. A retried URL goes behind its host's URLs held here
  // only. REQUIRES: > 0. Defaults: 4 URLs per queue, 64 queues.
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
  // The local Frontier's (the one owner of the page cap).
  std::vector<FrontierUrl> TakeDiscarded() override {
    return local_->TakeDiscarded();
  }
  absl::StatusOr<UrlFate> Done(std::string_view url,
                               const FetchOutcome& outcome,
                               absl::Time now) override;
  void SetCrawlDelay(std::string_view host, absl::Duration delay) override;
  absl::Status Checkpoint(SnapshotWriter& snapshot) override;
  FrontierStats stats() const override;
  FrontierFilterStats filter_stats() const override { return {}; }
  absl::Status status() const override;

 private:
  struct Rpc;  // The channel and stubs (grpc_frontier.cc).

  GrpcFrontier(GrpcFrontierOptions options, std::unique_ptr<Frontier> local);
  // AddMany's call: PutDiscovered, or PutURLs against another server.
  void SendAdds(std::span<const FrontierAdd> urls, std::span<bool> queued);
  // GetURLs into the local Frontier when it has nothing ready (see Next).
  void MaybeRefillLocked(absl::Time now);
  // GetURLs; feeds the local Frontier. The number of URLs received.
  size_t RefillLocked();
  // Reports `urls` done to the server (one PutURLs stream); those not
  // acknowledged are kept in unsent_ for the next Next.
  void SendDoneLocked(std::vector<FrontierUrl> urls);
  // The host of the URL just handed out reached its page cap: its other URLs
  // fed here are done.
  void FinishDroppedHostLocked(const std::string& host);
  // Whether the server reports nothing queued and nothing in transit.
  bool ServerEmptyLocked();
  void NoteErrorLocked(const absl::Status& s);

  const GrpcFrontierOptions options_;
  std::unique_ptr<Rpc> rpc_;
  // Thread-safe; Add reads its dropped hosts without mu_.
  const std::unique_ptr<Frontier> local_;
  mutable std::mutex mu_;
  // URLs fed to local_ and not yet finished (queued there or in flight).
  struct Fed {
    FrontierUrl url;
    bool in_flight = false;  // Handed out by Next, Done not yet called.
  };
  absl::flat_hash_map<std::string, Fed> fed_;
  size_t in_flight_ = 0;
  // Done updates the server has not acknowledged yet.
  std::vector<FrontierUrl> unsent_;
  absl::Time next_poll_ = absl::InfinitePast();
  std::atomic<bool> put_discovered_unavailable_ = false;
  // The server's answers to adds (local_ counts the URLs fed, not these),
  // and adds refused here for a host past its cap.
  FrontierStats counters_;
  absl::Status status_;
};

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_GRPC_FRONTIER_H_
