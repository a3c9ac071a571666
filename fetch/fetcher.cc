#include "fetch/fetcher.h"

#include <curl/curl.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fetch/curl_init.h"
#include "fetch/internal/curl_multis.h"
#include "fetch/open_file_limit.h"

namespace sieve {

using fetch_internal::CurlMultis;
using fetch_internal::CurlSharePtr;
using fetch_internal::CurlSlistPtr;
using fetch_internal::Transfer;

namespace {

// FetchOptions::max_idle_connections, 0 resolved from the open-file limit.
long IdleConnectionCap(const FetchOptions& options) {
  if (options.max_idle_connections > 0)
    return static_cast<long>(options.max_idle_connections);
  const uint64_t floor =
      4 * static_cast<uint64_t>(options.max_concurrent_transfers);
  const uint64_t half_fds = CurrentOpenFileLimit() / 2;
  return static_cast<long>(std::max(
      floor,
      std::min(half_fds, static_cast<uint64_t>(kDefaultMaxIdleConnections))));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Fetcher>> Fetcher::Create(
    FetchOptions options, std::shared_ptr<DnsCache> dns) {
  if (absl::Status s = ValidateFetchOptions(options); !s.ok()) return s;
  if (absl::Status s = InitCurl(); !s.ok()) return s;
  if (dns == nullptr) {
    absl::StatusOr<std::unique_ptr<DnsCache>> own =
        DnsCache::Create(options.dns);
    if (!own.ok()) return own.status();
    dns = std::move(*own);
  }

  CurlSlistPtr headers;
  for (const std::string& line : options.extra_headers) {
    curl_slist* grown = curl_slist_append(headers.get(), line.c_str());
    if (grown == nullptr)
      return absl::ResourceExhaustedError("curl_slist_append failed");
    headers.release();  // Now owned by `grown`, which is the same list.
    headers.reset(grown);
  }
  // One share handle for TLS sessions and DNS answers, across the multi
  // handles. Connections are not shared through it: each host's live in the
  // one multi handle its transfers go to. libcurl 7.88 keeps only 8 TLS
  // sessions in a share handle (lib/share.c); TlsSessionCache keeps one per
  // host name beyond that.
  CurlSharePtr share(curl_share_init());
  if (share == nullptr ||
      curl_share_setopt(share.get(), CURLSHOPT_SHARE,
                        CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK ||
      curl_share_setopt(share.get(), CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) !=
          CURLSHE_OK) {
    return absl::ResourceExhaustedError("curl_share_init failed");
  }
  const long max_idle = IdleConnectionCap(options);
  // Each multi handle holds at most kIdleConnectionsPerMulti idle
  // (fetch/internal/curl_multis.h says why).
  const long multis =
      (max_idle + fetch_internal::kIdleConnectionsPerMulti - 1) /
      fetch_internal::kIdleConnectionsPerMulti;
  const long idle_each = (max_idle + multis - 1) / multis;
  // Only a backstop: IdleConnections keeps each cache under idle_each + the
  // transfers in flight, so curl's eviction, which leaks a bundle per host
  // (fetch/internal/idle_connections.h), does not run. Redirects curl
  // follows itself may hold one more connection each.
  const long max_connects =
      idle_each + 2 * static_cast<long>(options.max_concurrent_transfers);
  absl::StatusOr<std::unique_ptr<fetch_internal::CurlMultis>> set =
      fetch_internal::CurlMultis::Create(static_cast<int>(multis), max_connects,
                                         options.http2);
  if (!set.ok()) return set.status();
  return std::unique_ptr<Fetcher>(new Fetcher(
      std::move(options), std::move(*set), std::move(headers), std::move(share),
      max_idle, static_cast<size_t>(idle_each), std::move(dns)));
}

Fetcher::Fetcher(FetchOptions options, std::unique_ptr<CurlMultis> multis,
                 CurlSlistPtr extra_headers, CurlSharePtr share,
                 long max_idle_connections, size_t idle_each,
                 std::shared_ptr<DnsCache> dns)
    : options_(std::move(options)),
      extra_headers_(std::move(extra_headers)),
      addresses_(options_),
      share_(std::move(share)),
      max_idle_connections_(max_idle_connections),
      multis_(std::move(multis)),
      dns_(std::move(dns)) {
  // A margin over curl's age limit: it closes a connection past it only on
  // its next once-a-second pass, so these counts stay an upper bound.
  idle_.reserve(static_cast<size_t>(multis_->size()));
  for (int i = 0; i < multis_->size(); ++i) {
    idle_.emplace_back(idle_each,
                       absl::Seconds(fetch_internal::kMaxIdleSeconds + 2));
  }
  dns_->SetListener([this] {
    dns_answered_.store(true, std::memory_order_release);
    multis_->Wakeup();
  });
}

Fetcher::~Fetcher() {
  dns_->SetListener(nullptr);  // No wakeup of multis_ from now on.
  // An easy handle must leave its multi handle before either is cleaned up.
  for (auto& [transfer, running] : running_)
    curl_multi_remove_handle(multis_->multi(running.multi), transfer->easy());
  running_.clear();
}

void Fetcher::Submit(FetchRequest request) {
  queue_.push_back(std::make_unique<Transfer>(
      std::move(request), options_, extra_headers_.get(), addresses_,
      share_.get(), &tls_sessions_, &counters_));
}

void Fetcher::Wakeup() {
  woken_.store(true, std::memory_order_release);
  multis_->Wakeup();
}

size_t Fetcher::in_flight() const {
  return queue_.size() + resolving_count_ + running_.size();
}

size_t Fetcher::idle_connections() const {
  size_t idle = 0;
  for (const fetch_internal::IdleConnections& each : idle_) idle += each.idle();
  return idle;
}

int Fetcher::MultiOf(const std::string& idle_key) const {
  if (multis_->size() == 1) return 0;
  // The same host always to the same handle: its idle connections are there.
  return static_cast<int>(std::hash<std::string>{}(idle_key) %
                          static_cast<size_t>(multis_->size()));
}

FetchCounters Fetcher::counters() const {
  FetchCounters c = counters_;
  c.dns_lookups += dns_->stats().lookups;
  return c;
}

bool Fetcher::Resolve(std::unique_ptr<Transfer>& transfer,
                      std::vector<FetchResponse>* out) {
  const std::string& host = transfer->host();
  // curl reports an unparsable URL itself; an IP literal needs no lookup.
  if (transfer->has_addresses() || host.empty() || DnsCache::IsIpLiteral(host))
    return true;
  DnsAnswer answer = dns_->Lookup(host);
  switch (answer.state) {
    case DnsAnswer::kResolved:
      transfer->UseAddresses(answer.addresses);
      return true;
    case DnsAnswer::kFailed:
      out->push_back(transfer->DnsFailure(answer.error));
      return false;
    case DnsAnswer::kPending:
      resolving_[host].push_back(std::move(transfer));
      ++resolving_count_;
      return false;
  }
  return false;
}

void Fetcher::TakeResolved(std::vector<FetchResponse>* out) {
  if (!dns_answered_.exchange(false, std::memory_order_acq_rel)) return;
  for (auto it = resolving_.begin(); it != resolving_.end();) {
    auto current = it++;
    // The answer as stored, even if already expired (a TTL of 0): these
    // transfers asked before it came.
    const DnsAnswer answer = dns_->Peek(current->first);
    if (answer.state == DnsAnswer::kPending) continue;
    std::vector<std::unique_ptr<Transfer>>& waiting = current->second;
    if (answer.state == DnsAnswer::kFailed) {
      for (auto& t : waiting) out->push_back(t->DnsFailure(answer.error));
    } else {
      // Back at the head of the queue, in their order: they were due first.
      for (auto t = waiting.rbegin(); t != waiting.rend(); ++t) {
        (*t)->UseAddresses(answer.addresses);
        queue_.push_front(std::move(*t));
      }
    }
    resolving_count_ -= waiting.size();
    resolving_.erase(current);
  }
}

void Fetcher::StartQueued(std::vector<FetchResponse>* out) {
  TakeResolved(out);
  const size_t cap = static_cast<size_t>(options_.max_concurrent_transfers);
  while (running_.size() < cap && !queue_.empty()) {
    std::unique_ptr<Transfer> transfer = std::move(queue_.front());
    queue_.pop_front();
    if (!Resolve(transfer, out)) continue;
    // It takes out of curl's DNS cache the hosts no running transfer uses
    // (curl_dns_entries.h); lost if it fails to start: those entries then
    // expire from curl's cache after dns.min_ttl.
    if (transfer->has_addresses())
      transfer->DropCurlDnsEntries(curl_dns_.TakeUnused());
    const std::string idle_key = transfer->curl_dns_key();
    const int multi = MultiOf(idle_key);
    fetch_internal::IdleConnections& idle = idle_[multi];
    transfer->set_keep_connection(
        !transfer->host().empty() &&
        idle.Start(idle_key,
                   transfer->request().next_request_in <
                       absl::Seconds(fetch_internal::kMaxIdleSeconds),
                   absl::Now()));
    // The easy handle is made just in time, so a queued request costs no
    // curl state.
    absl::Status started = transfer->Configure();
    if (started.ok()) {
      if (CURLMcode rc =
              curl_multi_add_handle(multis_->multi(multi), transfer->easy());
          rc != CURLM_OK) {
        started = absl::ResourceExhaustedError(
            absl::StrCat("curl_multi_add_handle: ", curl_multi_strerror(rc)));
      }
    }
    if (!started.ok()) {
      idle.Finish(idle_key, transfer->keep_connection(), false, absl::Now());
      out->push_back(transfer->FailedResponse(started));
      continue;
    }
    if (transfer->has_addresses()) curl_dns_.Started(transfer->curl_dns_key());
    Transfer* key = transfer.get();
    running_.emplace(key, Running{std::move(transfer), multi});
  }
}

void Fetcher::CollectCompleted(std::vector<FetchResponse>* out) {
  for (int multi = 0; multi < multis_->size(); ++multi) {
    int messages_left = 0;
    while (CURLMsg* message =
               curl_multi_info_read(multis_->multi(multi), &messages_left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL* easy = message->easy_handle;
      const CURLcode code =
          message->data.result;  // `message` dies with remove_handle.
      char* context = nullptr;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, &context);
      curl_multi_remove_handle(multis_->multi(multi), easy);
      auto node = running_.extract(reinterpret_cast<Transfer*>(context));
      if (node.empty()) continue;  // Not ours; cannot happen.
      Transfer& transfer = *node.mapped().transfer;
      if (transfer.has_addresses()) curl_dns_.Finished(transfer.curl_dns_key());
      // curl keeps the connection of a transfer that ended without error
      // (unless the server said close: then it is counted until it ages out).
      idle_[multi].Finish(transfer.curl_dns_key(), transfer.keep_connection(),
                          code == CURLE_OK, absl::Now());
      out->push_back(transfer.Finish(code));
    }
  }
}

std::vector<FetchResponse> Fetcher::Poll(absl::Duration max_wait) {
  const absl::Time deadline = absl::Now() + max_wait;
  std::vector<FetchResponse> out;
  while (true) {
    StartQueued(&out);
    // No wait when StartQueued already has responses (failed lookups).
    multis_->Run(out.empty() ? deadline - absl::Now() : absl::ZeroDuration());
    CollectCompleted(&out);
    if (!out.empty() || woken_.exchange(false, std::memory_order_acq_rel))
      break;
    if (absl::Now() >= deadline) break;
  }
  return out;
}

}  // namespace sieve
