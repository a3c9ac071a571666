#include "crawler/output/page_record.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crawler/output/json_text.h"

namespace sieve {

void AppendPageRecordJson(std::string& out, const PageRecord& r) {
  const size_t start = out.size();
  out.push_back('{');
  const auto key = [&](std::string_view name) {
    if (out.size() != start + 1) out.push_back(',');
    out.push_back('"');
    out.append(name);
    out.append("\":");
  };
  key("url");
  AppendJsonString(out, r.url);
  if (r.fetched_at != absl::InfinitePast()) {
    key("fetched_at");
    AppendJsonString(out, FormatRfc3339Ms(r.fetched_at));
  }
  key("status");
  absl::StrAppend(&out, r.status);
  key("content_type");
  AppendJsonStringOrNull(out, r.content_type);
  key("bytes");
  absl::StrAppend(&out, r.bytes);
  key("fetch_ms");
  // Two decimals, as a number ("12.5", "3", never an exponent).
  char ms[32];
  const int n = absl::SNPrintF(ms, sizeof(ms), "%.2f",
                               std::isfinite(r.fetch_ms) ? r.fetch_ms : 0.0);
  std::string_view digits(ms, n > 0 ? std::min<size_t>(n, sizeof(ms) - 1) : 0);
  while (digits.ends_with('0')) digits.remove_suffix(1);
  if (digits.ends_with('.')) digits.remove_suffix(1);
  out.append(digits);
  key("depth");
  absl::StrAppend(&out, r.depth);
  key("discovered_from");
  AppendJsonStringOrNull(out, r.discovered_from);
  key("links_found");
  absl::StrAppend(&out, r.links_found);
  key("links_new");
  absl::StrAppend(&out, r.links_new);
  key("error");
  AppendJsonStringOrNull(out, r.error);
  if (!r.error_detail.empty()) {
    key("error_detail");
    AppendJsonString(out, r.error_detail);
  }
  if (!r.redirect_to.empty()) {
    key("redirect_to");
    AppendJsonString(out, r.redirect_to);
  }
  if (r.truncated) {
    key("truncated");
    out.append("true");
  }
  if (r.sitemap) {
    key("sitemap");
    out.append("true");
  }
  if (r.requisite) {
    key("requisite");
    out.append("true");
  }
  if (r.changed.has_value()) {
    key("changed");
    out.append(*r.changed ? "true" : "false");
  }
  if (!r.warc_file.empty()) {
    key("warc_file");
    AppendJsonString(out, r.warc_file);
    key("warc_offset");
    absl::StrAppend(&out, r.warc_offset);
  }
  if (!r.ip.empty()) {
    key("ip");
    AppendJsonString(out, r.ip);
  }
  if (!r.http_version.empty()) {
    key("http_version");
    AppendJsonString(out, r.http_version);
  }
  if (!r.digest.empty()) {
    key("digest");
    AppendJsonString(out, r.digest);
  }
  out.push_back('}');
}

std::string FormatRfc3339Ms(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

std::string PageRecordToJson(const PageRecord& r) {
  std::string out;
  AppendPageRecordJson(out, r);
  return out;
}

absl::StatusOr<std::unique_ptr<PagesWriter>> PagesWriter::Open(
    const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) {
    return absl::InternalError(absl::StrCat("cannot open '", path.string(),
                                            "': ", std::strerror(errno)));
  }
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  return std::unique_ptr<PagesWriter>(
      new PagesWriter(path, file, ec ? 0 : size));
}

PagesWriter::~PagesWriter() { std::fclose(file_); }

absl::Status PagesWriter::Write(const PageRecord& record) {
  line_.clear();  // Keeps its capacity: no allocation once grown.
  AppendPageRecordJson(line_, record);
  line_.push_back('\n');
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size() ||
      std::fflush(file_) != 0) {
    return WriteError("write", errno);
  }
  offset_ += line_.size();
  ++records_;
  return absl::OkStatus();
}

absl::Status PagesWriter::WriteError(std::string_view what, int error) const {
  std::string message = absl::StrCat(std::string(what), " ", path_.string(),
                                     ": ", std::strerror(error));
  if (error == ENOSPC || error == EDQUOT || error == EFBIG) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

absl::Status PagesWriter::Sync() {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    return WriteError("sync", errno);
  }
  return absl::OkStatus();
}

absl::Status PagesWriter::TruncateTo(const std::filesystem::path& path,
                                     uint64_t offset) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (offset == 0) return absl::OkStatus();
    return absl::NotFoundError(
        absl::StrCat("'", path.string(), "' is missing"));
  }
  std::filesystem::resize_file(path, offset, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cutting '", path.string(), "': ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace sieve
