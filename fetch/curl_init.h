// fetch/curl_init.h: libcurl's process-wide initialisation.
//
// curl_global_init must run once per process before any other thread uses
// libcurl. Fetcher::Create calls InitCurl itself, which suffices for the
// crawler (it creates its Fetcher before starting threads); a program that
// starts threads first, or uses libcurl elsewhere (the parse module's URL API),
// should call InitCurl at the top of main. curl_global_cleanup is never called:
// libcurl stays initialised until the process exits.
//
// Example:
//   int main() {
//     if (absl::Status s = sieve::InitCurl(); !s.ok()) return 1;
//     ...
//   }
#ifndef SIEVE_FETCH_CURL_INIT_H_
#define SIEVE_FETCH_CURL_INIT_H_

#include "absl/status/status.h"

namespace sieve {

// Runs curl_global_init(CURL_GLOBAL_DEFAULT) the first time it is called (a
// function-local static, the only static state in this library) and returns its
// result every time. Thread-safe. Also checks that libcurl is at least 7.85
// (CURLOPT_PROTOCOLS_STR).
[[nodiscard]] absl::Status InitCurl();

}  // namespace sieve

#endif  // SIEVE_FETCH_CURL_INIT_H_
