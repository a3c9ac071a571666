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

namespace {

// Appends the members of one JSON object to `out`, a comma between each two.
class JsonMembers {
 public:
  explicit JsonMembers(std::string& out) : out_(out), start_(out.size()) {
    out_.push_back('{');
  }
  void Close() { out_.push_back('}'); }

  // `"name":`, after a comma unless it is the first member.
  std::string& Key(std::string_view name) {
    if (out_.size() != start_ + 1) out_.push_back(',');
    out_.push_back('"');
    out_.append(name);
    out_.append("\":");
    return out_;
  }
  void String(std::string_view name, std::string_view value) {
    AppendJsonString(Key(name), value);
  }
  void StringOrNull(std::string_view name, std::string_view value) {
    AppendJsonStringOrNull(Key(name), value);
  }
  // Left out when empty.
  void StringIfAny(std::string_view name, std::string_view value) {
    if (!value.empty()) String(name, value);
  }
  template <typename Int>
  void Number(std::string_view name, Int value) {
    absl::StrAppend(&Key(name), value);
  }
  // Left out when false.
  void TrueIf(std::string_view name, bool value) {
    if (value) Key(name).append("true");
  }

 private:
  std::string& out_;
  const size_t start_;
};

// Two decimals, as a number ("12.5", "3", never an exponent).
void AppendMilliseconds(std::string& out, double value) {
  char ms[32];
  const int n = absl::SNPrintF(ms, sizeof(ms), "%.2f",
                               std::isfinite(value) ? value : 0.0);
  std::string_view digits(ms, n > 0 ? std::min<size_t>(n, sizeof(ms) - 1) : 0);
  while (digits.ends_with('0')) digits.remove_suffix(1);
  if (digits.ends_with('.')) digits.remove_suffix(1);
  out.append(digits);
}

// What every record has: the fetch and where the URL came from.
void AppendFetchMembers(JsonMembers& json, const PageRecord& r) {
  json.String("url", r.url);
  if (r.fetched_at != absl::InfinitePast()) {
    json.String("fetched_at", FormatRfc3339Ms(r.fetched_at));
  }
  json.Number("status", r.status);
  json.StringOrNull("content_type", r.content_type);
  json.Number("bytes", r.bytes);
  AppendMilliseconds(json.Key("fetch_ms"), r.fetch_ms);
  json.Number("depth", r.depth);
  json.StringOrNull("discovered_from", r.discovered_from);
  json.Number("links_found", r.links_found);
  json.Number("links_new", r.links_new);
  json.StringOrNull("error", r.error);
}

// What only some records have, left out when unset.
void AppendOptionalMembers(JsonMembers& json, const PageRecord& r) {
  json.StringIfAny("error_detail", r.error_detail);
  json.StringIfAny("redirect_to", r.redirect_to);
  json.TrueIf("truncated", r.truncated);
  json.TrueIf("sitemap", r.sitemap);
  json.TrueIf("requisite", r.requisite);
  if (r.rendered) {
    json.TrueIf("rendered", true);
    json.Number("links_rendered", r.links_rendered);
    AppendMilliseconds(json.Key("render_ms"), r.render_ms);
  }
  json.StringIfAny("render_error", r.render_error);
  if (r.changed.has_value()) {
    json.Key("changed").append(*r.changed ? "true" : "false");
  }
  if (!r.warc_file.empty()) {
    json.String("warc_file", r.warc_file);
    json.Number("warc_offset", r.warc_offset);
  }
  json.StringIfAny("ip", r.ip);
  json.StringIfAny("http_version", r.http_version);
  json.StringIfAny("digest", r.digest);
}

}  // namespace

void AppendPageRecordJson(std::string& out, const PageRecord& r) {
  JsonMembers json(out);
  AppendFetchMembers(json, r);
  AppendOptionalMembers(json, r);
  json.Close();
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
