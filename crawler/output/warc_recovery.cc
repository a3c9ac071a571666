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
