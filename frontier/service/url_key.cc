#include "frontier/service/url_key.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace sieve::service {

std::string CrawlName(std::string_view crawl_id) {
  return crawl_id.empty() ? std::string(kDefaultCrawl) : std::string(crawl_id);
}

std::string HostOf(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "";
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  const size_t at = rest.rfind('@');
  if (at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') {
    // "[v6]:port": keep the brackets.
    const size_t close = rest.find(']');
    if (close != std::string_view::npos) rest = rest.substr(0, close + 1);
  } else {
    rest = rest.substr(0, rest.find(':'));
  }
  return absl::AsciiStrToLower(std::string(rest));
}

absl::StatusOr<UrlKey> UrlKey::Make(std::string_view crawl_id,
                                    std::string_view queue,
                                    std::string_view url) {
  if (url.empty()) return absl::InvalidArgumentError("empty URL");
  UrlKey k{.crawl = CrawlName(crawl_id),
           .queue = queue.empty() ? HostOf(url) : std::string(queue),
           .url = std::string(url)};
  if (k.queue.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no queue key and no host in URL \"", std::string(url), "\""));
  }
  for (std::string_view part :
       {std::string_view(k.crawl), std::string_view(k.queue),
        std::string_view(k.url)}) {
    if (part.find('\0') != std::string_view::npos)
      return absl::InvalidArgumentError("NUL byte in crawl, key or URL");
  }
  return k;
}

std::optional<UrlKey> UrlKey::Decode(std::string_view key) {
  if (key.empty() || key.front() != 'u') return std::nullopt;
  key.remove_prefix(1);
  const size_t a = key.find('\0');
  if (a == std::string_view::npos) return std::nullopt;
  const size_t b = key.find('\0', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  return UrlKey{.crawl = std::string(key.substr(0, a)),
                .queue = std::string(key.substr(a + 1, b - a - 1)),
                .url = std::string(key.substr(b + 1))};
}

std::string UrlKey::Encode() const { return QueuePrefix(crawl, queue) + url; }

std::string CrawlPrefix(std::string_view crawl) {
  std::string out = "u";
  out.append(crawl);
  out.push_back('\0');
  return out;
}

std::string QueuePrefix(std::string_view crawl, std::string_view queue) {
  std::string out = CrawlPrefix(crawl);
  out.append(queue);
  out.push_back('\0');
  return out;
}

}  // namespace sieve::service
