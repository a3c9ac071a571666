// fetch/internal/request_headers.cc: builds a request's own curl_slist.
#include "fetch/internal/request_headers.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sieve::fetch_internal {
namespace {

// Headers the Fetcher writes itself or that describe the connection or the
// body's wire encoding (RFC 9110 7.6.1 hop-by-hop ones among them).
constexpr absl::string_view kOwned[] = {"accept-encoding",
                                        "connection",
                                        "content-length",
                                        "expect",
                                        "host",
                                        "keep-alive",
                                        "proxy-connection",
                                        "te",
                                        "trailer",
                                        "upgrade",
                                        "transfer-encoding",
                                        "user-agent"};

bool TokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::string_view("!#$%&'*+-.^_`|~").find(c) !=
             absl::string_view::npos;
}

// Appends `line` to `list`; a failed allocation leaves the list as it was.
void Append(CurlSlistPtr& list, const std::string& line) {
  curl_slist* grown = curl_slist_append(list.get(), line.c_str());
  if (grown == nullptr) return;
  (void)list.release();  // Now owned by `grown`, which is the same list.
  list.reset(grown);
}

// Whether `request` sends a header of its own named `name` (any case).
bool Replaces(const FetchRequest& request, absl::string_view name) {
  return std::any_of(
      request.headers.begin(), request.headers.end(), [&](const auto& header) {
        return absl::EqualsIgnoreCase(header.first, name) &&
               SendableRequestHeader(header.first, header.second);
      });
}

}  // namespace

bool SendableRequestHeader(absl::string_view name, absl::string_view value) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), TokenChar)) {
    return false;
  }
  if (value.find_first_of(absl::string_view("\r\n\0", 3)) !=
      absl::string_view::npos) {
    return false;
  }
  return std::none_of(std::begin(kOwned), std::end(kOwned),
                      [&](absl::string_view owned) {
                        return absl::EqualsIgnoreCase(owned, name);
                      });
}

CurlSlistPtr RequestHeaderList(const curl_slist* fetcher_headers,
                               const FetchRequest& request) {
  if (request.headers.empty() && request.if_none_match.empty() &&
      request.if_modified_since.empty()) {
    return nullptr;
  }
  CurlSlistPtr list;
  for (const curl_slist* h = fetcher_headers; h != nullptr; h = h->next) {
    const absl::string_view line = h->data;
    const absl::string_view name =
        absl::StripAsciiWhitespace(line.substr(0, line.find(':')));
    if (request.headers.empty() || !Replaces(request, name)) {
      Append(list, h->data);
    }
  }
  // The validators of the request's own fields win over the same headers
  // among `headers`.
  const std::pair<absl::string_view, const std::string&> validators[] = {
      {"If-None-Match", request.if_none_match},
      {"If-Modified-Since", request.if_modified_since}};
  for (const auto& [name, value] : request.headers) {
    if (!SendableRequestHeader(name, value)) continue;
    if (std::any_of(
            std::begin(validators), std::end(validators), [&](const auto& v) {
              return !v.second.empty() && absl::EqualsIgnoreCase(v.first, name);
            })) {
      continue;
    }
    // "Name;" is curl's way to send an empty value ("Name:" removes it).
    Append(list, value.empty() ? absl::StrCat(name, ";")
                               : absl::StrCat(name, ": ", value));
  }
  for (const auto& [name, value] : validators) {
    if (!value.empty() && SendableRequestHeader(name, value)) {
      Append(list, absl::StrCat(name, ": ", value));
    }
  }
  return list;
}

}  // namespace sieve::fetch_internal
