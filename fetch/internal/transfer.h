// fetch/internal/transfer.h: one request's curl easy handle and the state its
// callbacks fill in. Internal to sieve::fetch; the Fetcher owns Transfers and
// drives them through its multi handle.
#ifndef SIEVE_FETCH_INTERNAL_TRANSFER_H_
#define SIEVE_FETCH_INTERNAL_TRANSFER_H_

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fetch/fetch_counters.h"
#include "fetch/fetch_options.h"
#include "fetch/fetch_types.h"
#include "fetch/internal/address_policy.h"
#include "fetch/internal/curl_handles.h"
#include "fetch/internal/tls_session_cache.h"
#include "fetch/internal/wire_recorder.h"

namespace sieve::fetch_internal {

// Maps a curl result to our error kind (kNone for CURLE_OK).
FetchError ClassifyCurlCode(CURLcode code);

// True when `url` is absolute and its scheme is http or https (parsed with
// curl's URL API).
bool HasWebScheme(const char* url);

class Transfer {
 public:
  // `options`, `extra_headers`, `addresses`, `share` and `counters` must
  // outlive the Transfer (the Fetcher owns them). `share` (TLS sessions, DNS)
  // may be null; `counters` gets this transfer's connections, TLS handshakes
  // and DNS lookups.
  Transfer(FetchRequest request, const FetchOptions& options,
           const curl_slist* extra_headers, const AddressPolicy& addresses,
           CURLSH* share, TlsSessionCache* tls_sessions,
           FetchCounters* counters);
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Creates the easy handle and sets every option; CURLOPT_PRIVATE points at
  // this Transfer. An error (out of memory, a URL curl rejects at once) is
  // returned as the response instead by the caller: see FailedResponse.
  [[nodiscard]] absl::Status Configure();

  // Builds the response of the attempt that just finished with `code`.
  FetchResponse Finish(CURLcode code);

  // A response for a transfer that never started (Configure failed).
  FetchResponse FailedResponse(const absl::Status& status) const;
  // A response for a transfer whose host name did not resolve.
  FetchResponse DnsFailure(const std::string& message) const;

  // The URL's host as curl parses it ("[::1]" for IPv6) and its port (the
  // scheme's default when none); empty host when the URL does not parse.
  const std::string& host() const { return host_; }
  // Gives curl the addresses of host() (CURLOPT_RESOLVE), so it does not
  // resolve the name itself. REQUIRES: before Configure; `addresses` not
  // empty.
  void UseAddresses(const std::vector<std::string>& addresses);
  bool has_addresses() const { return resolve_ != nullptr; }
  // Has curl drop these entries of its DNS cache (CurlDnsEntries keys) when
  // this transfer starts, before adding its own. REQUIRES: after
  // UseAddresses, before Configure.
  void DropCurlDnsEntries(const std::vector<std::string>& keys);
  // This transfer's entry in curl's DNS cache (CurlDnsEntries::Key).
  std::string curl_dns_key() const;

  // Whether curl may keep this transfer's connection open afterwards
  // (otherwise CURLOPT_FORBID_REUSE: it is closed at the end). Decided by the
  // Fetcher's IdleConnections (fetch/internal/idle_connections.h).
  // REQUIRES: before Configure. Default: true.
  void set_keep_connection(bool keep) { keep_connection_ = keep; }
  bool keep_connection() const { return keep_connection_; }

  CURL* easy() const { return easy_.get(); }
  const FetchRequest& request() const { return request_; }

 private:
  static size_t OnBody(char* data, size_t size, size_t count, void* self);
  // CURLOPT_OPENSOCKETFUNCTION: opens the socket only when `addresses` allows
  // the address for the host of the URL curl is connecting for now.
  static curl_socket_t OnOpenSocket(void* self, curlsocktype purpose,
                                    curl_sockaddr* address);
  // CURLOPT_RESOLVER_START_FUNCTION: libcurl starts resolving a name its DNS
  // cache did not have.
  static int OnResolverStart(void* resolver, void* reserved, void* self);
  // CURLOPT_PREREQFUNCTION: a connection is ready (TLS included) and the
  // request is about to go; counts the TLS handshake of a new connection.
  static int OnPrerequest(void* self, char* primary_ip, char* local_ip,
                          int primary_port, int local_port);
  void ReadHeaders(ResponseHeaders* headers) const;
  void ReadTimings(FetchTimings* timings) const;

  const FetchRequest request_;
  const FetchOptions& options_;
  // request_.max_body_bytes, or the Fetcher's when the request sets none.
  const int64_t max_body_bytes_;
  const curl_slist* const extra_headers_;
  const AddressPolicy& addresses_;
  std::string host_;
  long port_ = 0;
  // CURLOPT_RESOLVE's "+host:port:addr,..." line, when UseAddresses ran,
  // after the "-host:port" lines of DropCurlDnsEntries. Declared before
  // easy_, which reads it.
  std::string resolve_line_;
  CurlSlistPtr resolve_;
  // The Fetcher's headers with this request's own (FetchRequest::headers,
  // If-None-Match, If-Modified-Since); null when it has none.
  CurlSlistPtr request_headers_;
  CURLSH* const share_;
  TlsSessionCache* const tls_sessions_;
  FetchCounters* const counters_;
  // CURLINFO_NUM_CONNECTS when OnPrerequest last ran: a larger value there
  // means the transfer is on a connection it opened.
  long connects_seen_ = 0;
  // Why OnOpenSocket refused an address; empty when it refused none.
  std::string blocked_;
  CurlEasyPtr easy_;
  std::string body_;
  bool truncated_ = false;
  bool keep_connection_ = true;
  WireRecorder wire_;  // Used only with FetchOptions::keep_raw.
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_TRANSFER_H_
