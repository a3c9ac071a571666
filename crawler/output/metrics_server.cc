#include "crawler/output/metrics_server.h"

#include <httplib.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sieve {

MetricsServer::MetricsServer() : server_(std::make_unique<httplib::Server>()) {}

MetricsServer::~MetricsServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    std::string_view address) {
  std::string host = "127.0.0.1";
  std::string_view port_text = address;
  if (const size_t colon = address.rfind(':');
      colon != std::string_view::npos) {
    host = std::string(address.substr(0, colon));
    port_text = address.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  if (host.empty() || !absl::SimpleAtoi(std::string(port_text), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("output.metrics '", std::string(address),
                     "': expected ADDR:PORT or PORT"));
  }
  std::unique_ptr<MetricsServer> m(new MetricsServer());
  httplib::Server& server = *m->server_;
  server.set_read_timeout(5, 0);
  server.set_write_timeout(5, 0);
  MetricsServer* self = m.get();
  server.Get("/metrics", [self](const httplib::Request&,
                                httplib::Response& res) {
    std::lock_guard<std::mutex> lock(self->mu_);
    res.set_content(self->metrics_, "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/status",
             [self](const httplib::Request&, httplib::Response& res) {
               std::lock_guard<std::mutex> lock(self->mu_);
               res.set_content(self->status_, "application/json");
             });
  const int bound = port == 0 ? server.bind_to_any_port(host)
                              : (server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(absl::StrCat(
        "output.metrics: cannot listen on ", std::string(address)));
  }
  const bool v6 = host.find(':') != std::string::npos;
  m->url_ =
      absl::StrCat("http://", v6 ? "[" : "", host, v6 ? "]" : "", ":", bound);
  m->thread_ = std::thread([self] { self->server_->listen_after_bind(); });
  return m;
}

void MetricsServer::Publish(std::string metrics, std::string status) {
  std::lock_guard<std::mutex> lock(mu_);
  metrics_ = std::move(metrics);
  status_ = std::move(status);
}

}  // namespace sieve
