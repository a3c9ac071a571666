#include "crawler/output/skipped_log.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "crawler/output/json_text.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

// The filter's first stage; later stages double (scalable_bloom_filter.h).
constexpr uint64_t kInitialPairs = uint64_t{1} << 16;

// The filter's key of a pair: the reason's name, a NUL, the URL.
void KeyOf(SkipReason reason, std::string_view url, std::string& key) {
  key.assign(SkipReasonName(reason));
  key.push_back('\0');
  key.append(url);
}

}  // namespace

SkippedLog::SkippedLog(std::filesystem::path path, std::FILE* file,
                       uint64_t offset)
    : path_(std::move(path)),
      file_(file),
      offset_(offset),
      written_(ScalableBloomFilter::ForCapacity(kInitialPairs,
                                                kFalsePositiveRate)) {}

SkippedLog::~SkippedLog() { std::fclose(file_); }

absl::StatusOr<std::unique_ptr<SkippedLog>> SkippedLog::Open(
    const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) {
    return absl::InternalError(absl::StrCat("cannot open '", path.string(),
                                            "': ", std::strerror(errno)));
  }
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  std::unique_ptr<SkippedLog> log(new SkippedLog(path, file, ec ? 0 : size));
  if (log->offset_ > 0) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || !j.contains("url") || !j["url"].is_string() ||
          !j.contains("reason") || !j["reason"].is_string()) {
        continue;
      }
      if (std::optional<SkipReason> reason =
              ParseSkipReason(j["reason"].get<std::string>())) {
        KeyOf(*reason, j["url"].get<std::string>(), log->key_);
        log->written_.Add(log->key_);
      }
    }
  }
  return log;
}

absl::StatusOr<bool> SkippedLog::Add(std::string_view url,
                                     std::string_view found_on,
                                     SkipReason reason) {
  KeyOf(reason, url, key_);
  if (!written_.Add(key_)) return false;
  line_.assign("{\"url\":");
  AppendJsonString(line_, url);
  line_.append(",\"found_on\":");
  AppendJsonStringOrNull(line_, found_on);
  line_.append(",\"reason\":\"");
  line_.append(SkipReasonName(reason));
  line_.append("\"}\n");
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size() ||
      std::fflush(file_) != 0) {
    return WriteError("write", errno);
  }
  offset_ += line_.size();
  return true;
}

absl::Status SkippedLog::WriteError(std::string_view what, int error) const {
  std::string message = absl::StrCat(std::string(what), " ", path_.string(),
                                     ": ", std::strerror(error));
  if (error == ENOSPC || error == EDQUOT || error == EFBIG) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

absl::Status SkippedLog::Sync() {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    return WriteError("sync", errno);
  }
  return absl::OkStatus();
}

}  // namespace sieve
