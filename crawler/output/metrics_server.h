// crawler/output/metrics_server.h: `sieve crawl --metrics ADDR:PORT`: an HTTP
// server (cpp-httplib, its own threads) answering GET /metrics with the
// crawl's metrics in the Prometheus text format (crawler/output/
// metrics_text.h) and GET /status with the summary so far (summary.json's
// form). The crawl loop publishes both texts every ~250 ms; a request gets
// the last ones, so the server never touches the crawl's state.
//
// Surprises first:
//   - "PORT" alone binds 127.0.0.1 (only loopback unless an address is
//     given); port 0 takes a free port (port() says which).
//   - Every wait is bounded: 5 s to read a request or write an answer.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::MetricsServer>> server =
//       sieve::MetricsServer::Start("127.0.0.1:9464");
//   (*server)->Publish(FormatPrometheusMetrics(m), SummaryToJson(summary));
#ifndef SIEVE_CRAWLER_OUTPUT_METRICS_SERVER_H_
#define SIEVE_CRAWLER_OUTPUT_METRICS_SERVER_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"

namespace httplib {
class Server;
}

namespace sieve {

class MetricsServer {
 public:
  // Binds `address` ("HOST:PORT", "[V6]:PORT" or "PORT") and serves.
  // InvalidArgument for an address that does not parse, Unavailable when it
  // cannot be bound.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      std::string_view address);
  ~MetricsServer();  // Stops the server and joins its thread.
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Replaces what /metrics and /status answer. Thread-safe.
  void Publish(std::string metrics, std::string status);
  // "http://127.0.0.1:9464".
  std::string url() const { return url_; }

 private:
  MetricsServer();
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::string url_;
  std::mutex mu_;
  std::string metrics_;  // Guarded by mu_.
  std::string status_;   // Guarded by mu_.
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_METRICS_SERVER_H_
