// render/render_types.h: what a render takes and gives: the page, the caller's
// handler that answers every request the page makes, the options and the
// result.
//
// The module never fetches anything itself and the browser can reach no
// network (render/browser_process.h): every request a page makes is paused
// and handed to a RenderHandler, which the caller implements (the crawler
// does it with its Fetcher, robots.txt and politeness). What the handler
// refuses fails in the page as net::ERR_BLOCKED_BY_CLIENT.
#ifndef SIEVE_RENDER_RENDER_TYPES_H_
#define SIEVE_RENDER_RENDER_TYPES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sieve {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// The page to render, as the caller already fetched it: its document is
// answered with these bytes, never fetched again.
struct PageToRender {
  std::string url;  // absolute http(s) URL, the document's address
  int status = 200;
  // Response headers; Content-Encoding, Content-Length and Transfer-Encoding
  // are dropped (the body must be the decoded bytes). Its Set-Cookie lines
  // go into the browser context's cookies.
  HttpHeaders headers;
  std::string body;  // decoded bytes
};

// One request the page made, as the handler sees it.
struct SubresourceRequest {
  std::string url;     // absolute, without the fragment
  std::string method;  // GET or HEAD unless RenderOptions::methods allows more
  // DevTools' resource type: Document (an iframe), Script, Stylesheet, XHR,
  // Fetch, Image, Font, Media, ...
  std::string resource_type;
  // The headers of the request as Chromium made it, minus hop-by-hop ones and
  // the browser's User-Agent and Sec-CH-UA* hints (the crawl's own identity
  // goes on the wire): those the page set (Accept, X-Requested-With...),
  // Referer, and Cookie: the browser context's cookies for `url` (set by the
  // document's and earlier answers' Set-Cookie), when it has any.
  HttpHeaders headers;
  // When the render's wall-clock limit ends; an answer after it is wasted.
  absl::Time deadline;
};

struct SubresourceResponse {
  int status = 200;
  // As the server sent them; Content-Encoding etc. are dropped as for
  // PageToRender. A Set-Cookie goes into the browser context's cookies.
  HttpHeaders headers;
  std::string body;  // decoded bytes
  // Answered from a cache without a request (render/caching_handler.h): the
  // render records fate kCached. Default: false.
  bool from_cache = false;
};

// Answers the requests of a render. Called from the thread that runs
// Browser::Render, one request at a time per render (virtual time waits
// meanwhile); several renders may call one handler at once.
class RenderHandler {
 public:
  virtual ~RenderHandler() = default;
  // The response to give the page, or an error saying why not (robots.txt,
  // politeness budget, private address, a failed fetch): the request then
  // fails as blocked by client and the error's message is kept as its fate.
  virtual absl::StatusOr<SubresourceResponse> Fetch(
      const SubresourceRequest& request) = 0;
};

// What became of one request of a render.
enum class RequestFate {
  kDocument,  // the page itself, answered with PageToRender's bytes
  kFetched,   // answered by the handler
  kCached,    // answered by the handler from its cache (no request made)
  kRefused,   // the handler returned an error (its message in `detail`)
  kType,      // its resource type is not in RenderOptions::resource_types
  kMethod,    // its method is not in RenderOptions::methods
  kBudget,    // past max_requests or max_bytes, or after the wall-clock limit
};
const char* RequestFateName(RequestFate fate);

struct RenderedRequest {
  std::string url;
  std::string method;
  std::string resource_type;
  RequestFate fate = RequestFate::kFetched;
  std::string detail;  // the handler's error for kRefused
};

struct RenderOptions {
  // Virtual time the page may run (timers, animation frames) once nothing is
  // being fetched for it: virtual time does not advance while a request waits
  // for the handler. A timer set further out does not fire.
  // REQUIRES: > 0. Default: 5 s (of virtual time; it passes in milliseconds).
  absl::Duration virtual_time_budget = absl::Seconds(5);
  // Wall-clock limit of the whole render, handler waits (politeness) and
  // browser work included. A render cut by it still returns what the page
  // had by then, with `timed_out` set. REQUIRES: > 0. Default: 30 s.
  absl::Duration timeout = absl::Seconds(30);
  // Requests the handler is asked for per render (the page's own document not
  // counted); later ones fail with fate kBudget. REQUIRES: >= 0. Default: 100.
  int max_requests = 100;
  // Body bytes of the handler's answers per render: once they reach it, later
  // requests fail with fate kBudget (the answer that crosses it is given).
  // Sized for a heavy page's scripts, styles and data (images, fonts and
  // media are not fetched by default). REQUIRES: >= 0. Default: 16 MiB.
  int64_t max_bytes = int64_t{16} << 20;
  // Resource types passed to the handler; others fail with fate kType.
  // Images, fonts and media do not make links. Default: Document (iframes),
  // Script, Stylesheet, XHR, Fetch.
  std::vector<std::string> resource_types = {"Document", "Script", "Stylesheet",
                                             "XHR", "Fetch"};
  // Methods passed to the handler; others fail with fate kMethod (a POST
  // could change something on the server). Default: GET, HEAD.
  std::vector<std::string> methods = {"GET", "HEAD"};
  // navigator.userAgent as the page's scripts see it; empty keeps Chromium's.
  // Requests never carry it: the handler's fetcher sets its own.
  // Default: "".
  std::string user_agent;
};

struct RenderResult {
  // The page's DOM after the render, serialized (doctype included).
  std::string dom;
  // Links of the rendered page: a[href] and area[href] of the document, of
  // every open shadow root, and of every iframe's document, resolved against
  // each document's base URL (<base> respected); the address of every frame
  // (a pushState router's last address included). http(s) only, in document
  // order, duplicates dropped.
  std::vector<std::string> links;
  // The main frame's address at the end (pushState changes it).
  std::string final_url;
  // Every request the page made, in order, with its fate.
  std::vector<RenderedRequest> requests;
  // The wall-clock limit cut the render short (what it found is kept).
  bool timed_out = false;
  absl::Duration elapsed;
};

}  // namespace sieve

#endif  // SIEVE_RENDER_RENDER_TYPES_H_
