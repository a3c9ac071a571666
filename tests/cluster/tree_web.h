// tests/cluster/tree_web.h: the small web the cluster tests crawl without a
// network. kHosts hosts h0.test ... h23.test of kPagesPerHost pages each; page p
// of host h links to pages 2p+1 and 2p+2 of its host and to the root of the
// next host, so every page is reachable from any root.
//
// Example:
//   for (const auto& [url, host] : tree_web::Links(tree_web::PageUrl(0, 0)))
//     frontier.Add(url, host, depth + 1);
#ifndef SIEVE_TESTS_CLUSTER_TREE_WEB_H_
#define SIEVE_TESTS_CLUSTER_TREE_WEB_H_

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sieve::cluster::tree_web {

inline constexpr int kHosts = 24;
inline constexpr int kPagesPerHost = 40;
inline constexpr int kPages = kHosts * kPagesPerHost;

inline std::string HostName(int h) { return absl::StrCat("h", h, ".test"); }

inline std::string PageUrl(int h, int p) {
  return absl::StrCat("http://", HostName(h), "/p", p);
}

// The (url, host) pairs page `url` links to.
inline std::vector<std::pair<std::string, std::string>> Links(
    const std::string& url) {
  int h = 0, p = 0;
  std::sscanf(url.c_str(), "http://h%d.test/p%d", &h, &p);
  std::vector<std::pair<std::string, std::string>> out;
  for (int q : {2 * p + 1, 2 * p + 2}) {
    if (q < kPagesPerHost) out.emplace_back(PageUrl(h, q), HostName(h));
  }
  out.emplace_back(PageUrl((h + 1) % kHosts, 0), HostName((h + 1) % kHosts));
  return out;
}

}  // namespace sieve::cluster::tree_web

#endif  // SIEVE_TESTS_CLUSTER_TREE_WEB_H_
