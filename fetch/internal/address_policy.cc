#include "fetch/internal/address_policy.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "fetch/address_guard.h"

namespace sieve::fetch_internal {

std::string GuardHostKey(absl::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return absl::AsciiStrToLower(host);
}

AddressPolicy::AddressPolicy(const FetchOptions& options)
    : allow_all_(options.allow_private_addresses) {
  for (const std::string& host : options.private_address_hosts) {
    hosts_.insert(GuardHostKey(host));
  }
}

std::string AddressPolicy::Refusal(absl::string_view url_host,
                                   const sockaddr& address) const {
  if (allow_all_) return "";
  const std::optional<absl::string_view> range = BlockedAddressRange(address);
  if (!range.has_value()) return "";
  if (hosts_.contains(GuardHostKey(url_host))) return "";
  return absl::StrCat("connection to ", AddressText(address), " (", *range,
                      ") refused: host '", url_host,
                      "' may not use private addresses");
}

}  // namespace sieve::fetch_internal
