// crawler/output/warc_exchange.h: what WarcWriter needs to archive one fetch,
// and its construction from a FetchResponse captured with
// FetchOptions::keep_raw.
//
// Example:
//   sieve::WarcExchange ex = sieve::WarcExchangeFromFetch(response,
//                                                         fetch_started_at);
//   absl::StatusOr<sieve::WarcLocation> at = warc->WriteExchange(ex);
#ifndef SIEVE_CRAWLER_OUTPUT_WARC_EXCHANGE_H_
#define SIEVE_CRAWLER_OUTPUT_WARC_EXCHANGE_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "fetch/fetch_types.h"
#include "fetch/wire_capture.h"

namespace sieve {

// The record of an earlier full copy of the same URL, which a revisit record
// refers to (WARC-Refers-To, -Target-URI, -Date).
struct WarcOriginal {
  std::string record_id = {};  // "<urn:uuid:...>"; "" when not known.
  std::string target_uri = {};
  absl::Time date = absl::InfinitePast();
  std::string payload_digest = {};  // Its WARC-Payload-Digest.
};

struct WarcExchange {
  std::string target_uri;     // The URL fetched (WARC-Target-URI).
  absl::Time date;            // When the request went out (WARC-Date).
  std::string ip_address;     // WARC-IP-Address; "" leaves the field out.
  std::string request_head;   // As sent, through the blank line.
  std::string response_head;  // As received, through the blank line.
  std::string payload;        // Entity body, content coding as sent.
  BodyCut cut = BodyCut::kNone;
  // Set on a revisit of a URL archived before (crawl.revisit): a 304 answer
  // is then written as a revisit record of profile server-not-modified, and a
  // full payload with original->payload_digest as one of profile
  // identical-payload-digest, both referring to it. Default: none.
  std::optional<WarcOriginal> original = std::nullopt;
};

// The exchange of a response fetched with keep_raw: target = effective_url
// (the URL the last request went to), the wire fields moved out of
// `response.wire`. REQUIRES: response.wire.captured().
WarcExchange WarcExchangeFromFetch(FetchResponse& response, absl::Time date);

// The HTTP status of a response head ("HTTP/1.1 404 Not Found" → 404); 0 when
// the first line does not parse.
int HttpStatusOf(std::string_view response_head);

// The value of the first header `name` (case-insensitive) in a head, trimmed;
// "" when absent.
std::string HttpHeaderOf(std::string_view head, std::string_view name);

// The media type for an index: Content-Type before any ';', trimmed, lower
// case; "unk" when absent (as pywb writes it).
std::string MimeOf(std::string_view response_head);

// The head with each "Transfer-Encoding:" field renamed to
// "X-Sieve-Transfer-Encoding:". The archived body is already de-chunked
// (WarcExchange::payload), so a reader must not try to de-chunk it again;
// the original field stays visible under the new name. Everything else is
// byte for byte as received.
std::string HeadForArchive(std::string_view response_head);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_WARC_EXCHANGE_H_
