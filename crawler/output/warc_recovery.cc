#include "crawler/output/warc_recovery.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "crawler/output/cdxj_index.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

// Debian's Abseil has its own string_view.
absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

absl::Status TruncateWarcFile(const std::filesystem::path& warc,
                              int64_t length) {
  std::error_code ec;
  const auto size = static_cast<int64_t>(std::filesystem::file_size(warc, ec));
  if (ec) {
    return absl::DataLossError(
        absl::StrCat("WARC ", warc.string(), ": ", ec.message()));
  }
  if (size < length) {
    return absl::DataLossError(
        absl::StrCat("WARC ", warc.string(), " has ", size,
                     " bytes, the checkpoint says ", length));
  }
  if (size > length) {
    const int fd = open(warc.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      return absl::InternalError(
          absl::StrCat("open ", warc.string(), ": ", std::strerror(errno)));
    }
    const bool ok = ftruncate(fd, length) == 0 && fsync(fd) == 0;
    const int err = errno;
    close(fd);
    if (!ok) {
      return absl::InternalError(
          absl::StrCat("truncate ", warc.string(), ": ", std::strerror(err)));
    }
  }
  return IndexWarcFile(warc, length);
}

absl::Status RecoverWarcDirectory(const std::filesystem::path& directory,
                                  const std::vector<WarcFileState>& states) {
  absl::flat_hash_set<std::string> known;
  for (const WarcFileState& s : states) {
    absl::Status status = TruncateWarcFile(directory / s.file, s.length);
    if (!status.ok()) return status;
    known.insert(s.file);
  }
  std::error_code ec;
  if (!std::filesystem::exists(directory, ec)) return absl::OkStatus();
  std::vector<std::filesystem::path> stale;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, "sieve-") && absl::EndsWith(name, ".warc.gz") &&
        !known.contains(name)) {
      stale.push_back(entry.path());
    }
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("list ", directory.string(), ": ", ec.message()));
  }
  for (const std::filesystem::path& p : stale) {
    std::filesystem::remove(p, ec);
    std::filesystem::remove(CdxjPathFor(p), ec);
  }
  return absl::OkStatus();
}

nlohmann::json WarcFileStatesToJson(const std::vector<WarcFileState>& states) {
  nlohmann::json out = nlohmann::json::array();
  for (const WarcFileState& s : states) {
    out.push_back(
        {{"file", s.file}, {"length", s.length}, {"closed", s.closed}});
  }
  return out;
}

absl::StatusOr<std::vector<WarcFileState>> WarcFileStatesFromJson(
    const nlohmann::json& json) {
  if (!json.is_array()) {
    return absl::InvalidArgumentError("WARC file states: not an array");
  }
  std::vector<WarcFileState> states;
  for (const nlohmann::json& item : json) {
    if (!item.is_object() || !item.contains("file") ||
        !item["file"].is_string() || !item.contains("length") ||
        !item["length"].is_number_integer() || !item.contains("closed") ||
        !item["closed"].is_boolean()) {
      return absl::InvalidArgumentError(
          "WARC file state: want {file: string, length: integer, closed: "
          "bool}, got " +
          item.dump());
    }
    WarcFileState s{item["file"].get<std::string>(),
                    item["length"].get<int64_t>(), item["closed"].get<bool>()};
    if (s.length < 0 || s.file.find('/') != std::string::npos ||
        !absl::EndsWith(A(s.file), ".warc.gz")) {
      return absl::InvalidArgumentError(
          "WARC file state: bad file or length: " + item.dump());
    }
    states.push_back(std::move(s));
  }
  return states;
}

int NextWarcSerial(const std::vector<WarcFileState>& states) {
  int next = 0;
  for (const WarcFileState& s : states) {
    // "sieve-<time>-NNNNN.warc.gz"
    std::string_view name = s.file;
    if (!absl::EndsWith(A(name), ".warc.gz")) continue;
    name.remove_suffix(8);
    const size_t dash = name.rfind('-');
    int serial = 0;
    if (dash != std::string_view::npos &&
        absl::SimpleAtoi(A(name.substr(dash + 1)), &serial)) {
      next = std::max(next, serial + 1);
    }
  }
  return next;
}

}  // namespace sieve
