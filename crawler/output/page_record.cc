#include "crawler/output/page_record.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

nlohmann::json NullIfEmpty(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

std::string PageRecordToJson(const PageRecord& r) {
  nlohmann::ordered_json j;
  j["url"] = r.url;
  j["final_url"] = r.final_url;
  j["status"] = r.status;
  j["content_type"] = NullIfEmpty(r.content_type);
  j["bytes"] = r.bytes;
  j["fetch_ms"] = std::round(r.fetch_ms * 100) / 100;
  j["depth"] = r.depth;
  j["discovered_from"] = NullIfEmpty(r.discovered_from);
  j["links_found"] = r.links_found;
  j["links_new"] = r.links_new;
  j["error"] = NullIfEmpty(r.error);
  if (!r.error_detail.empty()) j["error_detail"] = r.error_detail;
  if (!r.redirect_to.empty()) j["redirect_to"] = r.redirect_to;
  if (r.truncated) j["truncated"] = true;
  if (r.sitemap) j["sitemap"] = true;
  if (!r.warc_file.empty()) {
    j["warc_file"] = r.warc_file;
    j["warc_offset"] = r.warc_offset;
  }
  // Invalid UTF-8 (a URL from a mis-declared page) is replaced, never an
  // exception.
  return j.dump(-1, ' ', false,
                nlohmann::ordered_json::error_handler_t::replace);
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
  std::string line = PageRecordToJson(record);
  line.push_back('\n');
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
      std::fflush(file_) != 0) {
    return WriteError("write", errno);
  }
  offset_ += line.size();
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
