// crawler/policy/politeness_key.h: which hosts share politeness
// (politeness.key, flag --politeness-key): the delay between two requests and
// the cap on requests in flight apply per host (default), per IP address, or
// per registrable domain, as Heritrix's queue assignment policies and Nutch's
// partition.url.mode (byHost, byIP, byDomain) allow.
//
// The frontier owns every per-host rule and keys its host table by the host
// key each URL is added with (frontier/crawl_frontier.h); KeyOf is that key,
// computed once where the crawler adds a URL (the seeds, LinkPolicy). So one
// table, one decision: hosts with one key share one queue, one delay, one
// in-flight cap, and also one robots.txt Crawl-delay (the last one read), one
// page cap (crawl.max_pages_per_host) and one unreachable mark.
//
// Surprises first:
//   - kIp resolves the host when its first URL is added, through the crawl's
//     DnsCache (fetch/dns_cache.h), the same answers the Fetcher then
//     connects to. The adding thread (a parser thread, or the loop for a
//     seed, a redirect or a sitemap) waits for that first answer, at most
//     `max_wait`; later URLs of the host find it cached. A host whose lookup
//     fails or takes longer keeps its own name as key (its fetches fail or
//     are slow alike). Prefetch starts lookups ahead (the crawler does so
//     for its seeds).
//   - The key is fixed when the URL is queued: a host whose address changes
//     later keeps its queued URLs under the old one.
//   - Thread-safe (const; the DnsCache is).
//
// Example:
//   sieve::PolitenessKeys keys(sieve::PolitenessKey::kIp, dns.get(),
//                              absl::Seconds(5));
//   frontier->Add(parts.normalized_url, keys.KeyOf(parts), depth);
#ifndef SIEVE_CRAWLER_POLICY_POLITENESS_KEY_H_
#define SIEVE_CRAWLER_POLICY_POLITENESS_KEY_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fetch/dns_cache.h"
#include "parse/url.h"

namespace sieve {

enum class PolitenessKey {
  kHost,               // The URL's authority: host and port.
  kIp,                 // The host's first address: hosts on one IP share.
  kRegistrableDomain,  // The public-suffix-list domain (a.example.co.uk and
                       // b.example.co.uk share example.co.uk).
};

// Every key, in the order help texts list them.
std::span<const PolitenessKey> AllPolitenessKeys();
// "host", "ip", "registrable_domain".
std::string_view PolitenessKeyName(PolitenessKey key);
// Inverse of PolitenessKeyName; InvalidArgument naming the choices otherwise.
absl::StatusOr<PolitenessKey> ParsePolitenessKey(std::string_view name);

class PolitenessKeys {
 public:
  // REQUIRES: `dns` outlives this and is not null for kIp.
  PolitenessKeys(PolitenessKey mode, DnsCache* dns, absl::Duration max_wait)
      : mode_(mode), dns_(dns), max_wait_(max_wait) {}

  // The frontier's host key of a URL: for kHost its Authority(); for kIp the
  // address text ("192.0.2.7", "2001:db8::1"); for kRegistrableDomain the
  // domain (an IP literal is its own). Cost: kIp may wait for one lookup (see
  // above); otherwise O(|host|).
  std::string KeyOf(const UrlParts& url) const;
  // For kIp, starts the lookup of `url`'s host without waiting, so that
  // KeyOf over many new hosts waits about one lookup, not one per host.
  // Nothing for the other keys. Never blocks.
  void Prefetch(const UrlParts& url) const {
    if (mode_ == PolitenessKey::kIp) (void)dns_->Lookup(url.host);
  }

 private:
  const PolitenessKey mode_;
  DnsCache* const dns_;
  const absl::Duration max_wait_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_POLITENESS_KEY_H_
