#include "frontier/internal/snapshot.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontier/internal/record.h"

namespace sieve::internal {
namespace {

// The manifest's fields, in file order; one table serves both directions.
template <typename Manifest, typename Visit>
void ForEachField(Manifest& m, Visit visit) {
  visit("format", m.format);
  visit("pushed", m.pushed);
  visit("queued", m.queued);
  visit("dropped_as_seen", m.dropped_as_seen);
  visit("false_positives_caught", m.false_positives_caught);
  visit("store_lookups", m.store_lookups);
  visit("popped", m.popped);
  visit("spilled", m.spilled);
  visit("disk_begin", m.disk_begin);
  visit("disk_end", m.disk_end);
  visit("head_records", m.head_records);
  visit("tail_records", m.tail_records);
}

}  // namespace

std::string EncodeManifest(const SnapshotManifest& manifest) {
  std::string text = "sieve-snapshot\n";
  ForEachField(manifest, [&](std::string_view key, uint64_t value) {
    absl::StrAppend(&text, std::string(key), " ", value, "\n");
  });
  absl::StrAppend(&text, "verify_positives ", manifest.verify_positives ? 1 : 0,
                  "\n");
  absl::StrAppend(&text, "has_store ", manifest.has_store ? 1 : 0, "\n");
  absl::StrAppend(&text, "end\n");  // A truncated manifest lacks this line.
  return text;
}

absl::StatusOr<SnapshotManifest> DecodeManifest(std::string_view text) {
  absl::flat_hash_map<std::string, uint64_t> values;
  // (Debian's Abseil has its own string_view type, distinct from
  // std::string_view.)
  std::vector<absl::string_view> lines = absl::StrSplit(
      absl::string_view(text.data(), text.size()), '\n', absl::SkipEmpty());
  if (lines.size() < 2 || lines.front() != "sieve-snapshot" ||
      lines.back() != "end") {
    return absl::DataLossError(
        "snapshot MANIFEST is truncated or not a Sieve manifest");
  }
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(lines[i], ' ');
    uint64_t value = 0;
    if (!absl::SimpleAtoi(kv.second, &value)) {
      return absl::DataLossError(
          absl::StrCat("snapshot MANIFEST: bad line '", lines[i], "'"));
    }
    values[std::string(kv.first)] = value;
  }
  SnapshotManifest manifest;
  absl::Status status;
  auto read = [&](std::string_view key, uint64_t& field) {
    auto it = values.find(std::string(key));
    if (it == values.end()) {
      if (status.ok())
        status = absl::DataLossError(
            absl::StrCat("snapshot MANIFEST lacks ", std::string(key)));
      return;
    }
    field = it->second;
  };
  ForEachField(manifest, read);
  uint64_t verify = 0;
  uint64_t has_store = 0;
  read("verify_positives", verify);
  read("has_store", has_store);
  if (!status.ok()) return status;
  if (manifest.format != kSieveStateVersion) {
    return FormatVersionError("Sieve state", manifest.format,
                              kSieveStateVersion);
  }
  manifest.verify_positives = verify != 0;
  manifest.has_store = has_store != 0;
  return manifest;
}

absl::Status WriteRamQueue(SnapshotWriter& snapshot, const std::string& name,
                           const std::deque<std::string>& head,
                           const std::deque<std::string>& tail) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> file =
      snapshot.CreateFile(name);
  if (!file.ok()) return file.status();
  constexpr size_t kBuffer = size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kBuffer + 16);
  for (const std::deque<std::string>* part : {&head, &tail}) {
    for (const std::string& record : *part) {
      AppendVarint32(buffer, static_cast<uint32_t>(record.size()));
      if (buffer.size() + record.size() > kBuffer) {
        if (absl::Status s = (*file)->Append(buffer); !s.ok()) return s;
        buffer.clear();
        if (record.size() > kBuffer) {
          if (absl::Status s = (*file)->Append(record); !s.ok()) return s;
          continue;
        }
      }
      buffer.append(record);
    }
  }
  if (absl::Status s = (*file)->Append(buffer); !s.ok()) return s;
  return (*file)->Commit();
}

absl::StatusOr<RamQueue> DecodeRamQueue(std::string_view bytes,
                                        uint64_t head_records,
                                        uint64_t tail_records) {
  RamQueue queue;
  for (uint64_t i = 0; i < head_records + tail_records; ++i) {
    std::optional<uint32_t> size = ReadVarint32(bytes);
    if (!size || *size > bytes.size()) {
      return absl::DataLossError(
          absl::StrCat("snapshot ram_queue truncated at record ", i));
    }
    (i < head_records ? queue.head : queue.tail)
        .emplace_back(bytes.substr(0, *size));
    bytes.remove_prefix(*size);
  }
  if (!bytes.empty())
    return absl::DataLossError("snapshot ram_queue has trailing bytes");
  return queue;
}

}  // namespace sieve::internal
