#include "tests/crawler/crawl/gated_site.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sieve::testing_util {

GatedSite::GatedSite(Files files, std::string gate,
                     std::map<std::string, int> statuses,
                     std::map<std::string, std::string> retry_after)
    : files_(std::move(files)),
      gate_(std::move(gate)),
      statuses_(std::move(statuses)),
      retry_after_(std::move(retry_after)) {
  server_.Get(
      ".*", [this](const httplib::Request& req, httplib::Response& res) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          hits_.push_back(
              {req.path, req.get_header_value("User-Agent"), absl::Now()});
          changed_.notify_all();
          if (!gate_.empty() && req.path == gate_) {
            changed_.wait(lock, [this] { return open_; });
          }
        }
        if (auto status = statuses_.find(req.path); status != statuses_.end()) {
          res.status = status->second;
          if (auto after = retry_after_.find(req.path);
              after != retry_after_.end()) {
            res.set_header("Retry-After", after->second);
          }
          return;
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
  return changed_.wait_for(lock, std::chrono::seconds(30), [&] {
    return std::any_of(hits_.begin(), hits_.end(),
                       [&](const Hit& hit) { return hit.path == path; });
  });
}

void GatedSite::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = true;
  changed_.notify_all();
}

int GatedSite::Requests(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(
      std::count_if(hits_.begin(), hits_.end(),
                    [&](const Hit& hit) { return hit.path == path; }));
}

std::vector<GatedSite::Hit> GatedSite::Hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

std::set<std::string> GatedSite::Paths() const {
  std::set<std::string> out;
  for (const Hit& hit : Hits()) out.insert(hit.path);
  return out;
}

}  // namespace sieve::testing_util
