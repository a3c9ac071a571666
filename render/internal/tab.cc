// render/internal/tab.cc: pages in one tab, one after another: Fetch pauses,
// virtual time, links read in an isolated world.
#include "render/internal/tab.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "render/internal/link_script.h"

namespace sieve::render_internal {
namespace {

using nlohmann::json;

// A single protocol call waits at most this long (or until the render's
// deadline, whichever is later: closing a tab must not be skipped).
constexpr absl::Duration kCallTimeout = absl::Seconds(10);
// Frames asked for once the virtual-time budget has run out (two: what the
// first frame's callbacks start may wait for the next), and the virtual time
// each may run after it (an IntersectionObserver's callback comes in a task
// after the frame that computed it).
constexpr int kFramesAfterBudget = 2;
constexpr absl::Duration kBudgetAfterFrame = absl::Milliseconds(100);
// Hides service workers from pages: a worker would fetch outside the tab's
// Fetch domain and outlive the render.
constexpr const char kNoServiceWorker[] =
    "delete Navigator.prototype.serviceWorker;";

// Headers never passed between the page and the handler: hop-by-hop ones
// (RFC 9110 7.6.1), the browser's User-Agent, and those that describe the
// wire encoding of a body the handler hands over decoded.
bool DroppedHeader(std::string_view name) {
  static constexpr std::string_view kDropped[] = {"connection",
                                                  "keep-alive",
                                                  "proxy-authenticate",
                                                  "proxy-authorization",
                                                  "te",
                                                  "trailer",
                                                  "transfer-encoding",
                                                  "upgrade",
                                                  "user-agent",
                                                  "content-encoding",
                                                  "content-length",
                                                  "host"};
  const std::string lower = absl::AsciiStrToLower(std::string(name));
  return std::find(std::begin(kDropped), std::end(kDropped), lower) !=
         std::end(kDropped);
}

// The client hints that name the browser (Sec-CH-UA, -Mobile, -Platform...,
// sent from secure origins): "HeadlessChrome" is in them, and a request
// carries the crawl's identity only.
bool BrowserHint(const std::string& name) {
  return absl::StartsWithIgnoreCase(name, "sec-ch-ua");
}

json FulfillParams(const std::string& request_id, int status,
                   const HttpHeaders& headers, const std::string& body) {
  json header_list = json::array();
  for (const auto& [name, value] : headers) {
    if (!DroppedHeader(name)) {
      header_list.push_back({{"name", name}, {"value", value}});
    }
  }
  return {{"requestId", request_id},
          {"responseCode", status > 0 ? status : 200},
          {"responseHeaders", std::move(header_list)},
          {"body", absl::Base64Escape(body)}};
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The frames of Page.getFrameTree, depth first, main frame first.
void CollectFrames(const json& tree, std::vector<std::string>& ids) {
  if (!tree.is_object()) return;
  if (auto frame = tree.find("frame"); frame != tree.end()) {
    ids.push_back(frame->value("id", ""));
  }
  if (auto children = tree.find("childFrames"); children != tree.end()) {
    for (const json& child : *children) CollectFrames(child, ids);
  }
}

// One page's render in an open tab (Tab::Render).
class PageRender {
 public:
  PageRender(DevToolsClient& client, absl::Mutex& frames,
             const std::string& target_id, const std::string& session,
             const PageToRender& page, RenderHandler& handler,
             const RenderOptions& options)
      : client_(client),
        frames_(frames),
        target_id_(target_id),
        session_(session),
        page_(page),
        handler_(handler),
        options_(options),
        start_(absl::Now()),
        deadline_(start_ + options.timeout) {}

  absl::StatusOr<RenderResult> Run() {
    // Virtual time stands still until the document is answered (the
    // navigation's own fetch does not count as one the page waits for).
    if (absl::StatusOr<json> done =
            Call("Emulation.setVirtualTimePolicy", {{"policy", "pause"}});
        !done.ok()) {
      return done.status();
    }
    // What the page before left in the queue (requests paused when its
    // budget ran out, its last events) is refused, never fetched for this
    // page.
    while (true) {
      absl::StatusOr<DevToolsEvent> stale =
          client_.NextEvent(session_, absl::Now());
      if (absl::IsDeadlineExceeded(stale.status())) break;
      if (!stale.ok()) return stale.status();
      if (stale->method == "Fetch.requestPaused") {
        if (absl::Status refused = Refuse(stale->params.value("requestId", ""));
            !refused.ok()) {
          return refused;
        }
      }
    }
    // Page.navigate answers only once the document arrives, which is our
    // job below: send it without waiting.
    if (absl::Status sent =
            client_.Post("Page.navigate", {{"url", page_.url}}, session_);
        !sent.ok()) {
      return sent;
    }

    RenderResult result;
    if (absl::Status ran = RunBudget(result); !ran.ok()) return ran;
    // The tab draws no frame of its own (Tab::Open): what waits for one
    // (requestAnimationFrame, ResizeObserver, IntersectionObserver) runs in
    // the frames asked for here, each followed by a short budget for the
    // tasks and fetches it starts.
    for (int i = 0;
         i < kFramesAfterBudget && document_served_ && !result.timed_out; ++i) {
      bool framed = false;
      {
        absl::MutexLock one_at_a_time(&frames_);
        framed = Call("HeadlessExperimental.beginFrame",
                      {{"noDisplayUpdates", true}})
                     .ok();
      }
      if (!framed) {
        break;  // No frame to be had: the links found so far stand.
      }
      if (absl::StatusOr<json> granted =
              Call("Emulation.setVirtualTimePolicy",
                   {{"policy", "pauseIfNetworkFetchesPending"},
                    {"budget", absl::ToDoubleMilliseconds(kBudgetAfterFrame)}});
          !granted.ok()) {
        return granted.status();
      }
      if (absl::Status ran = RunBudget(result); !ran.ok()) return ran;
    }
    if (!document_served_) {
      // Cut before the page had its document: nothing to read.
      result.elapsed = absl::Now() - start_;
      return result;
    }
    if (absl::Status read = ReadLinks(result); !read.ok()) return read;
    result.elapsed = absl::Now() - start_;
    return result;
  }

 private:
  // Answers the page's requests until its virtual-time budget runs out, or
  // sets `timed_out` at the wall-clock limit.
  absl::Status RunBudget(RenderResult& result) {
    while (true) {
      absl::StatusOr<DevToolsEvent> event =
          client_.NextEvent(session_, deadline_);
      if (absl::IsDeadlineExceeded(event.status())) {
        result.timed_out = true;
        return absl::OkStatus();
      }
      if (!event.ok()) return event.status();
      if (event->method == "Fetch.requestPaused") {
        if (absl::Status answered = Answer(event->params, result);
            !answered.ok()) {
          return answered;
        }
      } else if (event->method == "Emulation.virtualTimeBudgetExpired") {
        return absl::OkStatus();
      } else if (event->method == "Inspector.targetCrashed") {
        return absl::InternalError(
            absl::StrCat("the tab rendering ", page_.url, " crashed"));
      }
    }
  }

  absl::Duration CallTimeout() const {
    return std::max(kCallTimeout, deadline_ - absl::Now());
  }
  absl::StatusOr<json> Call(std::string_view method, json params = nullptr) {
    return client_.Call(method, std::move(params), session_, CallTimeout());
  }

  // Answers one paused request: the page's document, the handler's bytes, or
  // a failure saying blocked by client.
  absl::Status Answer(const json& params, RenderResult& result) {
    const std::string request_id = params.value("requestId", "");
    const json& request = params["request"];
    RenderedRequest seen;
    seen.url = request.value("url", "");
    seen.method = request.value("method", "GET");
    seen.resource_type = params.value("resourceType", "");

    if (!document_served_ && seen.resource_type == "Document" &&
        params.value("frameId", "") == target_id_) {
      document_served_ = true;
      seen.fate = RequestFate::kDocument;
      result.requests.push_back(seen);
      if (absl::Status sent =
              client_.Post("Fetch.fulfillRequest",
                           FulfillParams(request_id, page_.status,
                                         page_.headers, page_.body),
                           session_);
          !sent.ok()) {
        return sent;
      }
      // From now on the page runs, its time standing still while it waits
      // for a fetch (for the handler).
      return Call("Emulation.setVirtualTimePolicy",
                  {{"policy", "pauseIfNetworkFetchesPending"},
                   {"budget",
                    absl::ToDoubleMilliseconds(options_.virtual_time_budget)}})
          .status();
    }
    if (!Contains(options_.methods, seen.method)) {
      seen.fate = RequestFate::kMethod;
    } else if (!Contains(options_.resource_types, seen.resource_type)) {
      seen.fate = RequestFate::kType;
    } else if (asked_ >= options_.max_requests ||
               answered_bytes_ >= options_.max_bytes ||
               absl::Now() >= deadline_) {
      seen.fate = RequestFate::kBudget;
    } else {
      ++asked_;
      SubresourceRequest ask;
      ask.url = seen.url;
      ask.method = seen.method;
      ask.resource_type = seen.resource_type;
      ask.deadline = deadline_;
      if (auto headers = request.find("headers");
          headers != request.end() && headers->is_object()) {
        for (const auto& [name, value] : headers->items()) {
          if (!DroppedHeader(name) && !BrowserHint(name) && value.is_string()) {
            ask.headers.emplace_back(name, value.get<std::string>());
          }
        }
      }
      absl::StatusOr<SubresourceResponse> response = handler_.Fetch(ask);
      if (response.ok()) {
        seen.fate =
            response->from_cache ? RequestFate::kCached : RequestFate::kFetched;
        answered_bytes_ += static_cast<int64_t>(response->body.size());
        result.requests.push_back(std::move(seen));
        return client_.Post("Fetch.fulfillRequest",
                            FulfillParams(request_id, response->status,
                                          response->headers, response->body),
                            session_);
      }
      seen.fate = RequestFate::kRefused;
      seen.detail = std::string(response.status().message());
    }
    result.requests.push_back(std::move(seen));
    return Refuse(request_id);
  }

  absl::Status Refuse(const std::string& request_id) {
    return client_.Post(
        "Fetch.failRequest",
        {{"requestId", request_id}, {"errorReason", "BlockedByClient"}},
        session_);
  }

  // Reads links (and the main frame's DOM) from every frame, each in an
  // isolated world of its own.
  absl::Status ReadLinks(RenderResult& result) {
    absl::StatusOr<json> tree = Call("Page.getFrameTree");
    if (!tree.ok()) return tree.status();
    std::vector<std::string> frames;
    CollectFrames((*tree)["frameTree"], frames);
    absl::flat_hash_set<std::string> seen;
    for (size_t i = 0; i < frames.size(); ++i) {
      const bool main = i == 0;
      absl::StatusOr<json> world =
          Call("Page.createIsolatedWorld",
               {{"frameId", frames[i]}, {"worldName", "sieve-links"}});
      if (!world.ok()) {
        if (main) return world.status();
        continue;  // a frame that went away meanwhile
      }
      absl::StatusOr<json> read =
          Call("Runtime.evaluate",
               {{"expression", absl::StrCat(kLinkScript, "(", main, ")")},
                {"contextId", (*world)["executionContextId"]},
                {"returnByValue", true}});
      if (!read.ok()) {
        if (main) return read.status();
        continue;
      }
      const json value = (*read)["result"].value("value", json::object());
      std::vector<std::string> found;
      if (auto links = value.find("links");
          links != value.end() && links->is_array()) {
        for (const json& link : *links) {
          if (link.is_string()) found.push_back(link.get<std::string>());
        }
      }
      std::string url = value.value("url", "");
      if (main) {
        result.final_url = url;
        result.dom = value.value("dom", "");
      }
      // A frame's address is a link too (an iframe's, or where a pushState
      // router moved the page), the page's own address aside.
      url = url.substr(0, url.find('#'));
      if ((url.rfind("http:", 0) == 0 || url.rfind("https:", 0) == 0) &&
          url != page_.url) {
        found.push_back(url);
      }
      for (std::string& link : found) {
        if (seen.insert(link).second) result.links.push_back(std::move(link));
      }
    }
    return absl::OkStatus();
  }

  DevToolsClient& client_;
  absl::Mutex& frames_;
  const std::string& target_id_;
  const std::string& session_;
  const PageToRender& page_;
  RenderHandler& handler_;
  const RenderOptions& options_;
  const absl::Time start_;
  const absl::Time deadline_;
  bool document_served_ = false;
  int asked_ = 0;               // requests passed to the handler
  int64_t answered_bytes_ = 0;  // body bytes of the handler's answers
};

}  // namespace

absl::StatusOr<std::unique_ptr<Tab>> Tab::Open(DevToolsClient& client,
                                               absl::Mutex& frames,
                                               const std::string& context_id,
                                               absl::Duration timeout) {
  absl::StatusOr<json> target = client.Call(
      "Target.createTarget",
      {{"url", "about:blank"},
       {"browserContextId", context_id},
       // Frames only when a render asks (PageRender::Run): Chromium would
       // otherwise paint and composite the page's frames as they come,
       // ~15 % of a render's CPU (docs/benchmarks.md, rendering).
       {"enableBeginFrameControl", true}},
      "", timeout);
  if (!target.ok()) return target.status();
  const std::string target_id = target->value("targetId", "");
  absl::StatusOr<json> attached =
      client.Call("Target.attachToTarget",
                  {{"targetId", target_id}, {"flatten", true}}, "", timeout);
  if (!attached.ok()) {
    (void)client.Post("Target.closeTarget", {{"targetId", target_id}}, "");
    return attached.status();
  }
  auto tab = std::unique_ptr<Tab>(
      new Tab(client, frames, target_id, attached->value("sessionId", "")));
  client.Subscribe(tab->session_);
  const std::pair<std::string_view, json> setup[] = {
      {"Page.enable", nullptr},
      {"Page.addScriptToEvaluateOnNewDocument", {{"source", kNoServiceWorker}}},
      {"Fetch.enable",
       {{"patterns",
         json::array({{{"urlPattern", "*"}, {"requestStage", "Request"}}})}}},
  };
  for (const auto& [method, params] : setup) {
    absl::StatusOr<json> done =
        client.Call(method, params, tab->session_, timeout);
    if (!done.ok()) {
      tab->reusable_ = false;
      return done.status();  // The destructor closes the tab.
    }
  }
  return tab;
}

Tab::~Tab() {
  client_.Unsubscribe(session_);
  // Closing the tab drops whatever it still waits for; its context's
  // disposal closes a forgotten one.
  if (!forgotten_) {
    (void)client_.Post("Target.closeTarget", {{"targetId", target_id_}}, "");
  }
}

absl::StatusOr<RenderResult> Tab::Render(const PageToRender& page,
                                         RenderHandler& handler,
                                         const RenderOptions& options) {
  ++pages_;
  reusable_ = false;  // Until this render ends well.
  if (options.user_agent != user_agent_) {
    absl::StatusOr<json> done = client_.Call(
        "Emulation.setUserAgentOverride", {{"userAgent", options.user_agent}},
        session_, kCallTimeout);
    if (!done.ok()) return done.status();
    user_agent_ = options.user_agent;
  }
  absl::StatusOr<RenderResult> result =
      PageRender(client_, frames_, target_id_, session_, page, handler, options)
          .Run();
  reusable_ = result.ok() && !result->timed_out &&
              std::any_of(result->requests.begin(), result->requests.end(),
                          [](const RenderedRequest& r) {
                            return r.fate == RequestFate::kDocument;
                          });
  return result;
}

}  // namespace sieve::render_internal
