#include "study/url_stream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "absl/numeric/int128.h"

namespace sieve::study {
namespace {

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer, so
// distinct inputs give distinct, well-spread outputs. Fixed constants: the
// stream is the same on every machine.
uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Uniform double in [0, 1) from the top 53 bits.
double Unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

// A bijection on [0, 2^40): odd multipliers and xor-shifts are each invertible
// modulo 2^40. It turns the fresh index into a page name that looks random yet
// never repeats.
constexpr uint64_t kIndexBits = 40;
constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
uint64_t Permute40(uint64_t x, uint64_t key) {
  x = (x ^ key) & kIndexMask;
  x = (x * 0x5DEECE66DULL) & kIndexMask;
  x ^= x >> 19;
  x = (x * 0x2545F4914F6CDD1DULL) & kIndexMask;
  x ^= x >> 23;
  x = (x * 0x9E3779B97F4A7C15ULL) & kIndexMask;
  return x ^ (x >> 17);
}
// Stream URLs use indices below 2^39, probe URLs the upper half of the 40-bit
// range.
constexpr uint64_t kProbeBase = uint64_t{1} << 39;

constexpr std::string_view kDigits = "0123456789abcdefghijklmnopqrstuvwxyz";

// Appends `value` in base 36 using exactly `width` digits (36^8 > 2^40).
void AppendBase36(uint64_t value, int width, std::string* out) {
  char buffer[16];
  for (int i = width - 1; i >= 0; --i) {
    buffer[i] = kDigits[value % 36];
    value /= 36;
  }
  out->append(buffer, static_cast<size_t>(width));
}

void AppendDecimal(uint64_t value, std::string* out) {
  char buffer[24];
  int length = 0;
  do {
    buffer[length++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (length > 0) out->push_back(buffer[--length]);
}

constexpr std::array<std::string_view, 64> kWords = {
    "news",   "blog",    "shop",     "docs",   "wiki",    "forum",  "about",
    "help",   "product", "category", "tag",    "article", "media",  "images",
    "video",  "archive", "2019",     "2020",   "2021",    "2022",   "2023",
    "2024",   "en",      "de",       "fr",     "es",      "user",   "profile",
    "search", "sports",  "world",    "tech",   "science", "health", "travel",
    "food",   "music",   "games",    "books",  "events",  "river",  "stone",
    "cloud",  "green",   "north",    "market", "city",    "open",   "data",
    "api",    "v2",      "static",   "assets", "support", "legal",  "careers",
    "press",  "team",    "store",    "local",  "daily",   "review", "guide",
    "page"};
constexpr std::array<std::string_view, 16> kTlds = {
    ".com", ".org", ".net", ".de",  ".co.uk", ".fr", ".io", ".info",
    ".com", ".com", ".com", ".org", ".jp",    ".nl", ".ru", ".edu"};
constexpr std::array<std::string_view, 8> kSubdomains = {
    "www.", "www.", "www.", "", "blog.", "shop.", "en.", "m."};
// Directory depth: mostly 1-3, sometimes 0 or up to 7.
constexpr std::array<uint8_t, 32> kDepth = {0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2,
                                            2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3,
                                            3, 3, 4, 4, 4, 4, 5, 5, 6, 7};

}  // namespace

void UrlBatch::Clear() {
  arena_.clear();
  ends_.clear();
  fresh_.clear();
  views_.clear();
}

void UrlBatch::Seal() {
  views_.clear();
  views_.reserve(ends_.size());
  size_t begin = 0;
  for (size_t end : ends_) {
    views_.emplace_back(arena_.data() + begin, end - begin);
    begin = end;
  }
}

UrlStream::UrlStream(const UrlStreamOptions& options) : options_(options) {}

void UrlStream::AppendFreshUrl(uint64_t index, std::string* out) const {
  const uint64_t seed = options_.seed;
  const uint64_t r1 = Mix64(index ^ Mix64(seed));
  const uint64_t r2 = Mix64(r1 ^ 0xA5A5A5A5A5A5A5A5ULL);

  // Host rank by inverting the continuous Zipf CDF over [1, H + 1): F(x) =
  // (x^(1-s) - 1) /
  // ((H+1)^(1-s) - 1), and F(x) = ln x / ln(H+1) when s = 1.
  const double u = Unit(r1);
  const double h = static_cast<double>(options_.host_count) + 1.0;
  const double s = options_.zipf_exponent;
  const double x = (s == 1.0) ? std::exp(u * std::log(h))
                              : std::pow(u * (std::pow(h, 1.0 - s) - 1.0) + 1.0,
                                         1.0 / (1.0 - s));
  uint64_t rank = static_cast<uint64_t>(x);
  if (rank < 1) rank = 1;
  if (rank > options_.host_count) rank = options_.host_count;

  const uint64_t host_bits = Mix64(rank ^ Mix64(seed + 1));
  out->append((r2 & 7) == 0 ? "http://" : "https://");
  out->append(kSubdomains[host_bits & 7]);
  out->append(kWords[(host_bits >> 3) & 63]);
  AppendDecimal(rank, out);
  out->append(kTlds[(host_bits >> 9) & 15]);

  // Directories from a small per-host vocabulary (4 choices per level), so a
  // host's URLs share prefixes the way a site's do.
  const int depth = kDepth[(r2 >> 3) & 31];
  for (int level = 0; level < depth; ++level) {
    const uint64_t choice = (r2 >> (8 + 2 * level)) & 3;
    out->push_back('/');
    out->append(
        kWords[Mix64(host_bits + static_cast<uint64_t>(level) * 4 + choice) &
               63]);
  }

  // The unique page name.
  const uint64_t token = Permute40(index, seed);
  out->push_back('/');
  switch ((r2 >> 24) & 3) {
    case 0:
    case 1:
      AppendBase36(token, 8, out);
      out->append(".html");
      break;
    case 2:
      out->append("item-");
      AppendBase36(token, 8, out);
      break;
    default:
      AppendBase36(token, 8, out);
      out->push_back('/');
      break;
  }

  switch ((r2 >> 26) & 7) {
    case 0:
    case 1:
      out->append("?id=");
      AppendDecimal((r2 >> 32) % 100000, out);
      out->append("&ref=");
      out->append(kWords[(r2 >> 52) & 63]);
      break;
    case 2:
      out->append("?page=");
      AppendDecimal(1 + (r2 >> 32) % 50, out);
      out->append("&sort=");
      out->append(kWords[(r2 >> 52) & 63]);
      break;
    default:
      break;
  }
}

void UrlStream::AppendProbeUrl(uint64_t index, std::string* out) const {
  AppendFreshUrl(kProbeBase + index, out);
}

bool UrlStream::Step(uint64_t* index) {
  const uint64_t decision = Mix64(position_ ^ Mix64(options_.seed + 2));
  ++position_;
  if (fresh_count_ > 0 && Unit(decision) < options_.repeat_share) {
    // A uniform earlier fresh index by multiply-shift (Lemire): high 64 bits of
    // r * count.
    if (options_.repeat_window == 0) {
      *index =
          absl::Uint128High64(absl::uint128(Mix64(decision)) * fresh_count_);
    } else {  // one of the last repeat_window fresh indices
      const uint64_t window = std::min(options_.repeat_window, fresh_count_);
      *index = fresh_count_ - 1 -
               absl::Uint128High64(absl::uint128(Mix64(decision)) * window);
    }
    return false;
  }
  *index = fresh_count_++;
  return true;
}

bool UrlStream::Next(std::string* url) {
  uint64_t index = 0;
  return Next(url, &index);
}

bool UrlStream::Next(std::string* url, uint64_t* index) {
  url->clear();
  const bool fresh = Step(index);
  AppendFreshUrl(*index, url);
  return fresh;
}

void UrlStream::NextBatch(size_t max_urls, uint64_t fresh_limit,
                          UrlBatch* batch) {
  batch->Clear();
  while (batch->size() < max_urls && fresh_count_ < fresh_limit) {
    uint64_t index = 0;
    const bool fresh = Step(&index);
    batch->Add([&](std::string* arena) { AppendFreshUrl(index, arena); },
               fresh);
  }
  batch->Seal();
}

void UrlStream::ProbeBatch(uint64_t first, size_t count,
                           UrlBatch* batch) const {
  batch->Clear();
  for (size_t i = 0; i < count; ++i) {
    batch->Add([&](std::string* arena) { AppendProbeUrl(first + i, arena); },
               true);
  }
  batch->Seal();
}

}  // namespace sieve::study
