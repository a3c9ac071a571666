#include "fetch/fetch_failure.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

constexpr std::array<FailureInfo, kFailureCodeCount> kTable = {{
#define SIEVE_FAILURE_ROW(e, name, retry, connection, cause) \
  {name, FailureRetry::retry, connection, cause},
    SIEVE_FAILURE_CODES(SIEVE_FAILURE_ROW)
#undef SIEVE_FAILURE_ROW
}};

FailureCode CodeOf(FetchError error) {
  switch (error) {
    case FetchError::kNone:
    case FetchError::kOther:
      return FailureCode::kOther;
    case FetchError::kInvalidUrl:
      return FailureCode::kInvalidUrl;
    case FetchError::kDns:
      return FailureCode::kDns;
    case FetchError::kConnect:
      return FailureCode::kConnect;
    case FetchError::kTimeout:
      return FailureCode::kTimeout;
    case FetchError::kTls:
      return FailureCode::kTls;
    case FetchError::kTooLarge:
      return FailureCode::kTooLarge;
    case FetchError::kProtocol:
      return FailureCode::kProtocol;
    case FetchError::kTooManyRedirects:
      return FailureCode::kTooManyRedirects;
    case FetchError::kReset:
      return FailureCode::kReset;
    case FetchError::kBlockedAddress:
      return FailureCode::kBlockedAddress;
  }
  return FailureCode::kOther;
}

}  // namespace

const FailureInfo& InfoOf(FailureCode code) {
  return kTable[static_cast<size_t>(code)];
}

std::optional<FailureCode> FailureCodeFromName(std::string_view name) {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (kTable[i].name == name) return static_cast<FailureCode>(i);
  }
  return std::nullopt;
}

std::optional<Failure> FailureOf(const FetchResponse& response) {
  if (!response.ok()) {
    Failure f{.code = CodeOf(response.error), .detail = response.error_message};
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
