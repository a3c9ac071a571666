// fetch/internal/request_headers.h: the header list of a request with headers
// of its own (FetchRequest::headers, if_none_match, if_modified_since): the
// Fetcher's lines less those the request replaces, then the request's.
// Internal to sieve::fetch; Transfer::Configure uses it.
#ifndef SIEVE_FETCH_INTERNAL_REQUEST_HEADERS_H_
#define SIEVE_FETCH_INTERNAL_REQUEST_HEADERS_H_

#include <curl/curl.h>

#include "absl/strings/string_view.h"
#include "fetch/fetch_types.h"
#include "fetch/internal/curl_handles.h"

namespace sieve::fetch_internal {

// Whether a FetchRequest's header `name: value` is sent: `name` an RFC 9110
// token and not one the Fetcher owns, neither holding CR, LF or NUL (the
// list is in fetch/fetch_types.h, FetchRequest::headers). O(length).
bool SendableRequestHeader(absl::string_view name, absl::string_view value);

// The list for `request`, or null when it has no header of its own (the
// Fetcher's list `fetcher_headers`, which may be null, then serves as is).
// A failed allocation leaves a line out. O(lines of both).
CurlSlistPtr RequestHeaderList(const curl_slist* fetcher_headers,
                               const FetchRequest& request);

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_REQUEST_HEADERS_H_
