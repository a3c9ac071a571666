// Small parsers for directives found in HTML and its headers. Private to
// sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_HTML_DIRECTIVES_H_
#define SIEVE_PARSE_INTERNAL_HTML_DIRECTIVES_H_

#include <optional>
#include <string>
#include <string_view>

namespace sieve::html_internal {

// The URL of <meta http-equiv=refresh content="...">, following the HTML
// Standard's "shared declarative refresh steps": "5; url='x'", "0;URL=x", "3,
// x". nullopt when the content only reloads the page ("30") or is malformed.
std::optional<std::string> RefreshUrl(std::string_view content);

struct RobotsDirectives {
  bool nofollow = false;
  bool noindex = false;
};

// Adds the nofollow/noindex/none tokens of a <meta name=robots> content
// (comma-separated).
void AddMetaRobots(std::string_view content, RobotsDirectives* out);

// Adds the directives of an X-Robots-Tag header value. A directive prefixed
// with a user agent
// ("otherbot: noindex") applies only when that agent equals `robots_name`
// (case-insensitive); the prefix carries over the following comma-separated
// directives, as Google documents.
void AddXRobotsTag(std::string_view header, std::string_view robots_name,
                   RobotsDirectives* out);

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_INTERNAL_HTML_DIRECTIVES_H_
