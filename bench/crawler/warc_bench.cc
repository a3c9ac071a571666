// Cost of archiving one fetched page with WarcWriter::WriteExchange: CPU per
// page and bytes written per page, for HTML pages of 8, 32 and 128 KB served
// plain or gzip-coded (the payload is then stored as sent, already
// compressed), at WarcWriterOptions::gzip_level 1 and 6. Counters:
// bytes_per_page (WARC bytes written, request + response records),
// payload_per_page. Files go to $TMPDIR and are removed. With
// SIEVE_BENCH_SMOKE=1 (ctest smoke run) only 8 KB runs.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/output/warc_format.h"
#include "crawler/output/warc_writer.h"

namespace sieve {
namespace {

// HTML-like text: tags and words drawn from a small vocabulary, so it
// deflates about as real pages do (3-5x).
std::string Page(size_t bytes, uint64_t seed) {
  static const char* const kWords[] = {
      "the",  "sieve", "crawler", "keeps",  "what",  "it",    "has",
      "not",  "seen",  "bloom",   "filter", "host",  "queue", "frontier",
      "page", "link",  "archive", "record", "index", "of",    "and"};
  std::mt19937_64 rng(seed);
  std::string page = "<html><head><title>bench</title></head><body>";
  while (page.size() < bytes) {
    page += "<p><a href=\"/p/" + std::to_string(rng() % 100000) + "\">";
    for (int i = 0; i < 12; ++i) {
      page += kWords[rng() % (sizeof(kWords) / sizeof(kWords[0]))];
      page += ' ';
    }
    page += "</a></p>\n";
  }
  page.resize(bytes);
  return page;
}

void BM_WriteExchange(benchmark::State& state) {
  const size_t kb = static_cast<size_t>(state.range(0));
  const bool gzip_coded = state.range(1) != 0;
  const int level = static_cast<int>(state.range(2));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    absl::StrCat("sieve_warc_bench_", getpid());
  WarcWriterOptions o;
  o.directory = dir;
  o.max_digests = 0;  // Every page is new: no revisit shortcut.
  o.gzip_level = level;
  auto writer = *WarcWriter::Open(o);
  // A few distinct pages, reused round-robin (their digests differ).
  std::vector<WarcExchange> pages;
  for (int i = 0; i < 8; ++i) {
    WarcExchange ex;
    ex.target_uri = absl::StrCat("http://bench.test/page/", i);
    ex.date = absl::Now();
    ex.ip_address = "127.0.0.1";
    ex.request_head =
        "GET /page HTTP/1.1\r\nHost: bench.test\r\nUser-Agent: "
        "SieveBot/0.1\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\n\r\n";
    const std::string html = Page(kb * 1024, i);
    ex.payload = gzip_coded ? GzipMember(html) : html;
    ex.response_head = absl::StrCat(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n",
        gzip_coded ? "Content-Encoding: gzip\r\n" : "",
        "Content-Length: ", ex.payload.size(),
        "\r\nServer: bench\r\nDate: Sun, 22 Nov 2026 14:00:00 GMT\r\n\r\n");
    pages.push_back(std::move(ex));
  }
  size_t i = 0;
  for (auto _ : state) {
    auto at = writer->WriteExchange(pages[i++ % pages.size()]);
    benchmark::DoNotOptimize(at);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["bytes_per_page"] =
      static_cast<double>(writer->stats().bytes) / n;
  state.counters["payload_per_page"] =
      static_cast<double>(writer->stats().payload_bytes) / n;
  state.SetBytesProcessed(writer->stats().payload_bytes);
  (void)writer->Close();
  std::filesystem::remove_all(dir);
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"page_kb", "gzip_coded", "level"});
  for (int64_t kb : {8, 32, 128}) {
    if (std::getenv("SIEVE_BENCH_SMOKE") != nullptr && kb > 8) break;
    for (int64_t level : {1, 6}) {
      b->Args({kb, 0, level});
      b->Args({kb, 1, level});
    }
  }
}
BENCHMARK(BM_WriteExchange)->Apply(Args);

}  // namespace
}  // namespace sieve

BENCHMARK_MAIN();
