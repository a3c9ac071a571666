#include "crawler/policy/politeness_key.h"

#include "absl/strings/str_cat.h"
#include "crawler/policy/scope.h"

namespace sieve {

std::span<const PolitenessKey> AllPolitenessKeys() {
  static constexpr PolitenessKey kKeys[] = {PolitenessKey::kHost,
                                            PolitenessKey::kIp,
                                            PolitenessKey::kRegistrableDomain};
  return kKeys;
}

std::string_view PolitenessKeyName(PolitenessKey key) {
  switch (key) {
    case PolitenessKey::kHost:
      return "host";
    case PolitenessKey::kIp:
      return "ip";
    case PolitenessKey::kRegistrableDomain:
      return "registrable_domain";
  }
  return "unknown";
}

absl::StatusOr<PolitenessKey> ParsePolitenessKey(std::string_view name) {
  std::string names;
  for (PolitenessKey key : AllPolitenessKeys()) {
    if (name == PolitenessKeyName(key)) return key;
    absl::StrAppend(&names, names.empty() ? "" : ", ",
                    std::string(PolitenessKeyName(key)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must be one of ", names, "; got \"", std::string(name), "\""));
}

std::string PolitenessKeys::KeyOf(const UrlParts& url) const {
  switch (mode_) {
    case PolitenessKey::kHost:
      break;
    case PolitenessKey::kIp: {
      const DnsAnswer answer = dns_->Resolve(url.host, max_wait_);
      if (answer.state == DnsAnswer::kResolved) return answer.addresses.front();
      break;  // No address (yet): the host alone.
    }
    case PolitenessKey::kRegistrableDomain: {
      std::string host = url.host;
      if (host.size() >= 2 && host.front() == '[') {
        host = host.substr(1, host.size() - 2);  // An IPv6 literal.
      }
      return Scope::RegistrableDomain(host);
    }
  }
  return url.Authority();
}

}  // namespace sieve
