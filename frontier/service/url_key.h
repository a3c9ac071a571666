// frontier/service/url_key.h: how the URLFrontier server names a URL in its
// store. A URL belongs to one queue of one crawl; its record key is
//   'u' crawl '\0' queue '\0' url
// so the records of one queue, and of one crawl, are contiguous ranges
// (DeleteQueue, DeleteCrawl, ListURLs and CountURLs scan one range). The same
// key is what the Bloom filter in front of the store holds.
//
// Surprises first:
//   - An empty crawl ID is the crawl "DEFAULT" (the API's rule).
//   - An empty queue key is the URL's host, lowercased, without user info or
//     port ("http://u@A.example:8080/x" -> "a.example").
//   - Names holding '\0' cannot be keys: Make returns InvalidArgument.
//
// Example:
//   absl::StatusOr<sieve::service::UrlKey> k =
//       sieve::service::UrlKey::Make("", "", "http://a.example/x");
//   // k->crawl == "DEFAULT", k->queue == "a.example"
//   std::string key = k->Encode();
#ifndef SIEVE_FRONTIER_SERVICE_URL_KEY_H_
#define SIEVE_FRONTIER_SERVICE_URL_KEY_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve::service {

inline constexpr std::string_view kDefaultCrawl = "DEFAULT";

// "DEFAULT" for an empty crawl ID, the ID otherwise.
std::string CrawlName(std::string_view crawl_id);

// The host of `url` lowercased, without user info and port; empty if `url`
// has no "scheme://host".
std::string HostOf(std::string_view url);

struct UrlKey {
  std::string crawl;
  std::string queue;
  std::string url;

  // Fills in the defaults (crawl "DEFAULT", queue = host). InvalidArgument
  // for an empty URL, a URL without a host when `queue` is empty, or '\0' in
  // any part.
  static absl::StatusOr<UrlKey> Make(std::string_view crawl_id,
                                     std::string_view queue,
                                     std::string_view url);
  // Splits a key made by Encode; nullopt if it is not one.
  static std::optional<UrlKey> Decode(std::string_view key);

  std::string Encode() const;
};

// The first key of the records of `crawl`, and of `queue` in `crawl`: every
// record key of the range starts with it.
std::string CrawlPrefix(std::string_view crawl);
std::string QueuePrefix(std::string_view crawl, std::string_view queue);

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_URL_KEY_H_
