#include "crawler/output/warc_exchange.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace sieve {
namespace {

// Debian's Abseil has its own string_view.
absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

// Calls f(line) for each line of the head after the first, without CR/LF.
template <typename F>
void ForEachHeaderLine(std::string_view head, F f) {
  size_t start = head.find('\n');
  while (start != std::string_view::npos && start + 1 < head.size()) {
    ++start;
    size_t end = head.find('\n', start);
    std::string_view line = head.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return;
    if (!f(line)) return;
    start = end;
  }
}

}  // namespace

WarcExchange WarcExchangeFromFetch(FetchResponse& response, absl::Time date) {
  WarcExchange ex;
  ex.target_uri =
      response.effective_url.empty() ? response.url : response.effective_url;
  ex.date = date;
  ex.ip_address = std::move(response.wire.ip_address);
  ex.request_head = std::move(response.wire.request_head);
  ex.response_head = std::move(response.wire.response_head);
  ex.payload = std::move(response.wire.body);
  ex.cut = response.wire.cut;
  return ex;
}

int HttpStatusOf(std::string_view response_head) {
  std::string_view line = response_head.substr(0, response_head.find('\n'));
  const size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return 0;
  line.remove_prefix(sp + 1);
  int status = 0;
  if (line.size() < 3 || !absl::SimpleAtoi(A(line.substr(0, 3)), &status)) {
    return 0;
  }
  return status;
}

std::string HttpHeaderOf(std::string_view head, std::string_view name) {
  std::string value;
  ForEachHeaderLine(head, [&](std::string_view line) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos ||
        !absl::EqualsIgnoreCase(
            absl::StripAsciiWhitespace(A(line.substr(0, colon))), A(name))) {
      return true;
    }
    value = std::string(absl::StripAsciiWhitespace(A(line.substr(colon + 1))));
    return false;
  });
  return value;
}

std::string MimeOf(std::string_view response_head) {
  std::string type = HttpHeaderOf(response_head, "Content-Type");
  type = std::string(absl::StripAsciiWhitespace(
      A(std::string_view(type).substr(0, type.find(';')))));
  if (type.empty()) return "unk";
  absl::AsciiStrToLower(&type);
  return type;
}

std::string HeadForArchive(std::string_view response_head) {
  std::string out;
  out.reserve(response_head.size() + 16);
  size_t start = 0;
  while (start < response_head.size()) {
    size_t end = response_head.find('\n', start);
    end = end == std::string_view::npos ? response_head.size() : end + 1;
    const std::string_view line = response_head.substr(start, end - start);
    if (start > 0 &&
        absl::StartsWithIgnoreCase(A(line), "transfer-encoding:")) {
      out.append("X-Sieve-");
    }
    out.append(line);
    start = end;
  }
  return out;
}

}  // namespace sieve
