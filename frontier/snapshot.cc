#include "frontier/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "filter/durable_file.h"

namespace sieve {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "ckpt-";
constexpr absl::string_view kMagic = "sieve-snapshot";

// N of "ckpt-N" or "ckpt-N.tmp"; 0 for any other name.
uint64_t SnapshotNumber(std::string_view name) {
  if (!name.starts_with(kPrefix)) return 0;
  name.remove_prefix(kPrefix.size());
  if (name.ends_with(".tmp")) name.remove_suffix(4);
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  return (ec == std::errc() && end == name.data() + name.size()) ? n : 0;
}

std::string SnapshotName(uint64_t number) {
  return absl::StrFormat("ckpt-%06d", number);
}

absl::Status FsError(std::string_view what, const fs::path& path,
                     const std::error_code& ec) {
  return absl::InternalError(
      absl::StrCat(std::string(what), " ", path.string(), ": ", ec.message()));
}

// A name the manifest can hold: relative, no "..", no blanks or newlines.
bool ValidName(std::string_view name) {
  if (name.empty() || name.front() == '/') return false;
  for (char c : name) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) return false;
  }
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(name.data(), name.size()), '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

absl::StatusOr<uint64_t> CachedChecksum(const fs::path& path,
                                        SnapshotChecksumCache* cache) {
  if (cache == nullptr) return FileChecksum64(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FileError("stat", path, errno);
  const SnapshotChecksumCache::Key key{
      static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
      static_cast<uint64_t>(st.st_size),
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
          st.st_mtim.tv_nsec};
  auto it = cache->entries().find(key);
  if (it != cache->entries().end()) {
    it->second.second = true;
    return it->second.first;
  }
  absl::StatusOr<uint64_t> sum = FileChecksum64(path);
  if (sum.ok()) cache->entries()[key] = {*sum, true};
  return sum;
}

absl::Status Corrupt(const fs::path& path, absl::string_view problem) {
  return absl::DataLossError(
      absl::StrCat("checkpoint file ", path.string(), ": ", problem));
}

}  // namespace

void SnapshotChecksumCache::Trim() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (!it->second.second) {
      it = entries_.erase(it);
    } else {
      it->second.second = false;
      ++it;
    }
  }
}

absl::StatusOr<SnapshotWriter> SnapshotWriter::Begin(
    const fs::path& dir, SnapshotChecksumCache* cache) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return FsError("create", dir, ec);
  uint64_t last = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    last = std::max(last, SnapshotNumber(e.path().filename().string()));
  }
  if (ec) return FsError("list", dir, ec);
  SnapshotWriter w;
  w.dir_ = dir;
  w.number_ = last + 1;
  w.name_ = SnapshotName(w.number_);
  w.staging_ = dir / (w.name_ + ".tmp");
  w.cache_ = cache;
  fs::remove_all(w.staging_, ec);
  if (!fs::create_directory(w.staging_, ec) || ec) {
    return FsError("create", w.staging_, ec);
  }
  return w;
}

SnapshotWriter::~SnapshotWriter() {
  if (!done_ && !staging_.empty()) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
  }
}

absl::StatusOr<fs::path> SnapshotWriter::ReserveFile(std::string_view name) {
  if (!ValidName(name) || name == "MANIFEST" ||
      std::find(names_.begin(), names_.end(), name) != names_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad or repeated snapshot file name '", std::string(name), "'"));
  }
  const fs::path path = staging_ / std::string(name);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return FsError("create", path.parent_path(), ec);
  names_.emplace_back(name);
  return path;
}

absl::Status SnapshotWriter::AddFile(std::string_view name,
                                     std::string_view bytes) {
  absl::StatusOr<fs::path> path = ReserveFile(name);
  if (!path.ok()) return path.status();
  return WriteFileAndSync(*path, bytes);
}

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> SnapshotWriter::CreateFile(
    std::string_view name) {
  absl::StatusOr<fs::path> path = ReserveFile(name);
  if (!path.ok()) return path.status();
  return AtomicFileWriter::Open(*path);
}

absl::StatusOr<fs::path> SnapshotWriter::AddDirectory(std::string_view name) {
  if (!ValidName(name) || std::find(directories_.begin(), directories_.end(),
                                    name) != directories_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad or repeated snapshot directory name '", std::string(name), "'"));
  }
  const fs::path path = staging_ / std::string(name);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return FsError("create", path.parent_path(), ec);
  directories_.emplace_back(name);
  return path;
}

absl::Status SnapshotWriter::Commit() {
  if (done_) return absl::FailedPreconditionError("snapshot already committed");
  std::string manifest =
      absl::StrCat(kMagic, " ", kSnapshotFormatVersion, "\n");
  // Every regular file under the staging directory, in name order.
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(staging_, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      files.push_back(fs::relative(it->path(), staging_, ec).generic_string());
    }
  }
  if (ec) return FsError("list", staging_, ec);
  std::sort(files.begin(), files.end());
  for (const std::string& d : directories_) {
    absl::StrAppend(&manifest, "dir ", d, "\n");
  }
  for (const std::string& name : files) {
    if (!ValidName(name)) {
      return absl::InternalError(
          absl::StrCat("snapshot file with an unlistable name: ", name));
    }
    const fs::path path = staging_ / name;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) return FsError("stat", path, ec);
    absl::StatusOr<uint64_t> sum = CachedChecksum(path, cache_);
    if (!sum.ok()) return sum.status();
    absl::StrAppend(&manifest, "file ", size, " ",
                    absl::Hex(*sum, absl::kZeroPad16), " ", name, "\n");
  }
  absl::StrAppend(&manifest, "checksum ",
                  absl::Hex(Checksum64(manifest), absl::kZeroPad16), "\n");
  if (cache_ != nullptr) cache_->Trim();
  if (absl::Status s = WriteFileAndSync(staging_ / "MANIFEST", manifest);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = SyncTree(staging_); !s.ok()) return s;
  const fs::path final_dir = dir_ / name_;
  fs::remove_all(final_dir, ec);
  fs::rename(staging_, final_dir, ec);
  if (ec) return FsError("rename", staging_, ec);
  done_ = true;
  if (absl::Status s = SyncDirectory(dir_); !s.ok()) return s;
  if (absl::Status s = WriteFileAtomically(dir_ / "CURRENT", name_ + "\n");
      !s.ok()) {
    return s;
  }
  // Older snapshots are garbage now; failing to remove one costs disk only.
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::string other = e.path().filename().string();
    if (other != name_ && SnapshotNumber(other) != 0) {
      std::error_code ignored;
      fs::remove_all(e.path(), ignored);
    }
  }
  return absl::OkStatus();
}

absl::Status FormatVersionError(std::string_view what, uint64_t found,
                                uint64_t reads) {
  return absl::FailedPreconditionError(
      found < reads
          ? absl::StrCat(std::string(what), ": format ", found,
                         " is too old (this build reads ", reads, ")")
          : absl::StrCat(std::string(what), ": format ", found,
                         " is newer than this build (it reads ", reads, ")"));
}

absl::StatusOr<std::vector<ManifestEntry>> ParseSnapshotManifest(
    std::string_view bytes, const fs::path& source) {
  // The last line is the checksum of everything before it.
  const size_t last = bytes.rfind("checksum ");
  if (bytes.empty() || bytes.back() != '\n' || last == std::string::npos) {
    return Corrupt(source, "truncated (no checksum line)");
  }
  const std::string_view body = bytes.substr(0, last);
  uint64_t want = 0;
  if (!absl::SimpleHexAtoi(
          absl::StripAsciiWhitespace(
              absl::string_view(bytes.data(), bytes.size()).substr(last + 9)),
          &want) ||
      want != Checksum64(body)) {
    return Corrupt(source, "checksum mismatch");
  }
  std::vector<absl::string_view> lines = absl::StrSplit(
      absl::string_view(body.data(), body.size()), '\n', absl::SkipEmpty());
  if (lines.empty() || !absl::StartsWith(lines[0], kMagic)) {
    return Corrupt(source, "not a Sieve snapshot manifest");
  }
  uint32_t version = 0;
  if (!absl::SimpleAtoi(lines[0].substr(kMagic.size()), &version)) {
    return Corrupt(source, "bad version line");
  }
  if (version != kSnapshotFormatVersion) {
    return FormatVersionError(source.string(), version, kSnapshotFormatVersion);
  }
  std::vector<ManifestEntry> entries;
  entries.reserve(lines.size() - 1);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<absl::string_view> f = absl::StrSplit(lines[i], ' ');
    ManifestEntry entry;
    if (f.size() == 2 && f[0] == "dir" &&
        ValidName(std::string_view(f[1].data(), f[1].size()))) {
      entry.name = std::string(f[1]);
      entry.directory = true;
    } else if (f.size() != 4 || f[0] != "file" ||
               !absl::SimpleAtoi(f[1], &entry.size) ||
               !absl::SimpleHexAtoi(f[2], &entry.checksum) ||
               !ValidName(std::string_view(f[3].data(), f[3].size()))) {
      return Corrupt(source, absl::StrCat("bad line ", i + 1));
    } else {
      entry.name = std::string(f[3]);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

absl::StatusOr<SnapshotReader> SnapshotReader::Open(const fs::path& dir) {
  const fs::path current_path = dir / "CURRENT";
  absl::StatusOr<std::string> current = ReadWholeFile(current_path);
  if (!current.ok()) {
    if (absl::IsNotFound(current.status())) {
      return absl::NotFoundError(
          absl::StrCat("no checkpoint in ", dir.string()));
    }
    return current.status();
  }
  const std::string name(absl::StripAsciiWhitespace(*current));
  SnapshotReader reader;
  reader.number_ = SnapshotNumber(name);
  if (reader.number_ == 0 || name.ends_with(".tmp")) {
    return Corrupt(current_path,
                   absl::StrCat("names no snapshot: '", name, "'"));
  }
  reader.root_ = dir / name;
  const fs::path manifest_path = reader.root_ / "MANIFEST";
  absl::StatusOr<std::string> manifest = ReadWholeFile(manifest_path);
  if (!manifest.ok()) {
    return Corrupt(manifest_path, manifest.status().message());
  }
  absl::StatusOr<std::vector<ManifestEntry>> entries =
      ParseSnapshotManifest(*manifest, manifest_path);
  if (!entries.ok()) return entries.status();
  for (const ManifestEntry& entry : *entries) {
    if (entry.directory) {
      reader.files_.emplace(entry.name + "/", 0);
      continue;
    }
    const fs::path path = reader.root_ / entry.name;
    std::error_code ec;
    const uint64_t actual = fs::file_size(path, ec);
    if (ec) return Corrupt(path, "missing");
    if (actual != entry.size) {
      return Corrupt(path, absl::StrCat("truncated or extended: ", actual,
                                        " bytes, expected ", entry.size));
    }
    absl::StatusOr<uint64_t> got = FileChecksum64(path);
    if (!got.ok()) return Corrupt(path, got.status().message());
    if (*got != entry.checksum) {
      return Corrupt(path, "checksum mismatch (altered)");
    }
    reader.files_.emplace(entry.name, entry.size);
  }
  return reader;
}

bool SnapshotReader::Contains(std::string_view name) const {
  return files_.find(name) != files_.end() ||
         files_.find(std::string(name) + "/") != files_.end();
}

absl::StatusOr<std::string> SnapshotReader::ReadFile(
    std::string_view name) const {
  if (files_.find(name) == files_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "checkpoint ", root_.string(), " has no file ", std::string(name)));
  }
  return ReadWholeFile(root_ / std::string(name));
}

fs::path SnapshotReader::PathOf(std::string_view name) const {
  return root_ / std::string(name);
}

}  // namespace sieve
