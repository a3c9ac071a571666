// render/caching_handler.h: a RenderHandler that answers repeated scripts and
// stylesheets from memory, so the pages of a site, which share their bundles,
// cost one request per bundle instead of one per page.
//
// Wraps the caller's handler: a GET of a cacheable type (Script, Stylesheet)
// is looked up by URL; a miss asks the inner handler and keeps a 200 answer.
// Least recently used entries go first once the bodies pass `max_bytes`; an
// answer larger than half of it is not kept. Answers from the cache say
// `from_cache` (fate kCached in the render's result), without the Set-Cookie
// of the answer kept (a cookie belongs to that one request). Freshness is not
// checked: the cache lives for one crawl, whose assets are taken as fixed.
//
// Thread-safe (renders in several tabs share one). Two renders missing the
// same URL at once both ask the inner handler.
//
// Example:
//   sieve::CachingHandler cached(crawl_handler, 64 << 20);
//   pool->Render(page, cached, options);
#ifndef SIEVE_RENDER_CACHING_HANDLER_H_
#define SIEVE_RENDER_CACHING_HANDLER_H_

#include <cstdint>
#include <list>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "render/render_types.h"

namespace sieve {

class CachingHandler : public RenderHandler {
 public:
  // `inner` must outlive this. REQUIRES: max_bytes >= 0 (0 keeps nothing).
  explicit CachingHandler(RenderHandler& inner,
                          int64_t max_bytes = int64_t{64} << 20);

  absl::StatusOr<SubresourceResponse> Fetch(
      const SubresourceRequest& request) override;

  int64_t hits() const;
  int64_t misses() const;
  int64_t bytes() const;

 private:
  using Entry = std::pair<std::string, SubresourceResponse>;  // url, answer

  RenderHandler& inner_;
  const int64_t max_bytes_;
  mutable absl::Mutex mu_;
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);  // most recent first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_
      ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace sieve

#endif  // SIEVE_RENDER_CACHING_HANDLER_H_
