// render/browser.cc: launch, browser contexts per host, Render() delegating
// the tab's work to render/internal/tab.cc.
#include "render/browser.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "render/internal/tab.h"

namespace sieve {
namespace {

// The browser may take this long to exit by itself once its pipe closed
// (about 50 ms measured) before its group is killed.
constexpr absl::Duration kExitGrace = absl::Milliseconds(500);
constexpr absl::Duration kContextCallTimeout = absl::Seconds(10);

// The host[:port] of an absolute URL (scheme://host/...), lowercased.
std::string HostOf(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  return absl::AsciiStrToLower(url.substr(start, end - start));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Browser>> Browser::Launch(
    const BrowserOptions& options, absl::Duration startup_timeout) {
  absl::StatusOr<std::unique_ptr<BrowserProcess>> process =
      BrowserProcess::Spawn(options);
  if (!process.ok()) return process.status();
  auto browser = std::unique_ptr<Browser>(new Browser(std::move(*process)));
  absl::StatusOr<nlohmann::json> version = browser->client_->Call(
      "Browser.getVersion", nullptr, "", startup_timeout);
  if (!version.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "Chromium (", options.binary,
        ") did not start: ", version.status().message(),
        options.no_sandbox ? ""
                           : " (its sandbox may be unavailable here: it needs "
                             "unprivileged user namespaces)"));
  }
  return browser;
}

Browser::Browser(std::unique_ptr<BrowserProcess> process)
    : process_(std::move(process)),
      client_(std::make_unique<DevToolsClient>(process_->TakePipe())) {}

Browser::~Browser() {
  {
    // The tabs go with the browser (and use the client): before the pipe.
    absl::MutexLock lock(&contexts_mu_);
    for (auto& [host, context] : contexts_) {
      for (IdleTab& idle : context.idle) idle.tab->Forget();
    }
    contexts_.clear();
  }
  client_.reset();  // closes the pipe: the browser exits by itself
  process_->WaitExit(kExitGrace);
  process_->KillGroup();  // and whatever is left of its group
}

absl::StatusOr<RenderResult> Browser::Render(const PageToRender& page,
                                             RenderHandler& handler,
                                             const RenderOptions& options) {
  const std::string host = HostOf(page.url);
  absl::StatusOr<Lease> lease = AcquireContext(host);
  if (!lease.ok()) {
    ++pages_rendered_;
    return lease.status();
  }
  std::unique_ptr<render_internal::Tab> tab = std::move(lease->tab);
  absl::StatusOr<RenderResult> result;
  if (tab == nullptr) {
    absl::StatusOr<std::unique_ptr<render_internal::Tab>> opened =
        render_internal::Tab::Open(*client_, frames_, lease->context_id,
                                   kContextCallTimeout);
    if (opened.ok()) {
      tab = *std::move(opened);
    } else {
      result = opened.status();
    }
  }
  if (tab != nullptr) result = tab->Render(page, handler, options);
  ReleaseContext(host, lease->context_id, std::move(tab));
  ++pages_rendered_;
  if (!result.ok() && client_->closed()) {
    return absl::UnavailableError(absl::StrCat(
        "the browser is gone: ", client_->close_reason().message()));
  }
  return result;
}

void Browser::DisposeLocked(HostContext& context) {
  for (IdleTab& idle : context.idle) idle.tab->Forget();
  idle_tabs_ -= static_cast<int>(context.idle.size());
  context.idle.clear();
  (void)client_->Post("Target.disposeBrowserContext",
                      {{"browserContextId", context.id}}, "");
}

absl::StatusOr<Browser::Lease> Browser::AcquireContext(
    const std::string& host) {
  absl::MutexLock lock(&contexts_mu_);
  auto it = contexts_.find(host);
  if (it != contexts_.end() && it->second.pages >= kPagesPerContext) {
    // Replaced: disposed now if idle, else when its last render ends.
    if (it->second.active == 0) {
      DisposeLocked(it->second);
    } else {
      for (IdleTab& idle : it->second.idle) idle.tab->Forget();
      idle_tabs_ -= static_cast<int>(it->second.idle.size());
      retired_[it->second.id] = it->second.active;
    }
    contexts_.erase(it);
    it = contexts_.end();
  }
  if (it == contexts_.end()) {
    // Too many hosts: dispose of the idle contexts first.
    if (contexts_.size() >= kMaxContexts) {
      for (auto idle = contexts_.begin(); idle != contexts_.end();) {
        if (idle->second.active == 0) {
          DisposeLocked(idle->second);
          contexts_.erase(idle++);
        } else {
          ++idle;
        }
      }
    }
    absl::StatusOr<nlohmann::json> created =
        client_->Call("Target.createBrowserContext",
                      {{"disposeOnDetach", false}}, "", kContextCallTimeout);
    if (!created.ok()) return created.status();
    HostContext fresh;
    fresh.id = created->value("browserContextId", "");
    it = contexts_.emplace(host, std::move(fresh)).first;
  }
  HostContext& context = it->second;
  ++context.pages;
  ++context.active;
  Lease lease{.context_id = context.id, .tab = nullptr};
  if (!context.idle.empty()) {
    lease.tab = std::move(context.idle.back().tab);
    context.idle.pop_back();
    --idle_tabs_;
  }
  return lease;
}

void Browser::ReleaseContext(const std::string& host, const std::string& id,
                             std::unique_ptr<render_internal::Tab> tab) {
  absl::MutexLock lock(&contexts_mu_);
  if (auto it = contexts_.find(host);
      it != contexts_.end() && it->second.id == id) {
    --it->second.active;
    if (tab != nullptr && tab->reusable()) {
      it->second.idle.push_back(
          IdleTab{.tab = std::move(tab), .last_used = ++idle_clock_});
      ++idle_tabs_;
    }
    // Past the bound, the tab idle longest is closed (its destructor).
    while (idle_tabs_ > kMaxIdleTabs) {
      HostContext* oldest = nullptr;
      size_t at = 0;
      for (auto& [name, context] : contexts_) {
        for (size_t i = 0; i < context.idle.size(); ++i) {
          if (oldest == nullptr ||
              context.idle[i].last_used < oldest->idle[at].last_used) {
            oldest = &context;
            at = i;
          }
        }
      }
      if (oldest == nullptr) break;
      oldest->idle.erase(oldest->idle.begin() + static_cast<ptrdiff_t>(at));
      --idle_tabs_;
    }
    return;  // A tab not kept is closed as `tab` goes.
  }
  if (auto it = retired_.find(id); it != retired_.end() && --it->second == 0) {
    if (tab != nullptr) tab->Forget();  // The disposal closes it.
    (void)client_->Post("Target.disposeBrowserContext",
                        {{"browserContextId", id}}, "");
    retired_.erase(it);
  }
}

const char* RequestFateName(RequestFate fate) {
  switch (fate) {
    case RequestFate::kDocument:
      return "document";
    case RequestFate::kFetched:
      return "fetched";
    case RequestFate::kCached:
      return "cached";
    case RequestFate::kRefused:
      return "refused";
    case RequestFate::kType:
      return "type";
    case RequestFate::kMethod:
      return "method";
    case RequestFate::kBudget:
      return "budget";
  }
  return "unknown";
}

}  // namespace sieve
