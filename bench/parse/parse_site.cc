// The parsing floor of a crawl: every HTML file under a directory parsed once
// on one thread, gumbo alone (the tree, nothing read from it) beside the whole
// of ExtractLinks (decode, tree, links resolved and normalised), with each
// step's thread CPU time. A crawl of the same site cannot spend less CPU than
// the gumbo column however its own code is tuned, so this bounds what a
// faster crawl loop can win (docs/benchmarks.md, "Crawl speed").
//
// The two HTML parsers side by side, on the same files in the same run
// (docs/parse_speed.md): the raw links of a page (parse + link elements read,
// no URL resolution) with gumbo's tree and with parse/html's tokenizer, and
// the whole of ExtractLinks with each; the raw link counts must agree.
//
//   bench_parse_site DIR [--malloc] [--list FILE]
//
// --malloc gives gumbo malloc instead of the arena (the code before issue 16).
// --list parses only the files FILE names, one path relative to DIR a line
// (e.g. the pages a crawl reached: `jq -r .url pages.jsonl`, less the host).
// Prints one line of key=value figures; files are read in path order, and
// each step runs on a file already in memory.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "parse/internal/collect_links.h"
#include "parse/internal/gumbo_document.h"
#include "parse/link_extractor.h"
#include "parse/parse_arena.h"

namespace {

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
}

std::vector<std::filesystem::path> HtmlFiles(
    const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(root, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error) && it->path().extension() == ".html") {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::filesystem::path> ListedFiles(
    const std::filesystem::path& root, const char* list) {
  std::vector<std::filesystem::path> files;
  std::ifstream in(list);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > 5 && line.compare(line.size() - 5, 5, ".html") == 0) {
      files.push_back(root / line);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--malloc] [--list FILE]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root = argv[1];
  bool use_malloc = false;
  const char* list = nullptr;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--malloc") == 0) {
      use_malloc = true;
    } else if (std::strcmp(argv[i], "--list") == 0 && i + 1 < argc) {
      list = argv[++i];
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  sieve::ParseArena arena(sieve::ParseArena::Options{.use_malloc = use_malloc});
  const std::vector<std::filesystem::path> files =
      list ? ListedFiles(root, list) : HtmlFiles(root);
  if (files.empty()) {
    std::fprintf(stderr, "%s: no .html files\n", root.c_str());
    return 1;
  }
  double gumbo_seconds = 0, extract_seconds = 0;
  double gumbo_links_seconds = 0, tokenizer_links_seconds = 0;
  double extract_tokenizer_seconds = 0;
  size_t bytes = 0, links = 0, largest_tree = 0;
  size_t gumbo_raw_links = 0, tokenizer_raw_links = 0, tokenizer_links = 0;
  const sieve::LinkOptions gumbo_options;
  sieve::LinkOptions tokenizer_options;
  tokenizer_options.html_parser = sieve::HtmlParser::kTokenizer;
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    const std::string page((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    bytes += page.size();
    const std::string url =
        "http://127.0.0.1:8080/" + file.lexically_relative(root).string();

    double start = ThreadCpuSeconds();
    {
      sieve::html_internal::GumboDocument document(page, &arena);
      if (document.document() == nullptr) std::fprintf(stderr, "no tree\n");
    }
    gumbo_seconds += ThreadCpuSeconds() - start;
    largest_tree = std::max(largest_tree, arena.last_page_bytes());

    start = ThreadCpuSeconds();
    const sieve::ExtractedLinks result =
        sieve::ExtractLinks(page, url, "text/html", "", gumbo_options, &arena);
    extract_seconds += ThreadCpuSeconds() - start;
    links += result.links.size();

    start = ThreadCpuSeconds();
    const sieve::ExtractedLinks tokens = sieve::ExtractLinks(
        page, url, "text/html", "", tokenizer_options, &arena);
    extract_tokenizer_seconds += ThreadCpuSeconds() - start;
    tokenizer_links += tokens.links.size();

    start = ThreadCpuSeconds();
    gumbo_raw_links +=
        sieve::html_internal::CollectWithGumbo(page, gumbo_options, &arena)
            .links.size();
    gumbo_links_seconds += ThreadCpuSeconds() - start;

    start = ThreadCpuSeconds();
    tokenizer_raw_links +=
        sieve::html_internal::CollectWithTokenizer(page, tokenizer_options)
            .links.size();
    tokenizer_links_seconds += ThreadCpuSeconds() - start;
  }
  const double mb = bytes / 1e6;
  std::printf(
      "raw links: gumbo=%zu (%.2f CPU s, %.1f MB/s) tokenizer=%zu (%.2f CPU "
      "s, %.1f MB/s) speedup=%.2fx\n"
      "ExtractLinks: gumbo links=%zu %.2f CPU s (%.1f MB/s), tokenizer "
      "links=%zu %.2f CPU s (%.1f MB/s) speedup=%.2fx\n",
      gumbo_raw_links, gumbo_links_seconds, mb / gumbo_links_seconds,
      tokenizer_raw_links, tokenizer_links_seconds,
      mb / tokenizer_links_seconds,
      gumbo_links_seconds / tokenizer_links_seconds, links, extract_seconds,
      mb / extract_seconds, tokenizer_links, extract_tokenizer_seconds,
      mb / extract_tokenizer_seconds,
      extract_seconds / extract_tokenizer_seconds);
  std::printf(
      "files=%zu MB=%.1f links=%zu gumbo_cpu_s=%.2f extract_links_cpu_s=%.2f "
      "gumbo_MB_per_s=%.1f largest_tree_MiB=%.1f allocator=%s\n",
      files.size(), bytes / 1e6, links, gumbo_seconds, extract_seconds,
      bytes / 1e6 / gumbo_seconds,
      static_cast<double>(largest_tree) / (1 << 20),
      use_malloc ? "malloc" : "arena");
  return 0;
}
