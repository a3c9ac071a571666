#include "tests/crawler/crawl/changing_site.h"

#include <httplib.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace sieve::testing_util {
namespace {

std::string HttpDate(int version) {
  return absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT",
                          absl::FromUnixSeconds(1'700'000'000 + version),
                          absl::UTCTimeZone());
}

}  // namespace

ChangingSite::ChangingSite(std::string robots_txt)
    : server_(std::make_unique<httplib::Server>()),
      robots_txt_(std::move(robots_txt)),
      versions_{{"/always.html", 1},
                {"/never.html", 1},
                {"/plain.html", 1},
                {"/set.html", 1}} {
  server_->set_keep_alive_max_count(1000);
  server_->Get(".*", [this](const httplib::Request& req,
                            httplib::Response& res) {
    Request logged{
        .path = req.path,
        .start = absl::Now(),
        .end = {},
        .status = 200,
        .if_none_match = req.get_header_value("If-None-Match"),
        .if_modified_since = req.get_header_value("If-Modified-Since")};
    std::string body;
    std::lock_guard lock(mu_);
    auto page = versions_.find(req.path);
    if (req.path == "/") {
      body = "<!doctype html><title>home</title>";
      for (const auto& [path, version] : versions_)
        absl::StrAppend(&body, "<a href=\"", path, "\">", path, "</a>\n");
      res.set_content(body, "text/html");
    } else if (req.path == "/robots.txt" && !robots_txt_.empty()) {
      body = robots_txt_;
      res.set_content(body, "text/plain");
    } else if (page == versions_.end()) {
      logged.status = 404;
      res.status = 404;
      res.set_content("not found", "text/plain");
    } else {
      if (req.path == "/always.html") ++page->second;
      const int version = page->second;
      const bool validators = req.path != "/plain.html";
      const std::string etag = absl::StrCat("\"v", version, "\"");
      const std::string date = HttpDate(version);
      const bool match = validators && (!logged.if_none_match.empty()
                                            ? logged.if_none_match == etag
                                            : logged.if_modified_since == date);
      if (validators) {
        res.set_header("ETag", etag);
        res.set_header("Last-Modified", date);
      }
      if (match) {
        logged.status = 304;
        res.status = 304;
      } else {
        body = absl::StrCat("<!doctype html><title>", req.path,
                            "</title><p>version ", version,
                            "</p><a href=\"/\">home</a>");
        res.set_content(body, "text/html");
      }
    }
    logged.body_bytes = body.size();
    logged.end = absl::Now();
    log_.push_back(std::move(logged));
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) ADD_FAILURE() << "cannot bind 127.0.0.1";
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

ChangingSite::~ChangingSite() {
  server_->stop();
  thread_.join();
}

std::string ChangingSite::root_url() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/");
}

void ChangingSite::Bump(const std::string& path) {
  std::lock_guard lock(mu_);
  ++versions_[path];
}

std::vector<ChangingSite::Request> ChangingSite::requests() const {
  std::lock_guard lock(mu_);
  return log_;
}

std::vector<ChangingSite::Request> ChangingSite::requests(
    const std::string& path) const {
  std::vector<Request> out;
  for (Request& r : requests())
    if (r.path == path) out.push_back(std::move(r));
  return out;
}

}  // namespace sieve::testing_util
