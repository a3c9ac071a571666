#include "fetch/fetch_types.h"

namespace sieve {

absl::string_view FetchErrorName(FetchError error) {
  switch (error) {
    case FetchError::kNone:
      return "none";
    case FetchError::kInvalidUrl:
      return "invalid_url";
    case FetchError::kDns:
      return "dns";
    case FetchError::kConnect:
      return "connect";
    case FetchError::kTimeout:
      return "timeout";
    case FetchError::kTls:
      return "tls";
    case FetchError::kTooLarge:
      return "too_large";
    case FetchError::kProtocol:
      return "protocol";
    case FetchError::kTooManyRedirects:
      return "too_many_redirects";
    case FetchError::kReset:
      return "reset";
    case FetchError::kBlockedAddress:
      return "blocked_address";
    case FetchError::kOther:
      return "other";
  }
  return "other";
}

}  // namespace sieve
