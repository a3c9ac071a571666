#include "fetch/retry_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace sieve {

std::optional<absl::Duration> ParseRetryAfter(absl::string_view value,
                                              absl::Time now) {
  value = absl::StripAsciiWhitespace(value);
  if (value.empty()) return std::nullopt;
  // delay-seconds = 1*DIGIT (RFC 9110 10.2.3). SimpleAtoi alone would also take
  // "+5" and "-5".
  if (std::all_of(value.begin(), value.end(), absl::ascii_isdigit)) {
    uint64_t seconds = 0;
    if (!absl::SimpleAtoi(value, &seconds))
      seconds = UINT32_MAX;  // Overflow: "very long".
    return absl::Seconds(
        static_cast<int64_t>(std::min<uint64_t>(seconds, UINT32_MAX)));
  }
  // HTTP-date: IMF-fixdate, or the obsolete RFC 850 and asctime forms;
  // curl_getdate reads all three and returns -1 for anything else.
  const std::string text(value);
  const time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::max(absl::ZeroDuration(), absl::FromTimeT(when) - now);
}

}  // namespace sieve
