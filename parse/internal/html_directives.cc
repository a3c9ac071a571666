#include "parse/internal/html_directives.h"

#include "absl/strings/ascii.h"

namespace sieve::html_internal {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  absl::AsciiStrToLower(&out);
  return out;
}

void AddDirective(std::string_view token, RobotsDirectives* out) {
  const std::string directive = Lower(Trim(token));
  if (directive == "nofollow" || directive == "none") out->nofollow = true;
  if (directive == "noindex" || directive == "none") out->noindex = true;
}

// Directives that carry a value after ':' and so are not a user-agent prefix.
bool IsValuedDirective(std::string_view name) {
  return name == "unavailable_after" || name == "max-snippet" ||
         name == "max-image-preview" || name == "max-video-preview";
}

}  // namespace

std::optional<std::string> RefreshUrl(std::string_view content) {
  size_t i = 0;
  while (i < content.size() && IsSpace(content[i])) ++i;
  const size_t digits = i;
  while (i < content.size() &&
         (absl::ascii_isdigit(static_cast<unsigned char>(content[i])) ||
          content[i] == '.')) {
    ++i;
  }
  if (i == digits) return std::nullopt;  // the time is required
  while (i < content.size() && IsSpace(content[i])) ++i;
  if (i < content.size() && (content[i] == ';' || content[i] == ','))
    ++i;
  else if (i < content.size())
    return std::nullopt;
  while (i < content.size() && IsSpace(content[i])) ++i;
  std::string_view rest = content.substr(i);
  if (rest.size() >= 3 && Lower(rest.substr(0, 3)) == "url") {
    std::string_view after = rest.substr(3);
    while (!after.empty() && IsSpace(after.front())) after.remove_prefix(1);
    if (!after.empty() && after.front() == '=') {
      after.remove_prefix(1);
      while (!after.empty() && IsSpace(after.front())) after.remove_prefix(1);
      rest = after;
    }
  }
  if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
    const char quote = rest.front();
    rest.remove_prefix(1);
    rest = rest.substr(0, rest.find(quote));
  }
  rest = Trim(rest);
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

void AddMetaRobots(std::string_view content, RobotsDirectives* out) {
  while (!content.empty()) {
    const size_t comma = content.find(',');
    AddDirective(content.substr(0, comma), out);
    if (comma == std::string_view::npos) break;
    content.remove_prefix(comma + 1);
  }
}

void AddXRobotsTag(std::string_view header, std::string_view robots_name,
                   RobotsDirectives* out) {
  const std::string me = Lower(robots_name);
  bool applies = true;  // no prefix yet: the directives are for every crawler
  while (!header.empty()) {
    const size_t comma = header.find(',');
    std::string_view token = Trim(header.substr(0, comma));
    const size_t colon = token.find(':');
    if (colon != std::string_view::npos) {
      const std::string prefix = Lower(Trim(token.substr(0, colon)));
      if (!IsValuedDirective(prefix)) {
        applies = prefix == me && !me.empty();
        token = token.substr(colon + 1);
      }
    }
    if (applies) AddDirective(token, out);
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
}

}  // namespace sieve::html_internal
