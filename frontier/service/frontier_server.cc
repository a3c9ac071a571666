#include "frontier/service/frontier_server.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "frontier/service/internal/grpc_services.h"

namespace sieve::service {

absl::StatusOr<std::unique_ptr<FrontierServer>> FrontierServer::Start(
    FrontierServerOptions options) {
  std::unique_ptr<FrontierServer> server(new FrontierServer());
  absl::StatusOr<std::unique_ptr<FrontierCore>> core =
      FrontierCore::Open(std::move(options.core));
  if (!core.ok()) return core.status();
  server->core_ = *std::move(core);
  server->frontier_service_ = std::make_unique<internal::URLFrontierService>(
      server->core_.get(), options.listen);
  server->sieve_service_ =
      std::make_unique<internal::SieveFrontierService>(server->core_.get());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.RegisterService(server->frontier_service_.get());
  builder.RegisterService(server->sieve_service_.get());
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen));
  }
  return server;
}

FrontierServer::~FrontierServer() { Shutdown(absl::ZeroDuration()); }

void FrontierServer::Shutdown(absl::Duration grace) {
  if (shut_down_ || !server_) return;
  shut_down_ = true;
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(grace));
}

void FrontierServer::Wait() {
  if (server_) server_->Wait();
}

}  // namespace sieve::service
