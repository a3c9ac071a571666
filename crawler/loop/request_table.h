// crawler/loop/request_table.h: the crawl loop's request table: every
// FetchRequest the Fetcher has in flight, by id, and the two limits on
// starting more (crawl.max_pages, politeness.max_requests_per_second).
//
// Owns: the next request id, the requests in flight (one Request each:
// added when submitted, taken when its one FetchResponse comes back, so
// size() == Fetcher::in_flight() between loop turns), the page requests
// made so far (against max_pages; a retried page gives its request back),
// and when the next request may start (the rate cap: one request per
// 1 / max_requests_per_second, crawl-wide in this process).
//
//   kPage    a frontier URL (a page, a sitemap, a requisite) in one of its
//            host's slots; `url` is what Next handed out.
//   kRobots  the robots.txt of `origin`, fetched in the slot of the first
//            URL of that origin Next handed out (the URLs waiting for it are
//            the robots gate's, robots_gate.h), or `in_lane`: in its host's
//            lane for a render's request (CrawlFrontier::StartHostRequest).
//   kSubresource  a request of a render (crawler/render/render_queue.h),
//            started in its host's lane (CrawlFrontier::StartHostRequest);
//            `ticket` is the render's; not a page (max_pages).
//
// Not thread-safe: the crawl loop's thread only.
//
// Example:
//   RequestTable table({.max_pages = 100, .max_requests_per_second = 5});
//   if (table.PageBudgetLeft() && !table.RateWait(now)) {
//     const uint64_t id = table.Add({.kind = RequestKind::kPage, ...});
//   }
//   std::optional<Request> request = table.Take(response.id);
#ifndef SIEVE_CRAWLER_LOOP_REQUEST_TABLE_H_
#define SIEVE_CRAWLER_LOOP_REQUEST_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "frontier/crawl_frontier.h"

namespace sieve {

enum class RequestKind { kPage, kRobots, kSubresource };

// One request in flight.
struct Request {
  RequestKind kind = RequestKind::kPage;
  FrontierUrl url{};        // kPage: the URL; kRobots: unused.
  std::string host{};       // The frontier's host key (politeness.key).
  std::string authority{};  // kRobots: host[:port] of the robots.txt URL.
  std::string origin{};     // kRobots: RobotsCache::Key of the origin.
  absl::Time start{};       // When it was submitted.
  uint64_t ticket = 0;      // kSubresource: RenderQueue::Ask::ticket.
  // kRobots: started in the host's lane (EndHostRequest when it ends), not
  // in a URL's slot. Default: false.
  bool in_lane = false;
};

class RequestTable {
 public:
  struct Options {
    // crawl.max_pages: page requests made, retries given back; 0 = no limit.
    // REQUIRES: >= 0. Default: 0.
    int64_t max_pages = 0;
    // politeness.max_requests_per_second: requests started a second, robots.txt
    // included; 0 = no cap. REQUIRES: >= 0. Default: 0.
    double max_requests_per_second = 0;
  };
  explicit RequestTable(Options options) : options_(options) {}

  // Adds `request` (submitted at request.start) and returns its id; a kPage
  // request counts against max_pages, and every request spaces the next by
  // the rate cap. O(1).
  uint64_t Add(Request request);
  // Takes the request `id` out of the table; nullopt when it is not in it.
  std::optional<Request> Take(uint64_t id);
  // A page request taken was not used up (the frontier retries the URL).
  void GiveBackPage() { --pages_started_; }
  // After --resume: the pages of the runs before count against max_pages.
  void SetPagesStarted(uint64_t pages) { pages_started_ = pages; }

  // Whether max_pages allows another page request.
  bool PageBudgetLeft() const {
    return options_.max_pages == 0 ||
           pages_started_ < static_cast<uint64_t>(options_.max_pages);
  }
  // How long the rate cap holds the next request back at `now`; nullopt when
  // it may start.
  std::optional<absl::Duration> RateWait(absl::Time now) const;
  size_t size() const { return requests_.size(); }

 private:
  const Options options_;
  uint64_t next_id_ = 1;
  absl::flat_hash_map<uint64_t, Request> requests_;
  uint64_t pages_started_ = 0;
  absl::Time next_start_ = absl::InfinitePast();
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_REQUEST_TABLE_H_
