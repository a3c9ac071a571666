#include "crawler/output/warc_format.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <memory>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sieve {

std::string Base32(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  out.reserve((bytes.size() + 4) / 5 * 8);
  uint64_t buffer = 0;
  int bits = 0;
  for (const char c : bytes) {
    buffer = (buffer << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 5) {
      out.push_back(kAlphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (5 - bits)) & 31]);
  while (out.size() % 8 != 0) out.push_back('=');
  return out;
}

std::string Sha1Digest(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha1(), nullptr);
  return "sha1:" +
         Base32(std::string_view(reinterpret_cast<const char*>(md), len));
}

std::string NewWarcRecordId(absl::BitGenRef gen) {
  uint8_t b[16];
  for (uint8_t& x : b) x = absl::Uniform<uint8_t>(gen);
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // Version 4.
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant.
  return absl::StrFormat(
      "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
      "%02x%02x%02x%02x%02x%02x>",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
      b[12], b[13], b[14], b[15]);
}

std::string WarcDate(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

bool ParseWarcDate(std::string_view text, absl::Time* t) {
  std::string err;
  return absl::ParseTime("%Y-%m-%dT%H:%M:%E*SZ", std::string(text),
                         absl::UTCTimeZone(), t, &err);
}

std::string CdxTimestamp(absl::Time t) {
  return absl::FormatTime("%Y%m%d%H%M%S", t, absl::UTCTimeZone());
}

std::string FormatWarcRecord(const WarcFields& fields, std::string_view block) {
  std::string out = "WARC/1.1\r\n";
  for (const auto& [name, value] : fields) {
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  absl::StrAppend(&out, "Content-Length: ", block.size(), "\r\n\r\n");
  out.append(block);
  out.append("\r\n\r\n");
  return out;
}

std::string GzipMember(std::string_view bytes, int level) {
  z_stream z{};
  // 15 + 16: a 32 KiB window with a gzip (not zlib) wrapper.
  deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, deflateEnd);
  std::string out(deflateBound(&z, bytes.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);  // deflateBound guarantees one call suffices.
  out.resize(z.total_out);
  return out;
}

}  // namespace sieve
