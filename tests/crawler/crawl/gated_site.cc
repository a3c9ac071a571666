#include "tests/crawler/crawl/gated_site.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace sieve::testing_util {

GatedSite::GatedSite(Files files, std::string gate)
    : files_(std::move(files)), gate_(std::move(gate)) {
  server_.Get(".*",
              [this](const httplib::Request& req, httplib::Response& res) {
                {
                  std::unique_lock<std::mutex> lock(mu_);
                  ++requests_[req.path];
                  changed_.notify_all();
                  if (!gate_.empty() && req.path == gate_) {
                    changed_.wait(lock, [this] { return open_; });
                  }
                }
                auto it = files_.find(req.path);
                if (it == files_.end()) {
                  res.status = 404;
                  return;
                }
                res.set_content(it->second.second, it->second.first);
              });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
}

GatedSite::~GatedSite() {
  Open();
  server_.stop();
  thread_.join();
}

std::string GatedSite::url(const std::string& path) const {
  return absl::StrCat("http://127.0.0.1:", port_, path);
}

bool GatedSite::WaitFor(const std::string& path) {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, std::chrono::seconds(30),
                           [&] { return requests_.count(path) > 0; });
}

void GatedSite::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = true;
  changed_.notify_all();
}

int GatedSite::Requests(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = requests_.find(path);
  return it == requests_.end() ? 0 : it->second;
}

}  // namespace sieve::testing_util
