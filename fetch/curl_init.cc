#include "fetch/curl_init.h"

#include <curl/curl.h>

#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

absl::Status InitOnce() {
  const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (code != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat("curl_global_init: ", curl_easy_strerror(code)));
  }
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  if (info->version_num < 0x075500) {  // 7.85.0
    return absl::FailedPreconditionError(
        absl::StrCat("libcurl ", info->version, " is older than 7.85.0"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status InitCurl() {
  // The library's only static: curl_global_init is process-wide by nature. C++
  // runs the initialiser of a function-local static exactly once, even when
  // called from several threads.
  static const absl::Status result = InitOnce();
  return result;
}

}  // namespace sieve
