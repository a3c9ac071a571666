// frontier/service/frontier_server.h: FrontierServer, the URLFrontier gRPC
// server (`sieve frontier serve`): FrontierCore behind the URLFrontier service
// and Sieve's PutDiscovered service, on one listening address.
//
// Surprises first:
//   - "127.0.0.1:0" picks a free port; port() says which.
//   - Shutdown waits up to `grace` for calls in progress, then cancels them;
//     every acknowledged put is already on disk, so nothing acknowledged is
//     lost however the server stops (even kill -9).
//
// Example:
//   auto server = sieve::service::FrontierServer::Start(
//       {.listen = "127.0.0.1:0", .core = {.data_dir = "/tmp/frontier"}});
//   int port = (*server)->port();
//   ... clients call 127.0.0.1:port ...
//   (*server)->Shutdown(absl::Seconds(5));
#ifndef SIEVE_FRONTIER_SERVICE_FRONTIER_SERVER_H_
#define SIEVE_FRONTIER_SERVICE_FRONTIER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "frontier/service/frontier_core.h"

namespace grpc {
class Server;
}

namespace sieve::service {

namespace internal {
class URLFrontierService;
class SieveFrontierService;
}  // namespace internal

struct FrontierServerOptions {
  // host:port to listen on. Default: "127.0.0.1:7071".
  std::string listen = "127.0.0.1:7071";
  FrontierCoreOptions core{};
};

class FrontierServer {
 public:
  // Opens the core (rebuilding its state from the store) and starts serving.
  // Unavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<FrontierServer>> Start(
      FrontierServerOptions options);
  ~FrontierServer();  // Shutdown(absl::ZeroDuration()) if still running.

  int port() const { return port_; }
  FrontierCore& core() { return *core_; }

  // Stops accepting calls; waits up to `grace` for running ones. Idempotent.
  void Shutdown(absl::Duration grace);
  // Blocks until Shutdown has finished.
  void Wait();

 private:
  FrontierServer() = default;
  std::unique_ptr<FrontierCore> core_;
  std::unique_ptr<internal::URLFrontierService> frontier_service_;
  std::unique_ptr<internal::SieveFrontierService> sieve_service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_FRONTIER_SERVER_H_
