#include "fetch/content_decoder.h"

#include <zlib.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace sieve {
namespace {

std::string Token(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Inflates with `window_bits` (zlib's meaning) into at most max_bytes.
// Returns false on corrupt data; sets *cut when the output hit max_bytes
// with input left.
bool Inflate(std::string_view in, int window_bits, int64_t max_bytes,
             std::string* out, bool* cut, std::string* error) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) {
    *error = "inflateInit2 failed";
    return false;
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  out->clear();
  char buf[64 * 1024];
  while (true) {
    const int64_t room = max_bytes - static_cast<int64_t>(out->size());
    if (room <= 0) {
      *cut = z.avail_in > 0;  // More would come out: a bomb is cut here.
      return true;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = static_cast<uInt>(std::min<int64_t>(room, sizeof(buf)));
    const uInt asked = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    out->append(buf, asked - z.avail_out);
    if (rc == Z_STREAM_END) {
      // gzip allows members back to back.
      if (z.avail_in > 0 && window_bits > 15 && inflateReset(&z) == Z_OK) {
        continue;
      }
      return true;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) return true;  // Ended early.
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      *error = z.msg != nullptr ? z.msg : "inflate error";
      return false;
    }
  }
}

}  // namespace

DecodedContent DecodeContent(std::string_view encoding, std::string_view raw,
                             int64_t max_bytes) {
  std::vector<std::string> codings;
  size_t start = 0;
  while (start <= encoding.size()) {
    const size_t comma = encoding.find(',', start);
    std::string token = Token(encoding.substr(start, comma - start));
    if (!token.empty() && token != "identity") codings.push_back(token);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  DecodedContent result;
  std::string current(raw);
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    std::string next;
    bool ok = false;
    if (*it == "gzip" || *it == "x-gzip") {
      ok = Inflate(current, 15 + 16, max_bytes, &next, &result.cut,
                   &result.error);
    } else if (*it == "deflate") {
      ok = Inflate(current, 15, max_bytes, &next, &result.cut, &result.error) ||
           Inflate(current, -15, max_bytes, &next, &result.cut, &result.error);
    } else {
      result.error = "unsupported content coding: " + *it;
    }
    if (!ok) {
      result.ok = false;
      if (result.error.empty()) result.error = "corrupt " + *it + " data";
      return result;
    }
    current = std::move(next);
  }
  if (static_cast<int64_t>(current.size()) > max_bytes) {
    current.resize(static_cast<size_t>(max_bytes));
    result.cut = true;
  }
  result.body = std::move(current);
  return result;
}

}  // namespace sieve
