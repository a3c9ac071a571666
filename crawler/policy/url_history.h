// crawler/policy/url_history.h: what the crawl remembers of each URL it
// fetched, for revisits (crawl.revisit): the validators to send back
// (If-None-Match / If-Modified-Since), the payload digest that decides
// "changed" when a server sends none, the times and counts the adaptive
// interval is estimated from (crawler/policy/revisit_policy.h), when the URL is
// due again, where its last full copy is archived (a WARC revisit record
// refers to it), and what the frontier needs to queue it again.
//
// Saved bytes: EncodeUrlHistory writes one record, kept per URL in the
// frontier's store (CrawlFrontier::UrlRecords, so on disk and in every
// checkpoint; crawler/loop/crawler_revisits.cc); DecodeUrlHistory refuses
// anything malformed with DataLoss and never crashes (fuzz target
// crawler/fuzz/url_history_fuzzer.cc).
//
// Example:
//   sieve::UrlHistory h{.etag = "\"v1\"", .fetches = 1};
//   std::string bytes = sieve::EncodeUrlHistory(h);
//   absl::StatusOr<sieve::UrlHistory> back = sieve::DecodeUrlHistory(bytes);
#ifndef SIEVE_CRAWLER_POLICY_URL_HISTORY_H_
#define SIEVE_CRAWLER_POLICY_URL_HISTORY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sieve {

struct UrlHistory {
  // Validators of the last 2xx answer, as sent (ETag, Last-Modified).
  std::string etag = {};
  std::string last_modified = {};
  // Payload digest ("sha1:" + Base32) of the last 2xx body.
  std::string digest = {};
  absl::Time first_fetch = absl::InfinitePast();
  absl::Time last_fetch = absl::InfinitePast();
  // The last fetch that found the page changed (or the first fetch).
  absl::Time last_change = absl::InfinitePast();
  // The interval chosen after the last fetch, and the time it is due again.
  absl::Duration interval = absl::ZeroDuration();
  absl::Time next_due = absl::InfinitePast();
  // Fetches with an answer that counts (2xx or 304), and of the revisits
  // among them (fetches - 1) those that found the page changed.
  uint32_t fetches = 0;
  uint32_t changes = 0;
  // What the servers' Last-Modified dates told of the page's changes
  // (revisit_policy.h, EstimateChangeRate): changes whose time is known, and
  // the time known to have passed without one. dates_unreliable: a date
  // that contradicted the content (or none was sent); then only `changes`
  // counts. Default: 0, zero, false (nothing known yet).
  uint32_t dated_changes = 0;
  absl::Duration change_free = absl::ZeroDuration();
  bool dates_unreliable = false;
  // What the frontier queues the URL again with (CrawlFrontier::Revisit).
  std::string host = {};
  uint32_t depth = 0;
  std::string metadata = {};
  // The WARC record holding the last full copy ("" without --warc), and its
  // WARC-Date: a revisit record's WARC-Refers-To and WARC-Refers-To-Date.
  std::string warc_record_id = {};
  absl::Time warc_date = absl::InfinitePast();
};

bool operator==(const UrlHistory& a, const UrlHistory& b);

// One record's bytes: a format byte, then each field (32-bit little-endian
// lengths and counts, 64-bit microsecond times), the date fields last
// (format 2; a format 1 record, without them, still decodes). Cost: O(size).
std::string EncodeUrlHistory(const UrlHistory& history);
// DataLoss when `bytes` is not such a record (truncated, trailing bytes, a
// field too long, another format). Cost: O(size).
absl::StatusOr<UrlHistory> DecodeUrlHistory(std::string_view bytes);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_URL_HISTORY_H_
