// Origin (crawler/policy/link_policy.h): how a URL came to the crawl, as the
// metadata string it carries through the Frontier.
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "crawler/policy/link_policy.h"

namespace sieve {
namespace {

absl::string_view AV(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

}  // namespace

std::string Origin::Encode() const {
  std::string first = absl::StrCat(redirect_hops);
  if (sitemap) {
    absl::StrAppend(&first, ",s", sitemap_nesting, from_robots ? "r" : "");
  }
  // A lastmod is a W3C datetime; anything with a separator in it is dropped.
  if (!lastmod.empty() && lastmod.find_first_of(" ,") == std::string::npos) {
    absl::StrAppend(&first, ",m", lastmod);
  }
  if (requisite) absl::StrAppend(&first, ",p");
  return absl::StrCat(first, " ", referrer);
}

Origin Origin::Decode(std::string_view metadata) {
  Origin origin;
  size_t space = metadata.find(' ');
  if (space == std::string_view::npos) return origin;
  bool first_part = true;
  for (absl::string_view part :
       absl::StrSplit(AV(metadata.substr(0, space)), ',')) {
    if (first_part) {
      if (!absl::SimpleAtoi(part, &origin.redirect_hops)) {
        origin.redirect_hops = 0;
      }
      first_part = false;
    } else if (absl::ConsumePrefix(&part, "s")) {
      origin.sitemap = true;
      origin.from_robots = absl::ConsumeSuffix(&part, "r");
      if (!absl::SimpleAtoi(part, &origin.sitemap_nesting)) {
        origin.sitemap_nesting = 0;
      }
    } else if (absl::ConsumePrefix(&part, "m")) {
      origin.lastmod = std::string(part);
    } else if (part == "p") {
      origin.requisite = true;
    }
  }
  origin.referrer = std::string(metadata.substr(space + 1));
  return origin;
}

}  // namespace sieve
