// ExtractLinks with the URL resolver chosen, so that the differential test and
// the benchmark can run the libcurl path beside the fast one. Private to
// sieve::parse; parse/link_extractor.h is the API.
#ifndef SIEVE_PARSE_INTERNAL_EXTRACT_LINKS_H_
#define SIEVE_PARSE_INTERNAL_EXTRACT_LINKS_H_

#include <string_view>

#include "parse/internal/fast_path.h"
#include "parse/link_extractor.h"
#include "parse/parse_arena.h"

namespace sieve::html_internal {

// As sieve::ExtractLinks; `resolver` picks how links are resolved (both give
// the same URLs). ExtractLinks is ExtractLinksWith(..., Resolver::kFast).
ExtractedLinks ExtractLinksWith(std::string_view html_bytes,
                                std::string_view base_url,
                                std::string_view content_type,
                                std::string_view x_robots_tag,
                                const LinkOptions& options, ParseArena* arena,
                                url_internal::Resolver resolver);

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_INTERNAL_EXTRACT_LINKS_H_
