// fetch/internal/address_policy.h: FetchOptions' private-address rule, ready
// to ask for each socket. Internal to sieve::fetch.
#ifndef SIEVE_FETCH_INTERNAL_ADDRESS_POLICY_H_
#define SIEVE_FETCH_INTERNAL_ADDRESS_POLICY_H_

#include <sys/socket.h>

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "fetch/fetch_options.h"

namespace sieve::fetch_internal {

// `host` lower-cased, without IPv6 brackets or a trailing dot: the form
// private_address_hosts and URL hosts are compared in.
std::string GuardHostKey(absl::string_view host);

class AddressPolicy {
 public:
  explicit AddressPolicy(const FetchOptions& options);

  // Empty when a URL whose host is `url_host` may connect to `address`;
  // otherwise the reason, for FetchResponse::error_message. O(|url_host|).
  std::string Refusal(absl::string_view url_host,
                      const sockaddr& address) const;
  // Adds `host` to the hosts that may use private addresses.
  void AllowHost(absl::string_view host) { hosts_.insert(GuardHostKey(host)); }

 private:
  const bool allow_all_;
  absl::flat_hash_set<std::string> hosts_;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_ADDRESS_POLICY_H_
