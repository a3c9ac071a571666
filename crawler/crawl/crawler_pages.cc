// crawler/crawl/crawler_pages.cc: page transfers and their answers: a URL is
// submitted to the Fetcher (SubmitPage, ReleaseHeld), its response is
// throttled, recorded as an error or redirect, or handed to a parser thread
// (OnResponse, OnPage), and the parsed page is recorded and done
// (CollectParsed, FinishPage).
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/crawl/crawler_impl.h"
#include "fetch/retry_policy.h"

namespace sieve {

void Crawler::Impl::SubmitPage(FrontierUrl url, absl::Time now) {
  ++pages_started_;
  const uint64_t count = ++state_.pages_per_host[url.host];
  if (config_.crawl.max_pages_per_host > 0 &&
      count >= static_cast<uint64_t>(config_.crawl.max_pages_per_host)) {
    frontier_->DropHost(url.host);  // Its other queued URLs are discarded.
  }
  const uint64_t id = next_request_id_++;
  FetchRequest request{.id = id, .url = url.url};
  std::string host = url.host;
  requests_[id] = Request{.kind = RequestKind::kPage,
                          .url = std::move(url),
                          .host = std::move(host),
                          .start = now};
  fetcher_->Submit(std::move(request));
}

void Crawler::Impl::SkipUrl(const FrontierUrl& url, absl::Time now) {
  if (absl::Status s = frontier_->Done(
          url.url, FetchOutcome::Success(absl::ZeroDuration()), now);
      !s.ok()) {
    log_->warn("frontier: {}", std::string(s.message()));
  }
}

void Crawler::Impl::ReleaseHeld(absl::Time now) {
  while (!held_.empty() && held_.begin()->first <= now && !Stopping() &&
         PageBudgetLeft()) {
    FrontierUrl url = std::move(held_.begin()->second);
    held_.erase(held_.begin());
    SubmitPage(std::move(url), now);
  }
}

void Crawler::Impl::OnResponse(FetchResponse response, absl::Time now) {
  auto it = requests_.find(response.id);
  if (it == requests_.end()) return;
  Request request = std::move(it->second);
  requests_.erase(it);
  // Politeness as the server sees it: the next request to this host starts at
  // least the delay after this response ended, not only after this request was
  // handed out (a request that waited for a connection would otherwise be
  // followed too closely).
  const absl::Duration delay = HostDelay(request.host);
  if (delay > absl::ZeroDuration())
    frontier_->BlockHost(request.host, now + delay);
  if (request.kind == RequestKind::kRobots) {
    OnRobots(request, response, now);
  } else {
    OnPage(std::move(request), std::move(response), now);
  }
}

void Crawler::Impl::OnPage(Request request, FetchResponse response,
                           absl::Time now) {
  FrontierUrl& url = request.url;
  const Origin origin = Origin::Decode(url.metadata);
  PageRecord record;
  record.url = url.url;
  record.final_url =
      response.effective_url.empty() ? url.url : response.effective_url;
  record.status = response.status;
  record.content_type = response.headers.content_type;
  record.bytes = static_cast<int64_t>(response.body.size());
  record.fetch_ms = absl::ToDoubleMilliseconds(response.timings.total);
  record.depth = url.depth;
  record.discovered_from = origin.referrer;
  record.truncated = response.truncated;
  const absl::Duration response_time = response.timings.total;

  if (response.ok() && (response.status == 429 || response.status == 503)) {
    int& throttles = throttles_[url.url];
    if (++throttles <= politeness_.max_throttle_retries) {
      // Not served: the Frontier queues it again after the host's back-off; no
      // record yet.
      ++counters_.throttled;
      --pages_started_;
      std::optional<absl::Duration> retry_after =
          ParseRetryAfter(response.headers.retry_after, absl::Now());
      (void)frontier_->Done(url.url, FetchOutcome::Throttled(retry_after), now);
      return;
    }
    throttles_.erase(
        url.url);  // The Frontier drops it now: record the last answer.
    record.error = absl::StrCat("http_", response.status);
    ++counters_.http_errors;
    FinishPage(record, url, FetchOutcome::Throttled(), now);
    return;
  }
  throttles_.erase(url.url);
  if (!response.ok()) {
    record.error = std::string(FetchErrorName(response.error));
    record.error_detail = response.error_message;
    ++counters_.fetch_errors;
    FinishPage(record, url, FetchOutcome::Error(), now);
    return;
  }
  if (response.status >= 300 && response.status < 400) {
    ++counters_.redirects;
    if (!response.redirect_url.empty()) {
      record.redirect_to = response.redirect_url;
      record.links_found = 1;
      if (origin.redirect_hops + 1 > config_.crawl.max_redirects) {
        record.error = "too_many_redirects";
        ++counters_.too_many_redirects;
      } else {
        AddOutcome added =
            AddDiscovered(policy_, response.redirect_url, url.depth,
                          Origin{.redirect_hops = origin.redirect_hops + 1,
                                 .referrer = url.url});
        record.links_new = added == AddOutcome::kQueued ? 1 : 0;
        if (added == AddOutcome::kOffSite) ++counters_.off_site;
        if (added == AddOutcome::kDisallowed) ++counters_.robots_disallowed;
      }
    }
    FinishPage(record, url, FetchOutcome::Success(response_time), now);
    return;
  }
  if (response.status >= 400) {
    record.error = absl::StrCat("http_", response.status);
    ++counters_.http_errors;
    FinishPage(record, url, FetchOutcome::Success(response_time), now);
    return;
  }
  if (response.status >= 200 && response.status < 300) ++counters_.pages_ok;
  if (!IsHtml(response.headers.content_type)) {
    FinishPage(record, url, FetchOutcome::Success(response_time), now);
    return;
  }
  // HTML: parse on the pool, and release the host's slot now so fetching goes
  // on meanwhile. The record is written when the page comes back
  // (CollectParsed); a checkpoint first waits for the pool, so every URL the
  // Frontier counts as done has its record and its links by then.
  if (absl::Status s =
          frontier_->Done(url.url, FetchOutcome::Success(response_time), now);
      !s.ok()) {
    log_->warn("frontier: {}", std::string(s.message()));
  }
  const LinkPolicy* policy = &policy_;
  pool_->Submit([policy, record = std::move(record), url = std::move(url),
                 response = std::move(response), response_time]() mutable {
    ParsedPage page;
    page.record = std::move(record);
    page.url = std::move(url);
    page.response_time = response_time;
    page.links = ProcessHtmlPage(*policy, response, page.url.depth);
    return page;
  });
}

void Crawler::Impl::CollectParsed(absl::Time now) {
  for (ParsedPage& page : pool_->TakeResults()) {
    const PageLinks& links = page.links;
    page.record.links_found = links.found;
    page.record.links_new = links.queued;
    ++counters_.html_pages;
    counters_.nofollow_links += links.nofollow_links;
    counters_.off_site += links.off_site;
    counters_.filtered += links.filtered;
    counters_.traps += links.traps;
    counters_.beyond_depth += links.beyond_depth;
    counters_.robots_disallowed += links.disallowed;
    if (links.nofollow_page) ++counters_.nofollow_pages;
    if (links.noindex_page) ++counters_.noindex_pages;
    FinishPage(page.record, page.url, FetchOutcome::Success(page.response_time),
               now, /*already_done=*/true);
  }
}

void Crawler::Impl::FinishPage(const PageRecord& record, const FrontierUrl& url,
                               const FetchOutcome& outcome, absl::Time now,
                               bool already_done) {
  if (absl::Status s = writer_->Write(record); !s.ok() && fatal_.ok())
    fatal_ = s;
  ++counters_.pages;
  counters_.bytes += static_cast<uint64_t>(record.bytes);
  counters_.links_found += static_cast<uint64_t>(record.links_found);
  counters_.links_new += static_cast<uint64_t>(record.links_new);
  if (record.truncated) ++counters_.truncated;
  if (already_done) {
    progress_->CountPage(!record.error.empty());
    return;
  }
  if (absl::Status s = frontier_->Done(url.url, outcome, now); !s.ok()) {
    log_->warn("frontier: {}", std::string(s.message()));
  }
  progress_->CountPage(!record.error.empty());
}

}  // namespace sieve
