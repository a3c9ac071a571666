#include "crawler/output/warc_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

// Debian's Abseil has its own string_view.
absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

struct WarcFileReader::Fd {
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  int fd;
};

std::string WarcRecord::Field(std::string_view name) const {
  for (const auto& [k, v] : fields) {
    if (absl::EqualsIgnoreCase(k, A(name))) return v;
  }
  return "";
}

absl::StatusOr<WarcFileReader> WarcFileReader::Open(
    const std::filesystem::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("open ", path.string(), ": ", std::strerror(errno)));
  }
  auto holder = std::make_shared<Fd>(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    return absl::InternalError(absl::StrCat("fstat ", path.string()));
  }
  return WarcFileReader(std::move(holder), static_cast<int64_t>(st.st_size));
}

absl::StatusOr<WarcRecord> WarcFileReader::ReadAt(
    int64_t offset, int64_t max_record_bytes) const {
  if (offset < 0 || offset >= size_) {
    return absl::OutOfRangeError(
        absl::StrCat("offset ", offset, " not in [0, ", size_, ")"));
  }
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) {
    return absl::InternalError("inflateInit2 failed");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  std::string in(64 * 1024, '\0');
  std::string out;
  char buf[64 * 1024];
  int64_t at = offset;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0) {
      const ssize_t n = pread(fd_->fd, in.data(), in.size(), at);
      if (n < 0) return absl::InternalError(std::strerror(errno));
      if (n == 0) {
        return absl::DataLossError(
            absl::StrCat("gzip member at ", offset, " ends early"));
      }
      at += n;
      z.next_in = reinterpret_cast<Bytef*>(in.data());
      z.avail_in = static_cast<uInt>(n);
    }
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      return absl::DataLossError(absl::StrCat(
          "gzip member at ", offset,
          " does not inflate: ", z.msg != nullptr ? z.msg : "error"));
    }
    out.append(buf, sizeof(buf) - z.avail_out);
    if (static_cast<int64_t>(out.size()) > max_record_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "record at ", offset, " inflates past ", max_record_bytes, " bytes"));
    }
  }
  WarcRecord record;
  record.offset = offset;
  record.length = static_cast<int64_t>(z.total_in);
  const size_t head_end = out.find("\r\n\r\n");
  if (head_end == std::string::npos || !absl::StartsWith(out, "WARC/")) {
    return absl::DataLossError(
        absl::StrCat("record at ", offset, " has no WARC head"));
  }
  std::string_view head(out.data(), head_end);
  size_t line_end = head.find("\r\n");
  record.version = std::string(head.substr(0, line_end));
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view line = head.substr(start, line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    record.fields.emplace_back(
        std::string(line.substr(0, colon)),
        std::string(absl::StripAsciiWhitespace(A(line.substr(colon + 1)))));
  }
  int64_t length = -1;
  if (!absl::SimpleAtoi(record.Field("Content-Length"), &length) ||
      length < 0 ||
      head_end + 4 + static_cast<size_t>(length) + 4 != out.size()) {
    return absl::DataLossError(absl::StrCat(
        "record at ", offset, ": Content-Length does not match its block"));
  }
  record.block = out.substr(head_end + 4, static_cast<size_t>(length));
  return record;
}

absl::Status VerifyWarcDigests(const WarcRecord& record) {
  const std::string block_digest = record.Field("WARC-Block-Digest");
  if (!block_digest.empty() && block_digest != Sha1Digest(record.block)) {
    return absl::DataLossError(
        absl::StrCat("WARC-Block-Digest mismatch at offset ", record.offset));
  }
  const std::string payload_digest = record.Field("WARC-Payload-Digest");
  if (!payload_digest.empty() && record.Field("WARC-Type") == "response") {
    const size_t body = record.block.find("\r\n\r\n");
    const std::string_view payload =
        body == std::string::npos
            ? std::string_view()
            : std::string_view(record.block).substr(body + 4);
    if (payload_digest != Sha1Digest(payload)) {
      return absl::DataLossError(absl::StrCat(
          "WARC-Payload-Digest mismatch at offset ", record.offset));
    }
  }
  return absl::OkStatus();
}

}  // namespace sieve
