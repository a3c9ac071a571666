// crawler/render/render_archive.h: what a render leaves in the crawl's WARC
// files beside the exchanges of its subresources (each fetched subresource
// is archived as it arrives, as any fetch: request and response records).
//
// One `resource` record per successful render (crawler/output/warc_writer.h,
// WriteResource), WARC-Target-URI "urn:sieve:render:" + the page's URL, so
// replay never serves it as the page's capture (the page's own response
// record is the fetched bytes), Content-Type application/json:
//
//   {"url": "http://a.test/", "final_url": "http://a.test/#/list",
//    "timed_out": false, "elapsed_ms": 41.2,
//    "requests": [{"url": "http://a.test/app.js", "method": "GET",
//                  "type": "Script", "fate": "fetched"},
//                 {"url": "http://a.test/private/t.js", "method": "GET",
//                  "type": "Script", "fate": "refused",
//                  "detail": "disallowed by robots.txt"}, ...],
//    "dom": "<!DOCTYPE html><html>..."}
//
// `requests` lists every request of the page in order with its fate
// (RequestFateName: document, fetched, cached, refused, type, method,
// budget); `detail` says why a refused one was (robots.txt, the
// private-address guard, a failed fetch). A failed render (its browser gone)
// writes nothing: pages.jsonl's render_error says why.
//
// Example:
//   WarcResource record = RenderResource(page_url, result, absl::Now());
//   archive.WriteResource(record);
#ifndef SIEVE_CRAWLER_RENDER_RENDER_ARCHIVE_H_
#define SIEVE_CRAWLER_RENDER_RENDER_ARCHIVE_H_

#include <string>

#include "absl/time/time.h"
#include "crawler/output/warc_writer.h"
#include "render/render_types.h"

namespace sieve {

// The urn: a render of `page_url` is archived under.
std::string RenderUrn(const std::string& page_url);

// The resource record of a render of `page_url` that ended at `date` (see
// the file comment). Cost: one copy of the DOM into the JSON text.
WarcResource RenderResource(const std::string& page_url,
                            const RenderResult& result, absl::Time date);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_RENDER_RENDER_ARCHIVE_H_
