#include "fetch/fetch_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sieve {
namespace {

absl::Status Invalid(absl::string_view option, absl::string_view rule) {
  return absl::InvalidArgumentError(
      absl::StrCat("FetchOptions.", option, " must be ", rule));
}

}  // namespace

absl::Status ValidateFetchOptions(const FetchOptions& o) {
  if (o.max_concurrent_transfers < 1)
    return Invalid("max_concurrent_transfers", ">= 1");
  if (o.connect_timeout <= absl::ZeroDuration())
    return Invalid("connect_timeout", "> 0");
  if (o.total_timeout <= absl::ZeroDuration())
    return Invalid("total_timeout", "> 0");
  if (o.low_speed_limit < 0) return Invalid("low_speed_limit", ">= 0");
  if (o.low_speed_limit > 0 && o.low_speed_time < absl::Seconds(1)) {
    return Invalid("low_speed_time", ">= 1 s");
  }
  if (o.max_body_bytes <= 0) return Invalid("max_body_bytes", "> 0");
  if (o.max_idle_connections < 0)
    return Invalid("max_idle_connections", ">= 0");
  if (absl::Status s = ValidateDnsOptions(o.dns); !s.ok()) return s;
  if (!o.ca_bundle.empty() && access(o.ca_bundle.c_str(), R_OK) != 0) {
    return Invalid("ca_bundle", absl::StrCat("a readable file (", o.ca_bundle,
                                             ": ", std::strerror(errno), ")"));
  }
  if (!o.proxy.empty()) {
    const std::string_view scheme =
        std::string_view(o.proxy).substr(0, o.proxy.find("://"));
    if (o.proxy.find("://") == std::string::npos ||
        (scheme != "http" && scheme != "https" && scheme != "socks4" &&
         scheme != "socks4a" && scheme != "socks5" && scheme != "socks5h")) {
      return Invalid("proxy",
                     "an http://, https://, socks4://, socks4a://, socks5:// "
                     "or socks5h:// URL");
    }
  }
  for (const std::string& line : o.extra_headers) {
    if (line.find(':') == std::string::npos ||
        line.find_first_of("\r\n") != std::string::npos) {
      return Invalid("extra_headers", "\"Name: value\" lines without CR or LF");
    }
  }
  return absl::OkStatus();
}

}  // namespace sieve
