// robots.txt as RFC 9309 (Robots Exclusion Protocol) defines it: parse any
// bytes, pick the group for a crawler's product token, and decide whether a
// path may be fetched.
//
// What it does, by RFC section:
//  * §2.1, §2.2.1: groups start with one or more user-agent lines; the product
//    token is matched case-insensitively ("SieveBot/1.0" → "sievebot"); all
//    groups naming the token are merged; with none, the "*" groups apply; with
//    no "*" group either, everything is allowed.
//  * §2.2.2: allow/disallow paths are matched case-sensitively against the
//    URI's path and query; the longest matching pattern (in octets) wins and
//    allow wins a tie; an empty path makes no rule; "/robots.txt" is always
//    allowed. Before matching, both sides are brought to one spelling:
//    non-ASCII octets %-encoded, %-escapes of unreserved characters decoded,
//    hex in upper case; '*' and '$' in the URI are compared as %2A and %24.
//  * §2.2.3: '*' matches any run of octets; '$' at the end of a pattern anchors
//    it; "#" starts a comment.
//  * §2.3.1: the fetch outcome decides the rules (RobotsRuleForStatus,
//    RobotsTxt::FromFetch).
//  * §2.5: only the first 500 KiB are parsed (kMaxBytes); a line cut by the
//    limit is dropped.
// Departures: reserved characters are compared as written (":" does not match
// "%3A"), as google/robotstxt does. Non-standard lines kept because users
// expect them: Crawl-delay (per group, seconds) and Sitemap (global).
//
// Thread-safety: a RobotsTxt is immutable after Parse; const calls are safe
// from any thread.
//
// Example:
//   sieve::RobotsTxt robots = sieve::RobotsTxt::Parse(body);
//   if (robots.IsAllowed("SieveBot/1.0", "/private/x?y")) { ... }
//   std::optional<double> delay = robots.CrawlDelay("SieveBot/1.0");   //
//   seconds
#ifndef SIEVE_PARSE_ROBOTS_H_
#define SIEVE_PARSE_ROBOTS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {

// What RFC 9309 §2.3.1 says to do with the outcome of fetching /robots.txt
// (after following redirects, §2.3.1.2).
enum class RobotsFetchRule {
  kParse,        // 2xx: parse the body
  kAllowAll,     // 4xx "unavailable" (and a redirect chain that did not end):
                 // crawl freely
  kDisallowAll,  // 5xx, 429 or unreachable (network error, timeout): crawl
                 // nothing until a retry
};

// REQUIRES: `http_status` is the final HTTP status, or 0 when the server was
// unreachable. 3xx means the redirect limit was hit (§2.3.1.2: MAY be treated
// as unavailable); 1xx and anything else unknown is treated as unreachable.
// Departure: 429 is "unreachable", not "unavailable" (as Google's crawlers
// treat it:
// https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt).
RobotsFetchRule RobotsRuleForStatus(int http_status);

class RobotsTxt {
 public:
  // RFC 9309 §2.5: parsers MUST handle at least 500 kibibytes.
  static constexpr size_t kMaxBytes = 500 * 1024;

  // Parses robots.txt bytes. Never fails: lines that are not "key: value" with
  // a known key are ignored, as are rules before the first user-agent line. A
  // UTF-8 BOM is skipped; LF, CRLF and CR all end lines. Cost: O(min(|bytes|,
  // kMaxBytes)).
  static RobotsTxt Parse(std::string_view bytes);

  // A robots.txt that allows everything (no file, 4xx) or disallows everything
  // (5xx).
  static RobotsTxt AllowAll();
  static RobotsTxt DisallowAll();

  // RobotsRuleForStatus(http_status) applied: Parse(body), AllowAll() or
  // DisallowAll().
  static RobotsTxt FromFetch(int http_status, std::string_view body);

  // True if the crawler `user_agent` may fetch `path_and_query`.
  // `user_agent` is the crawler's User-Agent or product token ("SieveBot/1.0";
  // the token is the leading run of letters, '_' and '-'). REQUIRES:
  // `path_and_query` is the URL's path and query ("/a/b?c"), e.g.
  // UrlParts::path_and_query; "" means "/"; a fragment is ignored. Cost:
  // O(rules × |pattern| × |path|) in the worst case ('*' patterns); typically
  // O(rules). For many URLs of one site, compile the file once instead
  // (parse/robots_matcher.h): bounded work per URL.
  bool IsAllowed(std::string_view user_agent,
                 std::string_view path_and_query) const;

  // The Crawl-delay of the group that applies to `user_agent`, in seconds (the
  // largest if several merged groups give one), or nullopt if none.
  std::optional<double> CrawlDelay(std::string_view user_agent) const;

  // Every Sitemap line's value, in file order.
  const std::vector<std::string>& Sitemaps() const { return sitemaps_; }

 private:
  friend class RobotsMatcher;  // Compiles the rules for one crawler.

  struct Rule {
    bool allow = false;
    std::string pattern;  // normalised; '*' wildcard, trailing '$' anchor
    bool plain = true;    // no '*' or '$': a prefix comparison suffices
  };
  struct Group {
    std::vector<std::string> agents;  // lower-case product tokens, or "*"
    std::vector<Rule> rules;
    std::optional<double> crawl_delay;
  };
  enum class Mode { kRules, kDisallowAll };

  // The groups for `user_agent` per §2.2.1 (may be empty).
  std::vector<const Group*> GroupsFor(std::string_view user_agent) const;

  Mode mode_ = Mode::kRules;
  std::vector<Group> groups_;
  std::vector<std::string> sitemaps_;
};

}  // namespace sieve

#endif  // SIEVE_PARSE_ROBOTS_H_
