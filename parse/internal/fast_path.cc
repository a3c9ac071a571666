#include "parse/internal/fast_path.h"

#include "absl/strings/ascii.h"
#include "parse/internal/host.h"

namespace sieve::url_internal {

std::string RemoveDotSegments(std::string_view in) {
  // The five steps of RFC 3986 §5.2.4, over a path that starts with '/' (so
  // steps A and D, for a leading "./" or "../", never apply).
  std::string out;
  out.reserve(in.size());
  auto pop_segment = [&out] {
    const size_t slash = out.rfind('/');
    out.resize(slash == std::string::npos ? 0 : slash);
  };
  while (!in.empty()) {
    if (in.starts_with("/./")) {
      in.remove_prefix(2);  // B: "/./" → "/"
    } else if (in == "/.") {
      in = "/";  // B
    } else if (in.starts_with("/../")) {
      in.remove_prefix(3);  // C: "/../" → "/", and drop the last segment
      pop_segment();
    } else if (in == "/..") {
      in = "/";  // C
      pop_segment();
    } else if (in == "." || in == "..") {
      in = {};  // D
    } else {
      // E: move "/segment" (or a leading "segment") to the output.
      const size_t next = in.find('/', 1);
      const size_t n = next == std::string_view::npos ? in.size() : next;
      out.append(in.substr(0, n));
      in.remove_prefix(n);
    }
  }
  return out;
}

bool IsPlainHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t label = 0;  // length of the label being read
  for (size_t i = 0; i < host.size(); ++i) {
    const auto c = static_cast<unsigned char>(host[i]);
    if (c == '.') {
      if (label == 0) return false;  // empty label: ".a", "a..b"
      label = 0;
      continue;
    }
    if (!absl::ascii_isalnum(c) && c != '-') return false;
    if (label == 0 && i + 4 <= host.size() &&
        absl::ascii_tolower(static_cast<unsigned char>(host[i])) == 'x' &&
        absl::ascii_tolower(static_cast<unsigned char>(host[i + 1])) == 'n' &&
        host[i + 2] == '-' && host[i + 3] == '-') {
      return false;  // an A-label: libidn2 must validate it
    }
    ++label;
  }
  return label != 0 && !EndsInANumber(host);
}

std::optional<std::string> MergeRelativePath(std::string_view base_path,
                                             std::string_view ref_path,
                                             bool has_query) {
  if (base_path.size() + ref_path.size() > kFastPathMaxBytes) return {};
  if (ref_path.starts_with('/')) return RemoveDotSegments(ref_path);
  // libcurl reads a first segment with ':' as a scheme ("%41b:c" escapes to
  // "Ab:c"), where the RFC reads a relative path.
  if (ref_path.substr(0, ref_path.find('/')).find(':') !=
      std::string_view::npos) {
    return {};
  }
  // libcurl strips one leading "./" and every following "../" before it
  // appends the rest, and appends no '/' when the rest starts with '/' or '?':
  // ".//x" loses the empty segment the RFC keeps, and "./?q" the final '/'.
  std::string_view rest = ref_path;
  if (rest.starts_with("./")) rest.remove_prefix(2);
  while (rest.starts_with("../")) rest.remove_prefix(3);
  if (rest.starts_with('/') || (rest.empty() && has_query)) return {};
  // libcurl climbs "../" by cutting the base at its last '/', and loses the
  // empty first segment of a base path "//b/c" ("../g": "/g", RFC "//g").
  if (base_path.starts_with("//")) return {};
  // §5.2.3: all but the last segment of the base path, then the reference.
  const size_t slash = base_path.rfind('/');
  if (slash == std::string_view::npos) return {};  // not canonical: not sure
  std::string merged;
  merged.reserve(slash + 1 + ref_path.size());
  merged.append(base_path.substr(0, slash + 1));
  merged.append(ref_path);
  if (merged.find("/.") == std::string::npos) return merged;  // no dot segment
  return RemoveDotSegments(merged);
}

}  // namespace sieve::url_internal
