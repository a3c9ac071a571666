#include "frontier/service/internal/grpc_services.h"

#include <vector>

#include "spdlog/spdlog.h"

namespace sieve::service::internal {

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

grpc::Status URLFrontierService::ListNodes(grpc::ServerContext*,
                                           const urlfrontier::Empty*,
                                           urlfrontier::StringList* out) {
  out->add_values(node_);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::ListCrawls(grpc::ServerContext*,
                                            const urlfrontier::Local*,
                                            urlfrontier::StringList* out) {
  for (std::string& name : core_->ListCrawls()) out->add_values(name);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::DeleteCrawl(
    grpc::ServerContext*, const urlfrontier::DeleteCrawlMessage* in,
    urlfrontier::Long* out) {
  absl::StatusOr<uint64_t> n = core_->DeleteCrawl(in->value());
  if (!n.ok()) return ToGrpc(n.status());
  out->set_value(*n);
  spdlog::info("DeleteCrawl {}: {} URLs", CrawlName(in->value()), *n);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::ListQueues(grpc::ServerContext*,
                                            const urlfrontier::Pagination* in,
                                            urlfrontier::QueueList* out) {
  *out = core_->ListQueues(*in);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::GetURLs(
    grpc::ServerContext* ctx, const urlfrontier::GetParams* in,
    grpc::ServerWriter<urlfrontier::URLInfo>* writer) {
  // Handed out under the core's lock, written outside it: a URL the client
  // does not read stays in transit and comes back after delay_requestable.
  for (const urlfrontier::URLInfo& info : core_->GetUrls(*in)) {
    if (ctx->IsCancelled() || !writer->Write(info)) break;
  }
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::PutURLs(
    grpc::ServerContext*,
    grpc::ServerReaderWriter<urlfrontier::AckMessage, urlfrontier::URLItem>*
        stream) {
  urlfrontier::URLItem item;
  urlfrontier::AckMessage ack;
  while (stream->Read(&item)) {
    absl::StatusOr<PutResult> r = core_->Put(item);
    ack.set_id(!item.id().empty() ? item.id()
               : item.has_known() ? item.known().info().url()
                                  : item.discovered().info().url());
    if (r.ok()) {
      ack.set_status(urlfrontier::AckMessage::OK);
    } else if (absl::IsInvalidArgument(r.status())) {
      ack.set_status(urlfrontier::AckMessage::SKIPPED);
    } else {
      spdlog::warn("PutURLs: {}", r.status().ToString());
      ack.set_status(urlfrontier::AckMessage::FAIL);
    }
    if (!stream->Write(ack)) break;
  }
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::GetStats(
    grpc::ServerContext*, const urlfrontier::QueueWithinCrawlParams* in,
    urlfrontier::Stats* out) {
  *out = core_->GetStats(*in);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::DeleteQueue(
    grpc::ServerContext*, const urlfrontier::QueueWithinCrawlParams* in,
    urlfrontier::Long* out) {
  absl::StatusOr<uint64_t> n = core_->DeleteQueue(in->crawlid(), in->key());
  if (!n.ok()) return ToGrpc(n.status());
  out->set_value(*n);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::BlockQueueUntil(
    grpc::ServerContext*, const urlfrontier::BlockQueueParams* in,
    urlfrontier::Empty*) {
  core_->BlockQueueUntil(*in);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::SetActive(grpc::ServerContext*,
                                           const urlfrontier::Active* in,
                                           urlfrontier::Empty*) {
  core_->SetActive(in->state());
  spdlog::info("SetActive {}", in->state());
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::GetActive(grpc::ServerContext*,
                                           const urlfrontier::Local*,
                                           urlfrontier::Boolean* out) {
  out->set_state(core_->active());
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::SetDelay(
    grpc::ServerContext*, const urlfrontier::QueueDelayParams* in,
    urlfrontier::Empty*) {
  core_->SetDelay(*in);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::SetLogLevel(
    grpc::ServerContext*, const urlfrontier::LogLevelParams* in,
    urlfrontier::Empty*) {
  spdlog::level::level_enum level = spdlog::level::info;
  switch (in->level()) {
    case urlfrontier::LogLevelParams::TRACE:
      level = spdlog::level::trace;
      break;
    case urlfrontier::LogLevelParams::DEBUG:
      level = spdlog::level::debug;
      break;
    case urlfrontier::LogLevelParams::INFO:
      level = spdlog::level::info;
      break;
    case urlfrontier::LogLevelParams::WARN:
      level = spdlog::level::warn;
      break;
    case urlfrontier::LogLevelParams::ERROR:
      level = spdlog::level::err;
      break;
    default:
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "unknown log level");
  }
  spdlog::set_level(level);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::SetCrawlLimit(
    grpc::ServerContext*, const urlfrontier::CrawlLimitParams* in,
    urlfrontier::Empty*) {
  core_->SetCrawlLimit(*in);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::GetURLStatus(
    grpc::ServerContext*, const urlfrontier::URLStatusRequest* in,
    urlfrontier::URLItem* out) {
  absl::StatusOr<urlfrontier::URLItem> item = core_->GetUrlStatus(*in);
  if (!item.ok()) return ToGrpc(item.status());
  *out = *std::move(item);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::ListURLs(
    grpc::ServerContext* ctx, const urlfrontier::ListUrlParams* in,
    grpc::ServerWriter<urlfrontier::URLItem>* writer) {
  absl::Status s = core_->ListUrls(*in, [&](const urlfrontier::URLItem& item) {
    return !ctx->IsCancelled() && writer->Write(item);
  });
  return ToGrpc(s);
}

grpc::Status URLFrontierService::CountURLs(
    grpc::ServerContext*, const urlfrontier::CountUrlParams* in,
    urlfrontier::Long* out) {
  absl::StatusOr<uint64_t> n = core_->CountUrls(*in);
  if (!n.ok()) return ToGrpc(n.status());
  out->set_value(*n);
  return grpc::Status::OK;
}

grpc::Status URLFrontierService::PurgeURLs(
    grpc::ServerContext*, const urlfrontier::PurgeUrlParams* in,
    urlfrontier::Long* out) {
  absl::StatusOr<uint64_t> n = core_->PurgeUrls(*in);
  if (!n.ok()) return ToGrpc(n.status());
  out->set_value(*n);
  return grpc::Status::OK;
}

grpc::Status SieveFrontierService::PutDiscovered(
    grpc::ServerContext*,
    grpc::ServerReaderWriter<::sieve_urlfrontier::BatchAck,
                             ::sieve_urlfrontier::DiscoveredBatch>* stream) {
  ::sieve_urlfrontier::DiscoveredBatch batch;
  ::sieve_urlfrontier::BatchAck ack;
  std::vector<::urlfrontier::DiscoveredURLItem> items;
  while (stream->Read(&batch)) {
    items.assign(batch.items().begin(), batch.items().end());
    uint32_t skipped = 0;
    std::vector<bool> stored;
    absl::StatusOr<uint32_t> added =
        core_->PutDiscovered(items, &skipped, &stored);
    ack.Clear();
    ack.set_id(batch.id());
    if (added.ok()) {
      ack.set_status(::urlfrontier::AckMessage::OK);
      ack.set_added(*added);
      ack.set_skipped(skipped);
      ack.set_known(static_cast<uint32_t>(items.size()) - *added - skipped);
      for (bool b : stored) ack.add_stored(b);
    } else {
      spdlog::warn("PutDiscovered: {}", added.status().ToString());
      ack.set_status(::urlfrontier::AckMessage::FAIL);
    }
    if (!stream->Write(ack)) break;
  }
  return grpc::Status::OK;
}

}  // namespace sieve::service::internal
