// fetch/internal/curl_handles.h: RAII owners for libcurl handles, and the
// once-per-process curl_global_init. Internal to sieve::fetch.
#ifndef SIEVE_FETCH_INTERNAL_CURL_HANDLES_H_
#define SIEVE_FETCH_INTERNAL_CURL_HANDLES_H_

#include <curl/curl.h>

#include <memory>

namespace sieve::fetch_internal {

struct CurlEasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct CurlMultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
struct CurlShareDeleter {
  void operator()(CURLSH* share) const { curl_share_cleanup(share); }
};
struct CurlUrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};

// An easy handle must be removed from its multi handle before it is destroyed;
// the owner of both (Fetcher) does that.
using CurlEasyPtr = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlMultiPtr = std::unique_ptr<CURLM, CurlMultiDeleter>;
using CurlSlistPtr = std::unique_ptr<curl_slist, CurlSlistDeleter>;
using CurlUrlPtr = std::unique_ptr<CURLU, CurlUrlDeleter>;
// A share handle must outlive every easy handle using it (CURLOPT_SHARE).
using CurlSharePtr = std::unique_ptr<CURLSH, CurlShareDeleter>;

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_CURL_HANDLES_H_
