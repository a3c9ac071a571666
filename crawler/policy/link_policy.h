// crawler/policy/link_policy.h: what happens to a URL the crawl discovers (a
// link in a page or a redirect target) before it reaches the frontier:
// normalisation with the configured UrlOptions, depth limit, scope and trap
// control, robots.txt (when the origin's file is known), then the frontier's
// dedup inside CrawlFrontier::Add.
//
// Surprises first:
//   - Thread-safe: parser threads call AddDiscovered and ProcessHtmlPage
//     concurrently (Scope, RobotsCache and CrawlFrontier::Add are).
//   - A disallowed link of an origin whose robots.txt is not known yet is
//     queued anyway; the crawl loop checks robots.txt again before the fetch,
//     so it is never requested.
//   - The metadata riding with each queued URL is "<redirect hops> <referrer>"
//     (see Origin); a sitemap file adds ",s<nesting>" (and "r" when
//     robots.txt named it) to the first word, a URL a sitemap listed with a
//     lastmod adds ",m<lastmod>", a page requisite ",p".
//   - With record_skipped, every link refused by a rule is handed back with
//     its reason (LinkOutcomes::skipped), repeats included: the crawl loop's
//     SkippedLog (crawler/output/skipped_log.h) writes each once.
//   - Page requisites (page_requisites) are exempt from the host scope, the
//     allow patterns, max_depth, max_outlinks and the trap guard, not from
//     the deny patterns, the URL trap rules, robots.txt or the Sieve.
#ifndef SIEVE_CRAWLER_POLICY_LINK_POLICY_H_
#define SIEVE_CRAWLER_POLICY_LINK_POLICY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/policy/domain_budget.h"
#include "crawler/policy/link_fate.h"
#include "crawler/policy/politeness_key.h"
#include "crawler/policy/robots_cache.h"
#include "crawler/policy/scope.h"
#include "crawler/policy/skip_reason.h"
#include "crawler/policy/trap_guard.h"
#include "fetch/fetch_types.h"
#include "frontier/crawl_frontier.h"
#include "parse/link_extractor.h"
#include "parse/url.h"

namespace sieve {

// Where a queued URL came from: the page that linked to it (or the URL that
// redirected to it) and how many redirects led there; whether it is a sitemap
// file to parse rather than a page.
struct Origin {
  int redirect_hops = 0;
  std::string referrer = {};  // Empty for a seed.
  // A sitemap file: its body is parsed with ParseSitemap, not as HTML.
  bool sitemap = false;
  // Sitemap indexes above this sitemap (0: named by robots.txt or probed).
  int sitemap_nesting = 0;
  // The sitemap was named by robots.txt, whose URL is `referrer` (the
  // location rule then lets it list any URL of that host).
  bool from_robots = false;
  // A page a sitemap listed: its <lastmod> as written; may be "".
  std::string lastmod = {};
  // A page requisite (crawl.page_requisites): fetched, never parsed for
  // links unless it is a stylesheet (for its url()s and @imports).
  bool requisite = false;

  std::string Encode() const;
  static Origin Decode(std::string_view metadata);
};

struct LinkPolicy {
  const Scope* scope = nullptr;
  const RobotsCache* robots = nullptr;
  CrawlFrontier* frontier = nullptr;
  // The frontier's host key of each URL (politeness.key); null: its
  // authority.
  const PolitenessKeys* keys = nullptr;
  // The crawl's one URL normaliser's options (url.*): every URL the crawl
  // takes in is split with them (LinkRules::Split, crawler/loop/link_rules.h).
  UrlOptions url_options;
  uint32_t max_depth = 0;  // 0 = no limit.
  // Distinct in-scope URLs taken per page (repeats and off-site links do not
  // count); 0 = no limit.
  size_t max_outlinks = 0;
  bool obey_nofollow = true;
  // Query variants and calendars (trap_guard.h); null = not checked.
  TrapGuard* traps = nullptr;
  // Pages per registrable domain (domain_budget.h), the seeds' domains
  // exempt; null = not checked. Checked after every other rule but the
  // Sieve's, so a page reserved and refused as seen is given back.
  DomainBudget* domains = nullptr;
  // Session-ID parameter names (globs), counted when a link carries one (the
  // URL normaliser drops them: they are also in url_options).
  std::vector<std::string> session_id_params;
  // Lower-case robots product token: <meta name="sievebot"> applies besides
  // name=robots.
  std::string robots_name;
  // The HTML parser (config parse.html_parser).
  HtmlParser html_parser = HtmlParser::kTokenizer;
  // Hand back each refused link with its reason (output.skipped).
  bool record_skipped = false;
  // Queue a page's images, stylesheets, scripts and icons, and a
  // stylesheet's url()s (crawl.page_requisites).
  bool page_requisites = false;
  // Element ids a page's PageLinks::found_id reports (LinkOptions::find_ids):
  // render auto's app roots (crawler/render/render_signs.h).
  std::vector<std::string> find_ids;
};

// The form under which the crawl queues (and records) a discovered URL: a
// session ID in its path cut (trap_guard.h), then SplitUrl with the policy's
// UrlOptions. `session_id`, when not null, is set when the URL carried a
// session ID. InvalidArgument when it is not an http(s) URL.
absl::StatusOr<UrlParts> NormalizeDiscovered(const LinkPolicy& policy,
                                             std::string_view raw_url,
                                             bool* session_id = nullptr);

// Sends one discovered URL at `depth` through the policy into the Frontier
// (through the requisites' rules when `origin.requisite`).
AddOutcome AddDiscovered(const LinkPolicy& policy, std::string_view url,
                         uint32_t depth, const Origin& origin);

// A link a rule refused, and which (LinkPolicy::record_skipped).
struct SkippedLink {
  std::string url;
  SkipReason reason;
};

// How the links of one page (or sitemap) fared (link_fate.h's counts), and
// with LinkPolicy::record_skipped the refused links, repeats included.
struct LinkOutcomes : LinkFateCounts {
  std::vector<SkippedLink> skipped;

  // Counts `outcome` and, with `policy.record_skipped`, keeps `url` when
  // refused.
  void Note(const LinkPolicy& policy, std::string_view url, AddOutcome outcome);
};

// What parsing one HTML page gave.
struct PageLinks : LinkOutcomes {
  int64_t found = 0;  // Links in the page (followable kinds), before any rule.
  uint64_t nofollow_links = 0;
  uint64_t session_ids = 0;  // Links whose session ID was cut from the URL.
  // Page requisites found (with LinkPolicy::page_requisites) and queued.
  int64_t requisites_found = 0;
  int64_t requisites_queued = 0;
  bool nofollow_page =
      false;  // <meta name=robots content=nofollow> or X-Robots-Tag.
  bool noindex_page = false;
  bool found_id = false;  // An element has an id of LinkPolicy::find_ids.
};

// Extracts the links of an HTML `response` (fetched at `depth`) and adds them.
// Cost: one gumbo parse of the body, the policy's rules for each link, and one
// CrawlFrontier::AddMany for the page (links the trap guard counts are added
// one by one, so a page's own query or date variants meet the cap in order).
PageLinks ProcessHtmlPage(const LinkPolicy& policy,
                          const FetchResponse& response, uint32_t depth);

// The links a render of the HTML `response` found (RenderResult::links) that
// its static HTML does not have (nor the page's own address), each
// normalised and judged like ProcessHtmlPage's links (rel=nofollow is not
// known for them; the page's own nofollow applies). `found` counts them: the
// links rendering added. Cost: a second ExtractLinks of the body, then
// ProcessHtmlPage's per link.
PageLinks ProcessRenderedLinks(const LinkPolicy& policy,
                               const FetchResponse& response,
                               std::span<const std::string> rendered,
                               uint32_t depth);

// Queues the url()s and @imports of a stylesheet fetched as a page requisite
// at `depth` (parse/css_urls.h), as requisites. Cost: one scan of the body.
PageLinks ProcessStylesheet(const LinkPolicy& policy,
                            const FetchResponse& response, uint32_t depth);

// True for a text/css Content-Type.
bool IsCss(std::string_view content_type);

// True for Content-Types the crawl parses: text/html and application/xhtml+xml.
bool IsHtml(std::string_view content_type);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_LINK_POLICY_H_
