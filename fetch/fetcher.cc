#include "fetch/fetcher.h"

#include <curl/curl.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fetch/curl_init.h"
#include "fetch/internal/transfer.h"
#include "fetch/retry_policy.h"

namespace sieve {

using fetch_internal::CurlMultiPtr;
using fetch_internal::CurlSlistPtr;
using fetch_internal::Transfer;

absl::StatusOr<std::unique_ptr<Fetcher>> Fetcher::Create(FetchOptions options) {
  if (absl::Status s = ValidateFetchOptions(options); !s.ok()) return s;
  if (absl::Status s = InitCurl(); !s.ok()) return s;

  CurlSlistPtr headers;
  for (const std::string& line : options.extra_headers) {
    curl_slist* grown = curl_slist_append(headers.get(), line.c_str());
    if (grown == nullptr)
      return absl::ResourceExhaustedError("curl_slist_append failed");
    headers.release();  // Now owned by `grown`, which is the same list.
    headers.reset(grown);
  }
  CurlMultiPtr multi(curl_multi_init());
  if (multi == nullptr)
    return absl::ResourceExhaustedError("curl_multi_init failed");
  CURLMcode rc =
      curl_multi_setopt(multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS,
                        static_cast<long>(options.max_connections_per_host));
  if (rc == CURLM_OK) {
    rc = curl_multi_setopt(
        multi.get(), CURLMOPT_PIPELINING,
        options.http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING);
  }
  if (rc != CURLM_OK) {
    return absl::InternalError(
        absl::StrCat("curl_multi_setopt: ", curl_multi_strerror(rc)));
  }
  return std::unique_ptr<Fetcher>(
      new Fetcher(std::move(options), std::move(multi), std::move(headers)));
}

Fetcher::Fetcher(FetchOptions options, CurlMultiPtr multi,
                 CurlSlistPtr extra_headers)
    : options_(std::move(options)),
      extra_headers_(std::move(extra_headers)),
      multi_(std::move(multi)),
      queue_(options_.max_connections_per_host) {}

Fetcher::~Fetcher() {
  // An easy handle must leave its multi handle before either is cleaned up.
  for (auto& [transfer, owned] : running_)
    curl_multi_remove_handle(multi_.get(), transfer->easy());
  running_.clear();
}

void Fetcher::Submit(FetchRequest request) {
  queue_.Push(std::make_unique<Transfer>(std::move(request), options_,
                                         extra_headers_.get()));
}

void Fetcher::Wakeup() {
  woken_.store(true, std::memory_order_release);
  curl_multi_wakeup(multi_.get());
}

size_t Fetcher::in_flight() const {
  return queue_.size() + running_.size() + waiting_retry_.size();
}

void Fetcher::PromoteDueRetries(absl::Time now) {
  // Due retries go to the front of the queue, oldest first: they were submitted
  // before anything still queued.
  auto due_end = waiting_retry_.upper_bound(now);
  for (auto it = std::make_reverse_iterator(due_end);
       it != waiting_retry_.rend(); ++it) {
    queue_.PushFront(std::move(it->second));
  }
  waiting_retry_.erase(waiting_retry_.begin(), due_end);
}

void Fetcher::StartQueued(std::vector<FetchResponse>* out) {
  const size_t cap = static_cast<size_t>(options_.max_concurrent_transfers);
  while (running_.size() < cap) {
    std::unique_ptr<Transfer> transfer = queue_.PopStartable();
    if (transfer == nullptr) break;
    transfer->count_attempt();
    absl::Status started = absl::OkStatus();
    if (transfer->easy() == nullptr) {  // The easy handle is made just in time.
      started = transfer->Configure();
    }
    if (started.ok()) {
      if (CURLMcode rc = curl_multi_add_handle(multi_.get(), transfer->easy());
          rc != CURLM_OK) {
        started = absl::ResourceExhaustedError(
            absl::StrCat("curl_multi_add_handle: ", curl_multi_strerror(rc)));
      }
    }
    if (!started.ok()) {
      queue_.Release(transfer->host_key());
      out->push_back(transfer->FailedResponse(started));
      continue;
    }
    Transfer* key = transfer.get();
    running_.emplace(key, std::move(transfer));
  }
}

void Fetcher::CollectCompleted(std::vector<FetchResponse>* out) {
  int messages_left = 0;
  while (CURLMsg* message =
             curl_multi_info_read(multi_.get(), &messages_left)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    const CURLcode code =
        message->data.result;  // `message` dies with remove_handle.
    char* context = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &context);
    curl_multi_remove_handle(multi_.get(), easy);
    auto node = running_.extract(reinterpret_cast<Transfer*>(context));
    if (node.empty()) continue;  // Not ours; cannot happen.
    std::unique_ptr<Transfer> transfer = std::move(node.mapped());
    queue_.Release(transfer->host_key());

    FetchResponse response = transfer->Finish(code);
    const absl::Time now = absl::Now();
    const RetryDecision retry = DecideRetry(response, transfer->attempts(),
                                            options_.retry, now, jitter_);
    if (retry.retry) {
      transfer->PrepareRetry();
      waiting_retry_.emplace(now + retry.delay, std::move(transfer));
    } else {
      out->push_back(std::move(response));
    }
  }
}

std::vector<FetchResponse> Fetcher::Poll(absl::Duration max_wait) {
  const absl::Time deadline = absl::Now() + max_wait;
  std::vector<FetchResponse> out;
  while (true) {
    PromoteDueRetries(absl::Now());
    StartQueued(&out);
    int still_running = 0;
    curl_multi_perform(multi_.get(), &still_running);
    CollectCompleted(&out);
    if (!out.empty() || woken_.exchange(false, std::memory_order_acq_rel))
      break;

    const absl::Time now = absl::Now();
    if (now >= deadline) break;
    absl::Duration wait =
        std::min(deadline - now, absl::Hours(1));  // Fits an int of ms.
    if (!waiting_retry_.empty()) {
      wait = std::min(wait, std::max(absl::ZeroDuration(),
                                     waiting_retry_.begin()->first - now));
    }
    // Round up: a wait rounded down to 0 ms would spin until the deadline.
    const int wait_ms = static_cast<int>(
        absl::ToInt64Milliseconds(absl::Ceil(wait, absl::Milliseconds(1))));
    curl_multi_poll(multi_.get(), nullptr, 0, wait_ms, nullptr);
  }
  return out;
}

}  // namespace sieve
