// frontier/internal/record.h: how a queued URL and its payload are stored as
// one string, in RAM, in the on-disk queue and in checkpoint files:
// varint32(url length) | url | payload. Changing this layout changes the
// checkpoint format: bump kSnapshotFormatVersion in
// frontier/internal/snapshot.h.
#ifndef SIEVE_FRONTIER_INTERNAL_RECORD_H_
#define SIEVE_FRONTIER_INTERNAL_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sieve::internal {

inline void AppendVarint32(std::string& out, uint32_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Reads a varint32 from the front of `in` and advances it; nullopt if truncated
// or too long.
inline std::optional<uint32_t> ReadVarint32(std::string_view& in) {
  uint32_t value = 0;
  for (int shift = 0; shift <= 28 && !in.empty(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    value |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return std::nullopt;
}

inline std::string EncodeRecord(std::string_view url,
                                std::string_view payload) {
  std::string record;
  record.reserve(url.size() + payload.size() + 5);
  AppendVarint32(record, static_cast<uint32_t>(url.size()));
  record.append(url);
  record.append(payload);
  return record;
}

// Splits a record into its URL and payload (views into `record`); nullopt if
// malformed.
struct RecordView {
  std::string_view url;
  std::string_view payload;
};
inline std::optional<RecordView> DecodeRecord(std::string_view record) {
  std::optional<uint32_t> url_size = ReadVarint32(record);
  if (!url_size || *url_size > record.size()) return std::nullopt;
  return RecordView{record.substr(0, *url_size), record.substr(*url_size)};
}

// What one record costs against the memory budget: its bytes plus the
// std::string and deque slot holding it and the allocator's header (measured
// ~48 bytes on glibc x86-64).
inline size_t RecordCost(const std::string& record) {
  return record.size() + 48;
}

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_RECORD_H_
