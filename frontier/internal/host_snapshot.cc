#include "frontier/internal/host_snapshot.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "filter/key_hash.h"  // Fingerprint64: the file's XXH3-64 checksum.
#include "frontier/snapshot.h"

namespace sieve {
namespace {

constexpr std::string_view kMagic = "SIEVEFRS";

void PutFixed(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}
void PutU32(std::string& out, uint32_t v) { PutFixed(out, v, 4); }
void PutU64(std::string& out, uint64_t v) { PutFixed(out, v, 8); }
void PutStr(std::string& out, std::string_view s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}

// Reads from the front of a view; every getter returns nullopt once the input
// is short.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::optional<uint64_t> Fixed(int bytes) {
    if (in_.size() < static_cast<size_t>(bytes)) return std::nullopt;
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      v |= uint64_t{static_cast<uint8_t>(in_[i])} << (8 * i);
    }
    in_.remove_prefix(bytes);
    return v;
  }
  std::optional<std::string> Str() {
    std::optional<uint64_t> n = Fixed(4);
    if (!n || in_.size() < *n) return std::nullopt;
    std::string s(in_.substr(0, *n));
    in_.remove_prefix(*n);
    return s;
  }
  size_t remaining() const { return in_.size(); }

 private:
  std::string_view in_;
};

absl::Status Truncated() {
  return absl::DataLossError("frontier snapshot: truncated");
}

}  // namespace

std::string EncodeHostSnapshot(const HostSnapshot& snapshot) {
  std::string out(kMagic);
  PutU32(out, kHostSnapshotVersion);
  PutU64(out, snapshot.next_seq);
  PutU32(out, static_cast<uint32_t>(snapshot.counters.size()));
  for (uint64_t c : snapshot.counters) PutU64(out, c);
  PutU64(out, snapshot.hosts.size());
  for (const HostSnapshot::Host& host : snapshot.hosts) {
    PutStr(out, host.name);
    PutU64(out,
           static_cast<uint64_t>(absl::ToInt64Nanoseconds(host.crawl_delay)));
    PutFixed(out, (host.dropped ? 1 : 0) | (host.renders_without_links << 1),
             1);
    PutU64(out, host.urls.size());
    PutU64(out, host.id);
    PutU64(out, host.urls_dispatched);
    PutU64(out, host.overflow_count);
    for (const QueuedUrl& url : host.urls) {
      PutStr(out, url.url);
      PutStr(out, url.metadata);
      PutU32(out, url.depth);
      PutU32(out, url.throttle_retries);
      PutU32(out, url.error_retries);
      PutFixed(out, url.counted ? 1 : 0, 1);
      PutU64(out, url.seq);
    }
  }
  PutU64(out, Fingerprint64(out));
  return out;
}

absl::StatusOr<HostSnapshot> DecodeHostSnapshot(std::string_view bytes) {
  if (bytes.size() < kMagic.size() + 8) return Truncated();
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return absl::DataLossError("frontier snapshot: bad magic");
  }
  const std::string_view body = bytes.substr(0, bytes.size() - 8);
  Reader tail(bytes.substr(bytes.size() - 8));
  if (*tail.Fixed(8) != Fingerprint64(body)) {
    return absl::DataLossError("frontier snapshot: checksum mismatch");
  }
  Reader in(body.substr(kMagic.size()));
  std::optional<uint64_t> version = in.Fixed(4);
  if (!version) return Truncated();
  if (*version != kHostSnapshotVersion) {
    return FormatVersionError("frontier snapshot", *version,
                              kHostSnapshotVersion);
  }
  HostSnapshot snapshot;
  std::optional<uint64_t> next_seq = in.Fixed(8);
  std::optional<uint64_t> n_counters = in.Fixed(4);
  if (!next_seq || !n_counters) return Truncated();
  snapshot.next_seq = *next_seq;
  for (uint64_t i = 0; i < *n_counters; ++i) {
    std::optional<uint64_t> c = in.Fixed(8);
    if (!c) return Truncated();
    snapshot.counters.push_back(*c);
  }
  std::optional<uint64_t> n_hosts = in.Fixed(8);
  if (!n_hosts) return Truncated();
  for (uint64_t h = 0; h < *n_hosts; ++h) {
    HostSnapshot::Host host;
    std::optional<std::string> name = in.Str();
    std::optional<uint64_t> delay = in.Fixed(8);
    std::optional<uint64_t> dropped = in.Fixed(1);
    std::optional<uint64_t> n_urls = in.Fixed(8);
    if (!name || !delay || !dropped || !n_urls) return Truncated();
    host.name = std::move(*name);
    host.crawl_delay = absl::Nanoseconds(static_cast<int64_t>(*delay));
    host.dropped = (*dropped & 1) != 0;
    host.renders_without_links = static_cast<uint8_t>(*dropped >> 1);
    std::optional<uint64_t> id = in.Fixed(8);
    std::optional<uint64_t> dispatched = in.Fixed(8);
    std::optional<uint64_t> overflow = in.Fixed(8);
    if (!id || !dispatched || !overflow) return Truncated();
    host.id = *id;
    host.urls_dispatched = *dispatched;
    host.overflow_count = *overflow;
    for (uint64_t u = 0; u < *n_urls; ++u) {
      std::optional<std::string> url = in.Str();
      std::optional<std::string> metadata = in.Str();
      std::optional<uint64_t> depth = in.Fixed(4);
      std::optional<uint64_t> retries = in.Fixed(4);
      std::optional<uint64_t> error_retries = in.Fixed(4);
      std::optional<uint64_t> counted = in.Fixed(1);
      std::optional<uint64_t> seq = in.Fixed(8);
      if (!url || !metadata || !depth || !retries || !error_retries ||
          !counted || !seq) {
        return Truncated();
      }
      host.urls.push_back(
          QueuedUrl{.url = std::move(*url),
                    .metadata = std::move(*metadata),
                    .depth = static_cast<uint32_t>(*depth),
                    .throttle_retries = static_cast<uint32_t>(*retries),
                    .error_retries = static_cast<uint32_t>(*error_retries),
                    .counted = *counted != 0,
                    .seq = *seq});
    }
    snapshot.hosts.push_back(std::move(host));
  }
  if (in.remaining() != 0) {
    return absl::DataLossError("frontier snapshot: trailing bytes");
  }
  return snapshot;
}

}  // namespace sieve
