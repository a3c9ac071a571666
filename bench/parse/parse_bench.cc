// Speed of the parse/ hot paths: ns per ResolveUrl/NormalizeUrl, MB/s of
// ExtractLinks on a realistic ~100 KB page (generated deterministically below)
// and on real documentation pages, ns per robots.txt check. With
// SIEVE_BENCH_SMOKE=1 (ctest smoke run) the page is 10 KB and few real pages
// are read.
//
// BM_ExtractDocPages and BM_ResolveRelative run the code before issue 16
// (libcurl resolves each link, gumbo's tree from malloc) beside the code after
// it (our own resolution, an arena) in one run: arguments `curl` and `arena`.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "parse/internal/extract_links.h"
#include "parse/internal/url_canon.h"
#include "parse/link_extractor.h"
#include "parse/parse_arena.h"
#include "parse/robots.h"
#include "parse/url.h"

namespace sieve {
namespace {

bool Smoke() { return std::getenv("SIEVE_BENCH_SMOKE") != nullptr; }

// The href mix of a typical page: relative paths, root-relative paths with
// queries, absolute links to other hosts, dot segments, fragments.
const std::vector<std::pair<std::string, std::string>>& Pairs() {
  static const auto* pairs =
      new std::vector<std::pair<std::string, std::string>>{
          {"https://www.example.com/news/2024/index.html", "article-123.html"},
          {"https://www.example.com/news/2024/index.html",
           "/search?q=bloom+filter&page=2"},
          {"https://www.example.com/news/2024/index.html",
           "https://cdn.example.net/a/b.css"},
          {"https://www.example.com/news/2024/index.html",
           "../archive/./2023/#top"},
          {"https://www.example.com/news/2024/index.html",
           "//static.example.org/img/logo.png"},
          {"https://www.example.com/news/2024/index.html",
           "?sort=date&utm_source=x"},
          {"https://www.example.com/news/2024/index.html",
           "HTTP://Other.Example.COM:80/%7Euser/"},
          {"https://www.example.com/news/2024/index.html",
           "caf%c3%a9/men\xC3\xBC.html"},
      };
  return *pairs;
}

void BM_ResolveUrl(benchmark::State& state) {
  const auto& pairs = Pairs();
  size_t i = 0;
  for (auto _ : state) {
    const auto& [base, href] = pairs[i++ % pairs.size()];
    absl::StatusOr<std::string> url = ResolveUrl(base, href);
    benchmark::DoNotOptimize(url);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ResolveUrl);

void BM_NormalizeUrl(benchmark::State& state) {
  const std::vector<std::string> urls = {
      "https://www.example.com/news/2024/article-123.html",
      "HTTP://Example.COM:80/a/./b/../c?x=%7e#frag",
      "https://shop.example.org/cart?item=42&session=abc",
  };
  size_t i = 0;
  for (auto _ : state) {
    absl::StatusOr<std::string> url = NormalizeUrl(urls[i++ % urls.size()]);
    benchmark::DoNotOptimize(url);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NormalizeUrl);

// A news-site-like page: head with meta/link/script, navigation, article
// paragraphs with inline links, a footer; about one link per 250 bytes, as on
// typical pages. Deterministic (fixed seed).
std::string MakePage(size_t target_bytes, bool latin1) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> pick(0, 999);
  std::string html =
      "<!DOCTYPE html><html lang=en><head><meta charset=\"" +
      std::string(latin1 ? "windows-1252" : "utf-8") +
      "\"><title>Example News - Today</title>"
      "<link rel=stylesheet href=\"/static/site.css?v=3\"><link rel=canonical "
      "href=\"https://www.example.com/news/today\"><meta name=viewport "
      "content=\"width=device-"
      "width\"><script>window.dataLayer=window.dataLayer||[];function "
      "g(){dataLayer.push("
      "arguments)}</script></head><body><header><nav><ul>";
  for (int i = 0; i < 12; ++i) {
    html += "<li><a href=\"/section/" + std::to_string(i) + "/\">Section " +
            std::to_string(i) + "</a></li>";
  }
  html += "</ul></nav></header><main>";
  const char* word = latin1 ? "caf\xE9 " : "caf\xC3\xA9 ";
  while (html.size() < target_bytes) {
    const int n = pick(rng);
    html += "<article class=\"story\"><h2><a href=\"/news/2024/story-" +
            std::to_string(n) + ".html\">Headline number " + std::to_string(n) +
            "</a></h2><p>";
    for (int w = 0; w < 20; ++w) html += (w % 7 == 0) ? word : "lorem ipsum ";
    html += "<a href=\"https://other" + std::to_string(n % 13) +
            ".example.org/path?id=" + std::to_string(n) +
            "&amp;ref=home\" rel=\"nofollow "
            "noopener\">source</a> and <a href=\"../tags/t" +
            std::to_string(n % 50) + "#c\">tag</a>.</p><img src=\"/img/" +
            std::to_string(n) +
            ".jpg\" alt=\"\">"
            "</article>\n";
  }
  html +=
      "</main><footer><a href=\"/about\">About</a> <a "
      "href=\"mailto:news@example.com\">Mail"
      "</a> <a href=\"javascript:void(0)\">Top</a></footer></body></html>";
  return html;
}

void BM_ExtractLinks(benchmark::State& state) {
  const bool latin1 = state.range(0) == 1;
  const std::string page = MakePage(Smoke() ? 10 * 1024 : 100 * 1024, latin1);
  size_t links = 0;
  for (auto _ : state) {
    ExtractedLinks result = ExtractLinks(
        page, "https://www.example.com/news/2024/index.html", "text/html");
    links = result.links.size();
    benchmark::DoNotOptimize(result);
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * page.size()));
  state.counters["page_KB"] = static_cast<double>(page.size()) / 1024;
  state.counters["links"] = static_cast<double>(links);
}
BENCHMARK(BM_ExtractLinks)
    ->ArgName("windows1252")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

// Real pages of a Debian documentation package: every k-th HTML file in path
// order, k chosen so that about 8 MB are read (256 KB in a smoke run).
struct DocPages {
  std::vector<std::string> pages;
  std::vector<std::string> urls;
  size_t bytes = 0;
};

const DocPages& LoadDocPages(int site) {
  static const char* const kRoots[] = {"/usr/share/doc/postgresql-doc-15/html",
                                       "/usr/share/doc/python3-doc/html",
                                       "/usr/share/doc/openjdk-17-doc/api"};
  static std::unique_ptr<DocPages> loaded[3];
  if (loaded[site]) return *loaded[site];
  loaded[site] = std::make_unique<DocPages>();
  const std::filesystem::path root = kRoots[site];
  std::vector<std::filesystem::path> files;
  size_t total = 0;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(
           root, std::filesystem::directory_options::follow_directory_symlink,
           error),
       end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error) && it->path().extension() == ".html") {
      files.push_back(it->path());
      total += it->file_size(error);
    }
  }
  std::sort(files.begin(), files.end());
  const size_t budget = Smoke() ? 256 * 1024 : 8 << 20;
  const size_t stride = std::max<size_t>(1, (total + budget - 1) / budget);
  for (size_t i = 0; i < files.size(); i += stride) {
    std::ifstream in(files[i], std::ios::binary);
    std::string page((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    loaded[site]->bytes += page.size();
    loaded[site]->pages.push_back(std::move(page));
    loaded[site]->urls.push_back(
        "http://127.0.0.1:8080/" +
        files[i].lexically_relative(root).generic_string());
  }
  return *loaded[site];
}

// ExtractLinks over real pages: one iteration extracts every loaded page once,
// so each variant does exactly the same work. Args: site (0 postgresql-doc-15,
// 1 python3-doc, 2 openjdk-17-doc), curl (1: libcurl resolves every link, as
// before), arena (0: gumbo's tree from malloc, as before). items/s are
// pages/s.
void BM_ExtractDocPages(benchmark::State& state) {
  const DocPages& site = LoadDocPages(static_cast<int>(state.range(0)));
  if (site.pages.empty()) {
    state.SkipWithError("documentation package not installed");
    return;
  }
  const auto resolver = state.range(1) == 1 ? url_internal::Resolver::kCurl
                                            : url_internal::Resolver::kFast;
  ParseArena arena(ParseArena::Options{.use_malloc = state.range(2) == 0});
  size_t links = 0, largest_tree = 0;
  for (auto _ : state) {
    links = 0;
    for (size_t page = 0; page < site.pages.size(); ++page) {
      ExtractedLinks result = html_internal::ExtractLinksWith(
          site.pages[page], site.urls[page], "text/html", "", {}, &arena,
          resolver);
      links += result.links.size();
      largest_tree = std::max(largest_tree, arena.last_page_bytes());
      benchmark::DoNotOptimize(result);
    }
  }
  const auto n = static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(n * static_cast<int64_t>(site.bytes));
  state.SetItemsProcessed(n * static_cast<int64_t>(site.pages.size()));
  state.counters["pages"] = static_cast<double>(site.pages.size());
  state.counters["links"] = static_cast<double>(links);
  state.counters["max_tree_MiB"] =
      static_cast<double>(largest_tree) / (1 << 20);  // gumbo's, one page
}
BENCHMARK(BM_ExtractDocPages)
    ->ArgNames({"site", "curl", "arena"})
    ->ArgsProduct({{0, 1, 2}, {1, 0}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// One relative link resolved against a parsed base, as ExtractLinks does per
// link. Arg curl: 1 = libcurl merges the path (before), 0 = our own code.
void BM_ResolveRelative(benchmark::State& state) {
  const auto resolver = state.range(0) == 1 ? url_internal::Resolver::kCurl
                                            : url_internal::Resolver::kFast;
  const absl::StatusOr<url_internal::UrlComponents> base =
      url_internal::ResolveComponents(
          "", "http://127.0.0.1:8080/docs/api/java.base/java/util/Map.html",
          resolver);
  const std::vector<std::string> hrefs = {
      "../../java/lang/Object.html", "HashMap.html#put(K,V)",
      "/docs/index.html", "package-summary.html",
      "https://docs.oracle.com/javase/specs/"};
  size_t i = 0;
  for (auto _ : state) {
    absl::StatusOr<url_internal::UrlComponents> url =
        url_internal::ResolveAgainst(base, hrefs[i++ % hrefs.size()], resolver);
    benchmark::DoNotOptimize(url);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ResolveRelative)->ArgName("curl")->Arg(1)->Arg(0);

void BM_RobotsIsAllowed(benchmark::State& state) {
  std::string file =
      "User-agent: *\nDisallow: /cgi-bin/\nDisallow: /*?sessionid=\n";
  for (int i = 0; i < 40; ++i) {
    file += "Disallow: /private" + std::to_string(i) + "/\nAllow: /private" +
            std::to_string(i) + "/public$\n";
  }
  file +=
      "User-agent: SieveBot\nDisallow: /no-sieve/\nAllow: /\nCrawl-delay: 1\n";
  const RobotsTxt robots = RobotsTxt::Parse(file);
  const std::vector<std::string> paths = {
      "/news/2024/story-1.html", "/private7/x", "/search?q=x&sessionid=9",
      "/no-sieve/page"};
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(robots.IsAllowed(
        "Mozilla/5.0 (compatible; OtherBot/2.0)", paths[i++ % paths.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RobotsIsAllowed);

}  // namespace
}  // namespace sieve

BENCHMARK_MAIN();
