#include "fetch/fetch_failure.h"

#include "absl/strings/str_cat.h"

namespace sieve {

std::optional<Failure> FailureOf(const FetchResponse& response) {
  if (!response.ok()) {
    Failure f{.code = response.error, .detail = response.error_message};
    if (f.detail.empty())
      f.detail = std::string(FetchErrorName(response.error));
    return f;
  }
  const int status = response.status;
  if (status < 400) return std::nullopt;
  Failure f;
  f.detail = absl::StrCat("HTTP ", status);
  if (status == 429 || status == 503) {
    f.code = FailureCode::kThrottled;
    if (!response.headers.retry_after.empty()) {
      absl::StrAppend(&f.detail,
                      ", Retry-After: ", response.headers.retry_after);
    }
  } else {
    f.code = status < 500 ? FailureCode::kHttp4xx : FailureCode::kHttp5xx;
  }
  return f;
}

}  // namespace sieve
