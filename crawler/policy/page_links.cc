// crawler/policy/page_links.cc: a fetched page's links through the link
// policy (ProcessHtmlPage: each distinct link judged once, the ones that pass
// queued in one batch, the page's requisites last) and a stylesheet's url()s
// and @imports (ProcessStylesheet).
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "crawler/policy/internal/link_vet.h"
#include "crawler/policy/link_policy.h"
#include "parse/css_urls.h"
#include "parse/link_extractor.h"

namespace sieve {
namespace {

using policy_internal::AddCandidate;
using policy_internal::AddRequisites;
using policy_internal::Candidate;
using policy_internal::LinkSource;
using policy_internal::OutlinkCap;
using policy_internal::Unreserve;
using policy_internal::Vet;

// Links that lead to pages: not stylesheets, icons, preloads or requisites.
bool IsFollowable(const Link& link) {
  if (link.requisite) return false;
  if (link.kind != LinkKind::kLink) return true;
  return link.HasRel("canonical") || link.HasRel("alternate") ||
         link.HasRel("next") || link.HasRel("prev");
}

// What ExtractLinks resolves a page's links with: the policy's UrlOptions
// but for the session-ID parameters, kept so Vet can count them before its
// SplitUrl (with policy.url_options) drops them.
LinkOptions PageLinkOptions(const LinkPolicy& policy) {
  UrlOptions resolve = policy.url_options;
  std::erase_if(resolve.drop_query_params, [&](const std::string& pattern) {
    return std::find(policy.session_id_params.begin(),
                     policy.session_id_params.end(),
                     pattern) != policy.session_id_params.end();
  });
  return LinkOptions{.html_parser = policy.html_parser,
                     .url = std::move(resolve),
                     .robots_name = policy.robots_name,
                     .requisites = policy.page_requisites,
                     .find_ids = policy.find_ids};
}

// The page's own host and domain: its links to other domains raise their
// budgets (domain_budget.h). Empty without a domain budget.
struct PageSource {
  std::string host;
  std::string domain;
  bool seed_domain = false;

  LinkSource View() const {
    return {.host = host, .domain = domain, .seed_domain = seed_domain};
  }
};

PageSource SourceOf(const LinkPolicy& policy, const FetchResponse& response) {
  PageSource source;
  if (policy.domains != nullptr && policy.domains->enabled()) {
    if (absl::StatusOr<UrlParts> parts = SplitNormalizedUrl(response.url);
        parts.ok()) {
      source.host = parts->host;
      source.domain = Scope::RegistrableDomain(source.host);
      source.seed_domain = policy.scope->IsSeedDomain(source.domain);
    }
  }
  return source;
}

// Judges each link of one page: a link the page repeats (an API index links
// each class many times: half of openjdk-17-doc's links are repeats on their
// page) is judged once; a repeat of one that went to the frontier is its
// duplicate, as AddMany would say, and a refused one is counted again but not
// kept again. The links that pass go to the Frontier in one AddMany (one
// lock, one filter batch), but for those the trap guard counts: each of those
// is added at once, so a page's own variants count against the cap as they
// come. The page's links must outlive the judge (it keys on them).
class PageLinkJudge {
 public:
  PageLinkJudge(const LinkPolicy& policy, uint32_t depth, LinkSource source,
                std::string metadata, PageLinks& out)
      : policy_(policy),
        depth_(depth),
        source_(source),
        metadata_(std::move(metadata)),
        out_(out),
        cap_{.limit = policy.max_outlinks, .taken = {}} {}

  // A followable link of the page, not nofollow.
  void Judge(const std::string& url);
  // The links that passed, to the Frontier in one AddMany.
  void Flush();

 private:
  struct Judged {
    AddOutcome outcome;
    bool session_id;
  };
  // A link whose session ID was cut, found again: the session trap.
  void Seen(const Candidate& c);
  void Repeat(const Judged& first, const std::string& url);

  const LinkPolicy& policy_;
  const uint32_t depth_;  // The links' depth.
  const LinkSource source_;
  const std::string metadata_;
  PageLinks& out_;
  OutlinkCap cap_;
  std::vector<Candidate> batch_;
  Candidate candidate_;
  absl::flat_hash_map<std::string_view, Judged> judged_;
};

void PageLinkJudge::Seen(const Candidate& c) {
  if (policy_.record_skipped && !c.session_url.empty()) {
    out_.skipped.push_back(
        {.url = c.session_url, .reason = SkipReason::kTrapSession});
  }
}

void PageLinkJudge::Repeat(const Judged& first, const std::string& url) {
  if (first.session_id) ++out_.session_ids;
  if (first.outcome != AddOutcome::kQueued &&
      first.outcome != AddOutcome::kSeen) {
    out_.Count(first.outcome);
    return;
  }
  out_.Count(AddOutcome::kSeen);
  if (first.session_id && policy_.record_skipped) {
    out_.skipped.push_back({.url = url, .reason = SkipReason::kTrapSession});
  }
}

void PageLinkJudge::Judge(const std::string& url) {
  // One hash of the URL, whether it is a repeat or not (nothing is added to
  // judged_ before `judged` is set, so it stays valid).
  const auto [it, first] = judged_.try_emplace(url);
  if (!first) {
    Repeat(it->second, url);
    return;
  }
  Judged& judged = it->second;
  bool session_id = false;
  AddOutcome outcome = Vet(policy_, url, /*page_link=*/true, depth_, &cap_,
                           &session_id, source_, &candidate_);
  judged = Judged{.outcome = outcome, .session_id = session_id};
  if (session_id) ++out_.session_ids;
  if (outcome == AddOutcome::kQueued) {
    if (session_id) candidate_.session_url = url;
    if (!candidate_.trap_counted) {
      batch_.push_back(std::move(candidate_));
      return;
    }
    outcome = AddCandidate(policy_, candidate_, depth_, metadata_);
    judged.outcome = outcome;
    if (outcome == AddOutcome::kSeen) Seen(candidate_);
  }
  out_.Note(policy_, url, outcome);
}

void PageLinkJudge::Flush() {
  std::vector<FrontierAdd> adds;
  adds.reserve(batch_.size());
  for (const Candidate& c : batch_) {
    adds.push_back(
        {.url = c.url, .host = c.key, .depth = depth_, .metadata = metadata_});
  }
  std::unique_ptr<bool[]> queued(new bool[adds.size()]);
  policy_.frontier->AddMany(adds, std::span<bool>(queued.get(), adds.size()));
  for (size_t i = 0; i < adds.size(); ++i) {
    out_.Count(queued[i] ? AddOutcome::kQueued : AddOutcome::kSeen);
    if (!queued[i]) {
      Unreserve(policy_, batch_[i]);
      Seen(batch_[i]);
    }
  }
  batch_.clear();
}

}  // namespace

PageLinks ProcessHtmlPage(const LinkPolicy& policy,
                          const FetchResponse& response, uint32_t depth) {
  PageLinks out;
  const std::string& base =
      response.effective_url.empty() ? response.url : response.effective_url;
  const ExtractedLinks page =
      ExtractLinks(response.body, base, response.headers.content_type,
                   response.headers.x_robots_tag, PageLinkOptions(policy));
  out.nofollow_page = page.nofollow;
  out.noindex_page = page.noindex;
  out.found_id = page.found_id;
  const PageSource source = SourceOf(policy, response);
  PageLinkJudge judge(
      policy, depth + 1, source.View(),
      Origin{.redirect_hops = 0, .referrer = response.url}.Encode(), out);
  std::vector<std::string> requisites;
  for (const Link& link : page.links) {
    if (link.requisite) {
      requisites.push_back(link.url);
      continue;
    }
    if (!IsFollowable(link)) continue;
    ++out.found;
    if (policy.obey_nofollow && (page.nofollow || link.nofollow)) {
      ++out.nofollow_links;
      if (policy.record_skipped) {
        out.skipped.push_back(
            {.url = link.url, .reason = SkipReason::kNofollow});
      }
      continue;
    }
    judge.Judge(link.url);
  }
  judge.Flush();
  // Requisites last: the page's own links take the Sieve first.
  AddRequisites(policy, requisites, depth + 1, response.url, out);
  return out;
}

PageLinks ProcessRenderedLinks(const LinkPolicy& policy,
                               const FetchResponse& response,
                               std::span<const std::string> rendered,
                               uint32_t depth) {
  PageLinks out;
  const std::string& base =
      response.effective_url.empty() ? response.url : response.effective_url;
  const LinkOptions options = PageLinkOptions(policy);
  const ExtractedLinks page =
      ExtractLinks(response.body, base, response.headers.content_type,
                   response.headers.x_robots_tag, options);
  // What the static parse already judged, and the page itself (a frame's
  // address is among the rendered links).
  absl::flat_hash_set<std::string> known;
  for (const Link& link : page.links) known.insert(link.url);
  for (const std::string& self : {response.url, base}) {
    if (absl::StatusOr<std::string> n = NormalizeUrl(self, options.url);
        n.ok()) {
      known.insert(*n);
    }
  }
  std::vector<std::string> added;  // Outlives the judge, which keys on them.
  for (const std::string& link : rendered) {
    absl::StatusOr<std::string> n = NormalizeUrl(link, options.url);
    if (!n.ok() || !known.insert(*n).second) continue;
    added.push_back(*std::move(n));
  }
  const PageSource source = SourceOf(policy, response);
  PageLinkJudge judge(
      policy, depth + 1, source.View(),
      Origin{.redirect_hops = 0, .referrer = response.url}.Encode(), out);
  for (const std::string& url : added) {
    ++out.found;
    if (policy.obey_nofollow && page.nofollow) {
      ++out.nofollow_links;
      continue;
    }
    judge.Judge(url);
  }
  judge.Flush();
  out.nofollow_page = page.nofollow;
  return out;
}

PageLinks ProcessStylesheet(const LinkPolicy& policy,
                            const FetchResponse& response, uint32_t depth) {
  PageLinks out;
  const std::string& base =
      response.effective_url.empty() ? response.url : response.effective_url;
  const CssLinks css = ExtractCssLinks(response.body, base, policy.url_options);
  AddRequisites(policy, css.urls, depth + 1, response.url, out);
  return out;
}

}  // namespace sieve
