// Speed of the parse/ hot paths: ns per ResolveUrl/NormalizeUrl, MB/s of
// ExtractLinks on a realistic ~100 KB page (generated deterministically below),
// ns per robots.txt check. With SIEVE_BENCH_SMOKE=1 (ctest smoke run) the page
// is 10 KB.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "parse/link_extractor.h"
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
