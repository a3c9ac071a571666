// crawler/loop/crawler_render.cc: render.mode in the crawl loop. A parsed HTML
// page that should render (ShouldRender) goes to the render queue
// (crawler/render/render_queue.h) instead of its record; every request its
// render makes comes back to the loop (ServeSubresources), which checks it
// like a page (robots.txt of its origin, fetched first when not known, as a
// request to that host; the private-address guard in the
// Fetcher, its host's politeness through the frontier's host lane) and
// fetches it with the crawl's Fetcher and headers, in its own method with the
// page's headers (OnSubresource answers the render with every response
// header); the record is written when the render ends (CollectRendered), with
// the links rendering added.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/loop/crawler_impl.h"
#include "crawler/render/render_signs.h"
#include "fetch/fetch_failure.h"
#include "parse/url.h"
#include "render/browser_process.h"

namespace sieve {

absl::Status Crawler::Impl::StartRendering() {
  const RenderMode mode = config().render.mode;
  if (mode == RenderMode::kOff) return absl::OkStatus();
  for (const std::string& method : config().render.methods) {
    if (method != "GET" && method != "HEAD") {
      // The Fetcher sends no request body (FetchMethod).
      return absl::InvalidArgumentError(absl::StrCat(
          "render.methods: the crawl fetches GET and HEAD only, not '", method,
          "'"));
    }
  }
  const bool always = mode == RenderMode::kAlways;
  auto off = [&](const std::string& why) -> absl::Status {
    if (always) {
      return absl::FailedPreconditionError(
          absl::StrCat("render.mode = always: ", why));
    }
    log()->info("rendering is off (render.mode = auto): {}", why);
    return absl::OkStatus();
  };
  if (!config().cluster.url.empty() || !config().urlfrontier.url.empty()) {
    return off(
        "not with --cluster or --frontier (their frontiers have no host lane "
        "to keep subresources polite); use --render off");
  }
  RenderQueue::Options options;
  options.pool.browsers = static_cast<int>(config().render.browsers);
  options.pool.tabs = static_cast<int>(config().render.tabs);
  options.render.timeout = absl::Seconds(config().render.timeout);
  options.render.max_requests =
      static_cast<int>(config().render.max_requests_per_page);
  options.render.max_bytes = config().render.max_mb_per_page << 20;
  options.pool.pages_per_browser =
      static_cast<int>(config().render.pages_per_browser);
  options.pool.max_browser_mb = config().render.max_browser_mb;
  options.pool.browser.no_sandbox = config().render.no_sandbox;
  options.render.methods = config().render.methods;
  options.render.resource_types = config().render.resource_types;
  if (!BrowserProcess::Installed(options.pool.browser)) {
    return off(absl::StrCat(options.pool.browser.binary,
                            " is not installed (Debian package "
                            "chromium-headless-shell; scripts/install-deps.sh "
                            "installs it)"));
  }
  // Made before the Fetcher and the link rules, used only once the loop
  // runs (after Init).
  absl::StatusOr<std::unique_ptr<RenderQueue>> queue = RenderQueue::Create(
      options, [this] { fetcher_->Wakeup(); },
      [this](RenderJob& job) {
        job.rendered = ProcessRenderedLinks(rules_->policy(), job.response,
                                            job.result->links, job.url.depth);
      },
      /*start_now=*/always);
  if (!queue.ok()) {
    return off(
        absl::StrCat("Chromium does not start (package "
                     "chromium-headless-shell): ",
                     queue.status().message()));
  }
  render_ = *std::move(queue);
  return absl::OkStatus();
}

bool Crawler::Impl::ShouldRender(const FetchResponse& response,
                                 const PageLinks& links) const {
  if (render_ == nullptr || !render_->unavailable().ok()) return false;
  if (config().render.mode == RenderMode::kAlways) return true;
  return ShouldRenderAuto(response.body, links.found, links.found_id);
}

bool Crawler::Impl::RenderPays(std::string_view host) const {
  if (render_ == nullptr) return false;
  return config().render.mode == RenderMode::kAlways ||
         frontier_->RendersWithoutLinks(host) < kRendersWithoutLinks;
}

void Crawler::Impl::SubmitRender(ParsedPage& page) {
  render_->Submit(RenderJob{.record = std::move(page.record),
                            .url = std::move(page.url),
                            .links = std::move(page.links),
                            .rendered = {},
                            .response = *std::move(page.to_render)});
}

void Crawler::Impl::ServeSubresources(absl::Time now, absl::Duration& wait) {
  if (render_ == nullptr) return;
  for (RenderQueue::Ask& ask : render_->TakeAsks()) {
    auto refuse = [&](uint64_t& counter, absl::Status why) {
      ++counter;
      render_->Answer(ask.ticket, std::move(why));
    };
    auto hold = [&](absl::Duration until) {
      wait = std::min(wait, until);
      render_->Hold(std::move(ask));
    };
    absl::StatusOr<UrlParts> parts = SplitUrl(ask.request.url);
    if (!parts.ok() || stop_.stopping()) {
      refuse(counters().subresources_refused_other,
             parts.ok() ? absl::UnavailableError("the crawl is stopping")
                        : parts.status());
      continue;
    }
    std::string host = rules_->keys().KeyOf(*parts);
    // robots.txt of the subresource's own origin, third parties included;
    // one not known yet is fetched first, as a request to that host, while
    // the subresource waits (its answer wakes the loop).
    const std::optional<bool> allowed = robots_->Allowed(*parts);
    if (!allowed.has_value() && robots_->Fetching(*parts)) {
      ask.awaited_robots = true;
      hold(absl::InfiniteDuration());  // The answer wakes the loop.
      continue;
    }
    if (!allowed.has_value() && ask.awaited_robots) {
      // Fetched for it and still unknown: robots.txt was unavailable (429,
      // 5xx, no answer), a complete disallow for now (RFC 9309 2.3.1.4).
      refuse(
          counters().subresources_refused_robots_unknown,
          absl::PermissionDeniedError(absl::StrCat(
              "robots.txt of ", RobotsGate::OriginOf(*parts), " unavailable")));
      continue;
    }
    if (allowed.has_value() && !*allowed) {
      refuse(counters().subresources_refused_robots,
             absl::PermissionDeniedError("disallowed by robots.txt"));
      continue;
    }
    absl::StatusOr<absl::Duration> turn = StartInHostLane(host, now);
    if (!turn.ok()) {
      refuse(counters().subresources_refused_other, turn.status());
      continue;
    }
    if (*turn > absl::ZeroDuration()) {
      hold(*turn);
      continue;
    }
    if (!allowed.has_value()) {
      robots_->StartFetch(*parts);
      FetchRobots(*parts, std::move(host), /*in_lane=*/true, now);
      ask.awaited_robots = true;
      hold(absl::InfiniteDuration());
      continue;
    }
    const uint64_t id = requests_.Add(Request{.kind = RequestKind::kSubresource,
                                              .url = {},
                                              .host = std::move(host),
                                              .authority = {},
                                              .origin = {},
                                              .start = now,
                                              .ticket = ask.ticket});
    // The page's method (GET or HEAD: RenderOptions::methods refuses the
    // rest before the handler) and headers; every response header back.
    FetchRequest fetch{.id = id, .url = ask.request.url};
    fetch.method =
        ask.request.method == "HEAD" ? FetchMethod::kHead : FetchMethod::kGet;
    fetch.headers = std::move(ask.request.headers);
    fetch.keep_all_headers = true;
    fetcher_->Submit(std::move(fetch));
  }
}

absl::StatusOr<absl::Duration> Crawler::Impl::StartInHostLane(
    const std::string& host, absl::Time now) {
  if (std::optional<absl::Duration> rate = requests_.RateWait(now)) {
    return *rate;
  }
  if (fetcher_->in_flight() >=
      static_cast<size_t>(config().fetch.concurrency)) {
    return absl::Milliseconds(50);  // A transfer ending wakes the loop.
  }
  return frontier_->StartHostRequest(host, now);
}

void Crawler::Impl::OnSubresource(const Request& request,
                                  const FetchResponse& response,
                                  absl::Time now) {
  frontier_->EndHostRequest(request.host, OutcomeOfAnswer(response), now);
  if (render_ == nullptr) return;
  if (!response.ok()) {
    const bool blocked = response.error == FetchError::kBlockedAddress;
    ++(blocked ? counters().subresources_refused_private
               : counters().subresources_failed);
    const std::optional<Failure> failure = FailureOf(response);
    render_->Answer(
        request.ticket,
        absl::UnavailableError(
            failure.has_value()
                ? absl::StrCat(std::string(FailureCodeName(failure->code)),
                               ": ", failure->detail)
                : std::string("fetch failed")));
    return;
  }
  ++counters().subresources_fetched;
  SubresourceResponse answer{.status = response.status,
                             .headers = {},
                             .body = response.body,
                             .from_cache = false};
  // The response's own headers (Set-Cookie, Cache-Control, CORS ones...);
  // the render drops the hop-by-hop and body-encoding ones.
  answer.headers = response.headers.all;
  render_->Answer(request.ticket, std::move(answer));
}

void Crawler::Impl::CountRefusedInBrowser(
    const std::vector<RenderedRequest>& requests) {
  for (const RenderedRequest& request : requests) {
    switch (request.fate) {
      case RequestFate::kMethod:
        ++counters().subresources_refused_method;
        break;
      case RequestFate::kType:
        ++counters().subresources_refused_type;
        break;
      case RequestFate::kBudget:
        ++counters().subresources_refused_budget;
        break;
      case RequestFate::kDocument:
      case RequestFate::kFetched:
      case RequestFate::kCached:
      case RequestFate::kRefused:
        break;  // Counted where the crawl fetched or refused it.
    }
  }
}

void Crawler::Impl::CollectRendered() {
  if (render_ == nullptr) return;
  if (std::optional<absl::Status> off = render_->TakeOffNotice()) {
    log()->warn("rendering is off from now on: {}",
                std::string(off->message()));
  }
  // The pool counts its browsers' lives; the crawl's counters keep them over
  // every run.
  const BrowserPool::Stats lives = render_->TakeBrowserCounts();
  counters().render_browser_spawns += static_cast<uint64_t>(lives.spawns);
  counters().render_browser_crashes += static_cast<uint64_t>(lives.crashes);
  counters().render_browser_retirements +=
      static_cast<uint64_t>(lives.retirements);
  for (RenderJob& job : render_->TakeDone()) {
    PageRecord& record = job.record;
    if (job.result.ok()) {
      ++counters().render_pages;
      const PageLinks& added = job.rendered;
      record.rendered = true;
      record.links_rendered = added.found;
      frontier_->NoteRender(job.url.host, added.found > 0);
      record.render_ms = absl::ToDoubleMilliseconds(job.result->elapsed);
      CountRefusedInBrowser(job.result->requests);
      reporter_->ObserveRender(absl::ToDoubleSeconds(job.result->elapsed));
      record.links_found += added.found;
      record.links_new += added.queued;
      counters().render_links += static_cast<uint64_t>(added.found);
      CountLinks(added, record.url);
      ArchiveRender(record.url, *job.result);
    } else {
      ++counters().render_errors;
      record.render_error = std::string(job.result.status().message());
      log()->debug("render of {} failed: {}", record.url, record.render_error);
    }
    WriteRecordNow(record);
  }
}

void Crawler::Impl::SettleRenders() {
  if (render_ != nullptr && render_->closed()) {
    // The crawl ends: no more fetches; the renders end without them.
    render_->WaitIdle();
    CollectRendered();
    return;
  }
  while (render_ != nullptr && render_->pending() > 0) {
    absl::Duration wait = absl::Milliseconds(20);
    ServeSubresources(absl::Now(), wait);
    for (FetchResponse& response : fetcher_->Poll(wait)) {
      OnResponse(std::move(response), absl::Now());
    }
    CollectRendered();
    pool_->WaitIdle();
    CollectParsed(absl::Now());
  }
}

}  // namespace sieve
