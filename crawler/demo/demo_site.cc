#include "crawler/demo/demo_site.h"

#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "crawler/demo/hostile_pages.h"

namespace sieve {

absl::Status DemoSite::MakeServer(const SiteOptions& options) {
  tls_ = !options.tls_cert_file.empty() && !options.tls_key_file.empty();
  if (tls_) {
    server_ = std::make_unique<httplib::SSLServer>(
        options.tls_cert_file.c_str(), options.tls_key_file.c_str());
    if (!server_->is_valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "demo site: cannot load the certificate ", options.tls_cert_file,
          " or its key ", options.tls_key_file));
    }
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  // Without it, headers and body leave in two segments and Nagle's algorithm
  // meets the client's delayed ACK: 40 ms per response on loopback.
  server_->set_tcp_nodelay(true);
  // As nginx's keepalive_requests: a crawler's connection to the site lives
  // for 1000 requests (cpp-httplib closes it after 5 by default).
  server_->set_keep_alive_max_count(1000);
  // cpp-httplib answers "Accept-Encoding: br" with brotli at its slowest
  // quality; on loopback compression only costs time, so the demo site sends
  // bodies as they are.
  server_->set_pre_routing_handler(
      [](const httplib::Request& req, httplib::Response&) {
        const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
        return httplib::Server::HandlerResponse::Unhandled;
      });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0)
    return absl::InternalError("demo site: cannot bind 127.0.0.1");
  return absl::OkStatus();
}

void DemoSite::Serve(const httplib::Request& req, httplib::Response& res) {
  const absl::Time start = absl::Now();
  const int active = ++active_;
  int seen = max_active_.load();
  while (active > seen && !max_active_.compare_exchange_weak(seen, active)) {
  }
  std::string target = req.path;
  if (!req.params.empty()) {
    // httplib splits the query off; the log keeps what the crawler asked for.
    size_t q = req.target.find('?');
    if (q != std::string::npos) target = req.path + req.target.substr(q);
  }
  SiteResponse r = graph_->Respond(target);
  if (req.path == "/robots.txt" &&
      robots_answered_.fetch_add(1) <
          graph_->options().robots_unavailable_first) {
    r = SiteResponse();
    r.status = 503;
    r.body = "busy";
  }
  const absl::Duration delay = r.delay + graph_->options().response_delay;
  if (delay > absl::ZeroDuration()) absl::SleepFor(delay);
  res.status = r.status;
  if (!r.location.empty()) res.set_header("Location", r.location);
  if (!r.retry_after.empty()) {
    res.set_header("Retry-After", r.retry_after);
  }
  res.set_content(r.body, r.content_type);
  --active_;
  std::lock_guard<std::mutex> lock(mu_);
  requests_.push_back(
      SiteRequest{.path = target, .start = start, .end = absl::Now()});
}

absl::StatusOr<std::unique_ptr<DemoSite>> DemoSite::Start(SiteOptions options) {
  std::unique_ptr<DemoSite> site(new DemoSite());
  if (absl::Status s = site->MakeServer(options); !s.ok()) return s;
  options.offsite_authority = absl::StrCat("localhost:", site->port_);
  options.self_authority = site->authority();
  site->graph_ = std::make_unique<SiteGraph>(std::move(options));

  if (site->graph_->options().hostile_pages) {
    site->hostile_ = std::make_unique<HostilePages>();
    site->hostile_->Register(*site->server_);  // Before the catch-all route.
  }
  DemoSite* self = site.get();
  site->server_->Get(
      ".*", [self](const httplib::Request& req, httplib::Response& res) {
        self->Serve(req, res);
      });
  site->thread_ = std::thread([self] { self->server_->listen_after_bind(); });
  while (!site->server_->is_running()) absl::SleepFor(absl::Milliseconds(1));
  return site;
}

DemoSite::~DemoSite() {
  if (hostile_ != nullptr) hostile_->Stop();
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string DemoSite::authority() const {
  return absl::StrCat("127.0.0.1:", port_);
}

std::string DemoSite::root_url() const {
  return absl::StrCat(tls_ ? "https://" : "http://", authority(), "/");
}

std::vector<SiteRequest> DemoSite::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

}  // namespace sieve
