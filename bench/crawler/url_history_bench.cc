// What a revisit crawl's per-URL history costs (docs/crawling.md
// "Revisits"): kept in RAM as a hash table (how crawls before the store kept
// it) or, as the crawler keeps it, one record per URL in the frontier's store
// (CrawlFrontier::UrlRecords, frontier/url_record_store.h).
//
//   url_history_bench [URLS] [DIR]     (defaults: 10^6, /tmp/...)
//
// Makes URLS histories of realistic size and entropy (a 60-byte URL, an
// ETag, Last-Modified, a random sha1 digest, host, a referrer URL as
// metadata, a WARC record ID)
// and, one process each:
//   - ram: inserts them into an absl::flat_hash_map<std::string, UrlHistory>;
//   - store: Puts each (EncodeUrlHistory) into a Frontier's UrlRecords, takes
//     a checkpoint (as the crawl does), then Gets URLS/10 of them at random
//     (AddValidators' lookup) and scans them all (--resume's ForEach).
// Prints heap in use per URL (glibc mallinfo2: after - before, / URLS), the
// record's encoded bytes, the store's bytes in the checkpoint per URL (table
// files and write-ahead log), and the time per Put, Get and scanned record.
//
// SIEVE_BENCH_SMOKE=1: 10^4 URLs, for the ctest smoke run.
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "crawler/policy/url_history.h"
#include "frontier/frontier.h"
#include "frontier/url_record_store.h"

namespace {

namespace fs = std::filesystem;

uint64_t HeapBytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

std::string UrlOf(uint64_t i) {
  return absl::StrCat("https://www.host", i % 1000, ".example/news/2026/",
                      i * 7919 % 100000, "/article-", i, ".html");
}

// `n` random characters of the Base32 alphabet (a digest's), fixed by `i`.
std::string Base32Of(uint64_t i, size_t n) {
  std::mt19937_64 rng(i);
  std::string out;
  for (size_t k = 0; k < n; ++k)
    out.push_back("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[rng() % 32]);
  return out;
}

sieve::UrlHistory HistoryOf(uint64_t i) {
  const absl::Time t = absl::FromUnixSeconds(1'700'000'000 + i);
  return sieve::UrlHistory{
      .etag = absl::StrCat("\"", absl::Hex(std::mt19937_64(~i)()), "\""),
      .last_modified =
          absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT",
                           t - absl::Hours(i % 5000), absl::UTCTimeZone()),
      .digest = absl::StrCat("sha1:", Base32Of(i, 32)),
      .first_fetch = t,
      .last_fetch = t,
      .last_change = t,
      .interval = absl::Hours(1),
      .next_due = t + absl::Hours(1),
      .fetches = 3,
      .changes = 1,
      .host = absl::StrCat("www.host", i % 1000, ".example"),
      .depth = 2,
      .metadata = UrlOf(i / 10),  // The referrer, as the crawler's.
      .warc_record_id =
          absl::StrCat("<urn:uuid:", absl::Hex(i, absl::kZeroPad8),
                       "-0000-4000-8000-000000000000>"),
      .warc_date = t};
}

double PerUrl(uint64_t after, uint64_t before, uint64_t urls) {
  return (static_cast<double>(after) - static_cast<double>(before)) /
         static_cast<double>(urls);
}

uint64_t DirBytes(const fs::path& dir) {
  uint64_t total = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

int RunRam(uint64_t urls) {
  const uint64_t heap_before = HeapBytes();
  const absl::Time start = absl::Now();
  absl::flat_hash_map<std::string, sieve::UrlHistory> table;
  for (uint64_t i = 0; i < urls; ++i) table.emplace(UrlOf(i), HistoryOf(i));
  const double put_us = absl::ToDoubleMicroseconds(absl::Now() - start) /
                        static_cast<double>(urls);
  std::printf("ram    %llu URLs: heap %.0f B/URL, insert %.2f us/URL\n",
              static_cast<unsigned long long>(urls),
              PerUrl(HeapBytes(), heap_before, urls), put_us);
  std::fflush(stdout);  // The child leaves through _exit.
  return 0;
}

int RunStore(uint64_t urls, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir / "work");
  absl::StatusOr<std::unique_ptr<sieve::Frontier>> frontier =
      sieve::Frontier::Create(
          {.sieve = {.expected_urls = urls, .work_dir = dir / "work"}});
  if (!frontier.ok()) return 1;
  absl::StatusOr<sieve::UrlRecordStore*> store = (*frontier)->UrlRecords();
  if (!store.ok()) return 1;
  const uint64_t heap_before = HeapBytes();
  uint64_t record_bytes = 0;
  absl::Time start = absl::Now();
  for (uint64_t i = 0; i < urls; ++i) {
    const std::string record = sieve::EncodeUrlHistory(HistoryOf(i));
    record_bytes += record.size();
    if (!(*store)->Put(UrlOf(i), record).ok()) return 1;
  }
  const double put_us = absl::ToDoubleMicroseconds(absl::Now() - start) /
                        static_cast<double>(urls);
  const uint64_t heap_put = HeapBytes();
  if (!(*frontier)->Checkpoint(dir / "checkpoint").ok()) return 1;
  const uint64_t checkpoint_bytes = DirBytes(dir / "checkpoint");

  std::mt19937_64 rng(42);
  const uint64_t gets = urls / 10;
  start = absl::Now();
  for (uint64_t n = 0; n < gets; ++n) {
    absl::StatusOr<std::optional<std::string>> got =
        (*store)->Get(UrlOf(rng() % urls));
    if (!got.ok() || !got->has_value()) return 1;
  }
  const double get_us = absl::ToDoubleMicroseconds(absl::Now() - start) /
                        static_cast<double>(gets);
  start = absl::Now();
  absl::StatusOr<uint64_t> count = (*store)->Count();
  if (!count.ok() || *count != urls) return 1;
  const double scan_us = absl::ToDoubleMicroseconds(absl::Now() - start) /
                         static_cast<double>(urls);
  std::printf(
      "store  %llu URLs: heap %.0f B/URL after the Puts (%.0f after the "
      "Gets), record %.0f B + URL %.0f B, checkpoint %.0f B/URL; Put %.2f "
      "us, Get %.2f us, scan %.2f us/URL\n",
      static_cast<unsigned long long>(urls),
      PerUrl(heap_put, heap_before, urls),
      PerUrl(HeapBytes(), heap_before, urls),
      static_cast<double>(record_bytes) / static_cast<double>(urls),
      static_cast<double>(UrlOf(urls / 2).size()),
      static_cast<double>(checkpoint_bytes) / static_cast<double>(urls), put_us,
      get_us, scan_us);
  std::fflush(stdout);  // The child leaves through _exit.
  frontier->reset();
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = std::getenv("SIEVE_BENCH_SMOKE") != nullptr;
  const uint64_t urls = argc > 1 ? std::strtoull(argv[1], nullptr, 10)
                                 : (smoke ? 10'000 : 1'000'000);
  if (urls == 0) {
    std::fprintf(stderr, "usage: url_history_bench [URLS > 0] [DIR]\n");
    return 2;
  }
  const fs::path dir = argc > 2
                           ? fs::path(argv[2])
                           : fs::temp_directory_path() /
                                 absl::StrCat("sieve-url-history-", getpid());
  // One process each, so each starts from a fresh heap.
  for (int mode = 0; mode < 2; ++mode) {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) _exit(mode == 0 ? RunRam(urls) : RunStore(urls, dir));
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}
