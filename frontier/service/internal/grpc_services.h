// frontier/service/internal/grpc_services.h: the gRPC adapters over
// FrontierCore: URLFrontierService (the published API) and
// SieveFrontierService (PutDiscovered). Each method translates messages and
// statuses; the semantics are FrontierCore's.
//
// Flow control: the streaming methods use gRPC's synchronous API, so PutURLs
// reads the next item only after the previous one is stored and its ack
// written; a client pushing faster than the server stores waits on HTTP/2
// flow control, and nothing is buffered without bound.
#ifndef SIEVE_FRONTIER_SERVICE_INTERNAL_GRPC_SERVICES_H_
#define SIEVE_FRONTIER_SERVICE_INTERNAL_GRPC_SERVICES_H_

#include <string>

#include "frontier/service/frontier_core.h"
#include "sieve_frontier.grpc.pb.h"
#include "urlfrontier.grpc.pb.h"

namespace sieve::service::internal {

class URLFrontierService final : public urlfrontier::URLFrontier::Service {
 public:
  // `core` must outlive the service; `node` is what ListNodes returns.
  URLFrontierService(FrontierCore* core, std::string node)
      : core_(core), node_(std::move(node)) {}

  grpc::Status ListNodes(grpc::ServerContext*, const urlfrontier::Empty*,
                         urlfrontier::StringList* out) override;
  grpc::Status ListCrawls(grpc::ServerContext*, const urlfrontier::Local*,
                          urlfrontier::StringList* out) override;
  grpc::Status DeleteCrawl(grpc::ServerContext*,
                           const urlfrontier::DeleteCrawlMessage* in,
                           urlfrontier::Long* out) override;
  grpc::Status ListQueues(grpc::ServerContext*,
                          const urlfrontier::Pagination* in,
                          urlfrontier::QueueList* out) override;
  grpc::Status GetURLs(
      grpc::ServerContext* ctx, const urlfrontier::GetParams* in,
      grpc::ServerWriter<urlfrontier::URLInfo>* writer) override;
  grpc::Status PutURLs(
      grpc::ServerContext* ctx,
      grpc::ServerReaderWriter<urlfrontier::AckMessage, urlfrontier::URLItem>*
          stream) override;
  grpc::Status GetStats(grpc::ServerContext*,
                        const urlfrontier::QueueWithinCrawlParams* in,
                        urlfrontier::Stats* out) override;
  grpc::Status DeleteQueue(grpc::ServerContext*,
                           const urlfrontier::QueueWithinCrawlParams* in,
                           urlfrontier::Long* out) override;
  grpc::Status BlockQueueUntil(grpc::ServerContext*,
                               const urlfrontier::BlockQueueParams* in,
                               urlfrontier::Empty*) override;
  grpc::Status SetActive(grpc::ServerContext*, const urlfrontier::Active* in,
                         urlfrontier::Empty*) override;
  grpc::Status GetActive(grpc::ServerContext*, const urlfrontier::Local*,
                         urlfrontier::Boolean* out) override;
  grpc::Status SetDelay(grpc::ServerContext*,
                        const urlfrontier::QueueDelayParams* in,
                        urlfrontier::Empty*) override;
  grpc::Status SetLogLevel(grpc::ServerContext*,
                           const urlfrontier::LogLevelParams* in,
                           urlfrontier::Empty*) override;
  grpc::Status SetCrawlLimit(grpc::ServerContext*,
                             const urlfrontier::CrawlLimitParams* in,
                             urlfrontier::Empty*) override;
  grpc::Status GetURLStatus(grpc::ServerContext*,
                            const urlfrontier::URLStatusRequest* in,
                            urlfrontier::URLItem* out) override;
  grpc::Status ListURLs(
      grpc::ServerContext* ctx, const urlfrontier::ListUrlParams* in,
      grpc::ServerWriter<urlfrontier::URLItem>* writer) override;
  grpc::Status CountURLs(grpc::ServerContext*,
                         const urlfrontier::CountUrlParams* in,
                         urlfrontier::Long* out) override;
  grpc::Status PurgeURLs(grpc::ServerContext*,
                         const urlfrontier::PurgeUrlParams* in,
                         urlfrontier::Long* out) override;

 private:
  FrontierCore* core_;
  const std::string node_;
};

class SieveFrontierService final
    : public ::sieve_urlfrontier::SieveFrontier::Service {
 public:
  explicit SieveFrontierService(FrontierCore* core) : core_(core) {}
  grpc::Status PutDiscovered(
      grpc::ServerContext* ctx,
      grpc::ServerReaderWriter<::sieve_urlfrontier::BatchAck,
                               ::sieve_urlfrontier::DiscoveredBatch>* stream)
      override;

 private:
  FrontierCore* core_;
};

// absl::Status -> grpc::Status, same code and message.
grpc::Status ToGrpc(const absl::Status& s);

}  // namespace sieve::service::internal

#endif  // SIEVE_FRONTIER_SERVICE_INTERNAL_GRPC_SERVICES_H_
