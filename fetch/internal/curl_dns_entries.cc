#include "fetch/internal/curl_dns_entries.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace sieve::fetch_internal {

std::string CurlDnsEntries::Key(const std::string& host, long port) {
  return absl::StrCat(absl::AsciiStrToLower(host), ":", port);
}

void CurlDnsEntries::Started(const std::string& key) { ++users_[key]; }

void CurlDnsEntries::Finished(const std::string& key) {
  auto it = users_.find(key);
  if (it == users_.end()) return;  // No matching Started: nothing to undo.
  if (--it->second > 0) return;
  users_.erase(it);
  unused_.push_back(key);
}

std::vector<std::string> CurlDnsEntries::TakeUnused() {
  return std::exchange(unused_, {});
}

}  // namespace sieve::fetch_internal
