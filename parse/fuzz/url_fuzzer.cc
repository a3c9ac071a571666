// Fuzzes ResolveUrl/NormalizeUrl/SplitUrl/SplitNormalizedUrl. Input:
// "<base>\n<href>" (no newline: href only). Checks, besides memory safety, that
// a resolved URL is a fixed point of NormalizeUrl and that SplitUrl and
// SplitNormalizedUrl agree with it, and that the fast
// resolver gives exactly what the libcurl one gives
// (parse/internal/fast_path.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parse/internal/url_canon.h"
#include "parse/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view base = newline == std::string_view::npos
                                    ? "http://example.com/a/b?c"
                                    : input.substr(0, newline);
  const std::string_view href =
      newline == std::string_view::npos ? input : input.substr(newline + 1);

  sieve::UrlOptions options;
  options.drop_query_params = {"utm_*", "*id"};
  options.sort_query = (size % 2) == 0;
  options.drop_www = true;

  const absl::StatusOr<std::string> resolved = sieve::ResolveUrl(base, href);
  if (resolved.ok()) {
    const absl::StatusOr<std::string> again = sieve::NormalizeUrl(*resolved);
    if (!again.ok() || *again != *resolved) std::abort();  // not a fixed point
    const absl::StatusOr<sieve::UrlParts> parts = sieve::SplitUrl(*resolved);
    if (!parts.ok() || parts->normalized_url != *resolved) std::abort();
  }
  namespace ui = sieve::url_internal;
  const auto render = [](const absl::StatusOr<ui::UrlComponents>& u) {
    return u.ok() ? u->Assemble() : u.status().ToString();
  };
  if (render(ui::ResolveComponents(base, href, ui::Resolver::kFast)) !=
      render(ui::ResolveComponents(base, href, ui::Resolver::kCurl))) {
    std::abort();  // the fast path departs from libcurl's
  }
  // A link resolved with options is cut by SplitNormalizedUrl as SplitUrl
  // would normalise it (but a second leading "www.", see url.h).
  if (const absl::StatusOr<std::string> with_options =
          sieve::ResolveUrl(base, href, options);
      with_options.ok()) {
    const absl::StatusOr<sieve::UrlParts> want =
        sieve::SplitUrl(*with_options, options);
    const absl::StatusOr<sieve::UrlParts> got =
        sieve::SplitNormalizedUrl(*with_options);
    if (!got.ok()) std::abort();
    if (want.ok() && want->normalized_url == *with_options &&
        (got->scheme != want->scheme || got->host != want->host ||
         got->port != want->port ||
         got->path_and_query != want->path_and_query)) {
      std::abort();  // cut differently from SplitUrl's parse
    }
  }
  (void)sieve::NormalizeUrl(href, options);
  return 0;
}
