#include "parse/surt.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One pass of %XX decoding; returns true when something was decoded.
bool DecodeOnce(std::string* s) {
  std::string out;
  out.reserve(s->size());
  bool changed = false;
  for (size_t i = 0; i < s->size(); ++i) {
    if ((*s)[i] == '%' && i + 2 < s->size()) {
      const int hi = HexValue((*s)[i + 1]);
      const int lo = HexValue((*s)[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        changed = true;
        continue;
      }
    }
    out.push_back((*s)[i]);
  }
  *s = std::move(out);
  return changed;
}

// IA canonicalisation: decode until stable (bounded), escape what must be.
std::string Canonical(std::string_view part) {
  std::string s(part);
  for (int i = 0; i < 4 && DecodeOnce(&s); ++i) {
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f || c == '#' || c == '%') {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(ch);
    }
  }
  return Lower(out);
}

bool IsWwwLabel(std::string_view label) {
  if (label.substr(0, 3) != "www") return false;
  return std::all_of(label.begin() + 3, label.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::string ReversedHost(std::string_view host) {
  std::vector<std::string_view> labels;
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    labels.push_back(host.substr(start, dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (labels.size() > 1 && IsWwwLabel(labels.front())) {
    labels.erase(labels.begin());
  }
  std::string out;
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
    if (!out.empty()) out.push_back(',');
    out.append(*it);
  }
  return out;
}

}  // namespace

std::string SurtKey(std::string_view url) {
  if (url.empty()) return "-";
  const size_t colon = url.find("://");
  if (colon == std::string_view::npos) return Lower(url);
  const std::string scheme = Lower(url.substr(0, colon));
  std::string_view rest = url.substr(colon + 3);
  rest = rest.substr(0, rest.find('#'));
  const size_t auth_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, auth_end);
  std::string_view path_query =
      auth_end == std::string_view::npos ? "" : rest.substr(auth_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);

  std::string host = Lower(authority);
  std::string port;
  const size_t port_colon = host.rfind(':');
  if (port_colon != std::string::npos &&
      host.find(']', port_colon) == std::string::npos) {
    port = host.substr(port_colon + 1);
    host.resize(port_colon);
    if ((scheme == "http" && port == "80") ||
        (scheme == "https" && port == "443") || port.empty()) {
      port.clear();
    }
  }
  while (!host.empty() && host.back() == '.') host.pop_back();

  std::string_view path = path_query.substr(0, path_query.find('?'));
  std::string_view query;
  if (const size_t q = path_query.find('?'); q != std::string_view::npos) {
    query = path_query.substr(q + 1);
  }
  std::string canon_path = Canonical(path.empty() ? "/" : path);
  if (canon_path.size() > 1 && canon_path.back() == '/') canon_path.pop_back();

  std::string key = ReversedHost(host);
  if (!port.empty()) key += ":" + port;
  key += ")";
  key += canon_path;
  if (!query.empty()) {
    std::vector<std::string> args;
    size_t start = 0;
    while (true) {
      const size_t amp = query.find('&', start);
      args.push_back(Canonical(query.substr(start, amp - start)));
      if (amp == std::string_view::npos) break;
      start = amp + 1;
    }
    std::sort(args.begin(), args.end());
    key += "?";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) key += "&";
      key += args[i];
    }
  }
  return key;
}

}  // namespace sieve
