// RAII for libcurl's URL handle (CURLU) and a checked getter. Private to
// sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_CURL_URL_H_
#define SIEVE_PARSE_INTERNAL_CURL_URL_H_

#include <curl/curl.h>

#include <memory>
#include <optional>
#include <string>

namespace sieve::url_internal {

struct CurlUrlDeleter {
  void operator()(CURLU* handle) const { curl_url_cleanup(handle); }
};
// Owns one CURLU. curl_url() needs no curl_global_init (libcurl docs,
// curl_url(3)).
using CurlUrl = std::unique_ptr<CURLU, CurlUrlDeleter>;

inline CurlUrl MakeCurlUrl() { return CurlUrl(curl_url()); }

// One component of a parsed URL, or nullopt when the URL has none (or on
// allocation failure).
inline std::optional<std::string> GetPart(CURLU* handle, CURLUPart part,
                                          unsigned flags = 0) {
  char* raw = nullptr;
  if (curl_url_get(handle, part, &raw, flags) != CURLUE_OK || raw == nullptr)
    return std::nullopt;
  std::string value(raw);
  curl_free(raw);
  return value;
}

}  // namespace sieve::url_internal

#endif  // SIEVE_PARSE_INTERNAL_CURL_URL_H_
