#include "crawler/policy/url_history.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

// Format 1 had no date fields (dated_changes, change_free,
// dates_unreliable); it still decodes, with their defaults.
constexpr char kFormat = 2;
constexpr char kFormatWithoutDates = 1;
// No field of a real record comes near this; a larger length is damage.
constexpr uint32_t kMaxField = 1 << 20;

// Fixed-width little-endian unsigned integers (uint32_t, uint64_t).
template <typename U>
void PutLe(std::string& out, U v) {
  for (size_t i = 0; i < sizeof(U); ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}

template <typename U>
std::optional<U> GetLe(std::string_view& in) {
  if (in.size() < sizeof(U)) return std::nullopt;
  U v = 0;
  for (size_t i = 0; i < sizeof(U); ++i)
    v |= static_cast<U>(static_cast<uint8_t>(in[i])) << (8 * i);
  in.remove_prefix(sizeof(U));
  return v;
}

void PutU32(std::string& out, uint32_t v) { PutLe(out, v); }
std::optional<uint32_t> GetU32(std::string_view& in) {
  return GetLe<uint32_t>(in);
}
void PutInt64(std::string& out, int64_t v) {
  PutLe(out, static_cast<uint64_t>(v));
}
std::optional<int64_t> GetInt64(std::string_view& in) {
  std::optional<uint64_t> u = GetLe<uint64_t>(in);
  if (!u) return std::nullopt;
  return static_cast<int64_t>(*u);
}

void PutString(std::string& out, std::string_view s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}

std::optional<std::string> GetString(std::string_view& in) {
  std::optional<uint32_t> size = GetU32(in);
  if (!size || *size > kMaxField || *size > in.size()) return std::nullopt;
  std::string out(in.substr(0, *size));
  in.remove_prefix(*size);
  return out;
}

// Microseconds since the Unix epoch; InfinitePast as INT64_MIN.
void PutTime(std::string& out, absl::Time t) {
  PutInt64(out, t == absl::InfinitePast() ? INT64_MIN : absl::ToUnixMicros(t));
}

std::optional<absl::Time> GetTime(std::string_view& in) {
  std::optional<int64_t> v = GetInt64(in);
  if (!v) return std::nullopt;
  if (*v == INT64_MIN) return absl::InfinitePast();
  return absl::FromUnixMicros(*v);
}

absl::Status Damaged(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("url history: ", what));
}

}  // namespace

bool operator==(const UrlHistory& a, const UrlHistory& b) {
  return EncodeUrlHistory(a) == EncodeUrlHistory(b);
}

std::string EncodeUrlHistory(const UrlHistory& h) {
  std::string out;
  out.push_back(kFormat);
  PutString(out, h.etag);
  PutString(out, h.last_modified);
  PutString(out, h.digest);
  PutTime(out, h.first_fetch);
  PutTime(out, h.last_fetch);
  PutTime(out, h.last_change);
  PutInt64(out, absl::ToInt64Microseconds(h.interval));
  PutTime(out, h.next_due);
  PutU32(out, h.fetches);
  PutU32(out, h.changes);
  PutString(out, h.host);
  PutU32(out, h.depth);
  PutString(out, h.metadata);
  PutString(out, h.warc_record_id);
  PutTime(out, h.warc_date);
  PutU32(out, h.dated_changes);
  PutInt64(out, absl::ToInt64Microseconds(h.change_free));
  out.push_back(h.dates_unreliable ? 1 : 0);
  return out;
}

absl::StatusOr<UrlHistory> DecodeUrlHistory(std::string_view in) {
  if (in.empty() ||
      (in.front() != kFormat && in.front() != kFormatWithoutDates))
    return Damaged("unknown format");
  const bool dated = in.front() == kFormat;
  in.remove_prefix(1);
  UrlHistory h;
  std::optional<std::string> etag = GetString(in);
  std::optional<std::string> last_modified = GetString(in);
  std::optional<std::string> digest = GetString(in);
  std::optional<absl::Time> first = GetTime(in);
  std::optional<absl::Time> last = GetTime(in);
  std::optional<absl::Time> change = GetTime(in);
  std::optional<int64_t> interval = GetInt64(in);
  std::optional<absl::Time> due = GetTime(in);
  std::optional<uint32_t> fetches = GetU32(in);
  std::optional<uint32_t> changes = GetU32(in);
  std::optional<std::string> host = GetString(in);
  std::optional<uint32_t> depth = GetU32(in);
  std::optional<std::string> metadata = GetString(in);
  std::optional<std::string> record_id = GetString(in);
  std::optional<absl::Time> warc_date = GetTime(in);
  if (!warc_date || !record_id || !metadata || !depth || !host || !changes ||
      !fetches || !due || !interval || !change || !last || !first || !digest ||
      !last_modified || !etag) {
    return Damaged("truncated record");
  }
  if (dated) {
    std::optional<uint32_t> dated_changes = GetU32(in);
    std::optional<int64_t> change_free = GetInt64(in);
    if (!dated_changes || !change_free || in.empty())
      return Damaged("truncated record");
    if (*change_free < 0 || static_cast<uint8_t>(in.front()) > 1)
      return Damaged("bad date fields");
    h.dated_changes = *dated_changes;
    h.change_free = absl::Microseconds(*change_free);
    h.dates_unreliable = in.front() == 1;
    in.remove_prefix(1);
  }
  if (!in.empty()) return Damaged("trailing bytes");
  if (*interval < 0 || *changes > *fetches) return Damaged("bad counts");
  h.etag = *std::move(etag);
  h.last_modified = *std::move(last_modified);
  h.digest = *std::move(digest);
  h.first_fetch = *first;
  h.last_fetch = *last;
  h.last_change = *change;
  h.interval = absl::Microseconds(*interval);
  h.next_due = *due;
  h.fetches = *fetches;
  h.changes = *changes;
  h.host = *std::move(host);
  h.depth = *depth;
  h.metadata = *std::move(metadata);
  h.warc_record_id = *std::move(record_id);
  h.warc_date = *warc_date;
  return h;
}

}  // namespace sieve
