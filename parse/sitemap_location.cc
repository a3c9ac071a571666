// SitemapMayList (declared in parse/sitemap.h): the sitemaps.org location rule.
#include <string>
#include <string_view>

#include "parse/sitemap.h"

namespace sieve {
namespace {

struct Parts {
  std::string origin;     // "scheme://host:port", lower case, port always set.
  std::string_view path;  // From the first '/', "/" when absent.
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool Split(std::string_view url, Parts* parts) {
  const size_t colon = url.find("://");
  if (colon == std::string_view::npos) return false;
  const std::string scheme = Lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https") return false;
  std::string_view rest = url.substr(colon + 3);
  const size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.empty()) return false;
  std::string host = Lower(authority);
  if (host.find(':') == std::string::npos ||
      (host.front() == '[' && host.back() == ']')) {
    host += scheme == "https" ? ":443" : ":80";
  }
  parts->origin = scheme + "://" + host;
  if (end == std::string_view::npos || rest[end] != '/') {
    parts->path = "/";
  } else {
    parts->path = rest.substr(end);
  }
  return true;
}

}  // namespace

bool SitemapMayList(std::string_view url, std::string_view sitemap_url,
                    std::string_view robots_txt_url, SitemapLocationRule rule) {
  if (rule == SitemapLocationRule::kLenient) return true;
  const std::string_view base =
      robots_txt_url.empty() ? sitemap_url : robots_txt_url;
  Parts target, where;
  if (!Split(url, &target) || !Split(base, &where)) return false;
  if (target.origin != where.origin) return false;
  // Named in robots.txt: the whole host; otherwise the sitemap's directory.
  std::string_view dir = where.path;
  if (!robots_txt_url.empty()) {
    dir = "/";
  } else {
    dir = dir.substr(0, dir.find_first_of("?#"));
    dir = dir.substr(0, dir.rfind('/') + 1);
  }
  return target.path.substr(0, dir.size()) == dir;
}

}  // namespace sieve
