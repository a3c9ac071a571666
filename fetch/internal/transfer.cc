#include "fetch/internal/transfer.h"

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "fetch/dns_cache.h"
#include "fetch/internal/curl_dns_entries.h"
#include "fetch/internal/idle_connections.h"
#include "fetch/internal/request_headers.h"

namespace sieve::fetch_internal {
namespace {

constexpr char kWebProtocols[] = "http,https";

long ToMillis(absl::Duration d) {
  return static_cast<long>(absl::ToInt64Milliseconds(d));
}

// Every value of the header `name` in the last response, joined with ", " (RFC
// 9110 5.3 allows combining field lines this way). Empty when absent.
std::string HeaderValue(CURL* easy, const char* name) {
  curl_header* header = nullptr;
  if (curl_easy_header(easy, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK)
    return "";
  std::string value = header->value;
  const size_t amount =
      header->amount;  // `header` is overwritten by the next call.
  for (size_t i = 1; i < amount; ++i) {
    if (curl_easy_header(easy, name, i, CURLH_HEADER, -1, &header) ==
        CURLHE_OK) {
      absl::StrAppend(&value, ", ", header->value);
    }
  }
  return value;
}

absl::Duration InfoDuration(CURL* easy, CURLINFO info) {
  curl_off_t micros = 0;
  if (curl_easy_getinfo(easy, info, &micros) != CURLE_OK)
    return absl::ZeroDuration();
  return absl::Microseconds(micros);
}

}  // namespace

FetchError ClassifyCurlCode(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return FetchError::kNone;
    case CURLE_URL_MALFORMAT:
      return FetchError::kInvalidUrl;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return FetchError::kDns;
    case CURLE_COULDNT_CONNECT:
      return FetchError::kConnect;
    case CURLE_OPERATION_TIMEDOUT:  // Also the low-speed limit ("Operation too
                                    // slow").
      return FetchError::kTimeout;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_USE_SSL_FAILED:
      return FetchError::kTls;
    case CURLE_FILESIZE_EXCEEDED:
      return FetchError::kTooLarge;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
    case CURLE_BAD_CONTENT_ENCODING:
      return FetchError::kProtocol;
    case CURLE_TOO_MANY_REDIRECTS:
      return FetchError::kTooManyRedirects;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
      return FetchError::kReset;
    default:
      return FetchError::kOther;
  }
}

bool HasWebScheme(const char* url) {
  CurlUrlPtr parsed(curl_url());
  if (parsed == nullptr ||
      curl_url_set(parsed.get(), CURLUPART_URL, url,
                   CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    return false;
  }
  char* scheme = nullptr;
  if (curl_url_get(parsed.get(), CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK)
    return false;
  const bool web = absl::EqualsIgnoreCase(scheme, "http") ||
                   absl::EqualsIgnoreCase(scheme, "https");
  curl_free(scheme);
  return web;
}

namespace {

// Host of `url` as curl parses it ("[::1]" for IPv6), and its port (the
// scheme's default when none) in `*port` when not null; empty when it does
// not parse.
std::string UrlHost(const char* url, long* port = nullptr) {
  CurlUrlPtr parsed(curl_url());
  if (parsed == nullptr || url == nullptr ||
      curl_url_set(parsed.get(), CURLUPART_URL, url, 0) != CURLUE_OK) {
    return "";
  }
  char* host = nullptr;
  if (curl_url_get(parsed.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK)
    return "";
  std::string out = host;
  curl_free(host);
  char* port_text = nullptr;
  if (port != nullptr && curl_url_get(parsed.get(), CURLUPART_PORT, &port_text,
                                      CURLU_DEFAULT_PORT) == CURLUE_OK) {
    *port = std::strtol(port_text, nullptr, 10);
    curl_free(port_text);
  }
  return out;
}

}  // namespace

Transfer::Transfer(FetchRequest request, const FetchOptions& options,
                   const curl_slist* extra_headers,
                   const AddressPolicy& addresses, CURLSH* share,
                   TlsSessionCache* tls_sessions, FetchCounters* counters)
    : request_(std::move(request)),
      options_(options),
      max_body_bytes_(request_.max_body_bytes > 0 ? request_.max_body_bytes
                                                  : options.max_body_bytes),
      extra_headers_(extra_headers),
      addresses_(addresses),
      share_(share),
      tls_sessions_(tls_sessions),
      counters_(counters) {
  host_ = UrlHost(request_.url.c_str(), &port_);
}

void Transfer::UseAddresses(const std::vector<std::string>& addresses) {
  // "+": the entry may expire from curl's (shared) DNS cache like one curl
  // resolved; each transfer to the host sets it again from the DnsCache.
  std::string line = absl::StrCat("+", host_, ":", port_, ":");
  for (size_t i = 0; i < addresses.size(); ++i) {
    const bool v6 = addresses[i].find(':') != std::string::npos;
    absl::StrAppend(&line, i == 0 ? "" : ",", v6 ? "[" : "", addresses[i],
                    v6 ? "]" : "");
  }
  resolve_line_ = std::move(line);
  resolve_.reset(curl_slist_append(nullptr, resolve_line_.c_str()));
}

void Transfer::DropCurlDnsEntries(const std::vector<std::string>& keys) {
  if (keys.empty() || resolve_ == nullptr) return;
  // curl reads the lines in order at the start of the transfer
  // (Curl_loadhostpairs in its lib/hostip.c): the removals first, so this
  // host's own entry, if among them, is added back after.
  CurlSlistPtr lines;
  for (const std::string& key : keys) {
    if (curl_slist* grown =
            curl_slist_append(lines.get(), absl::StrCat("-", key).c_str())) {
      lines.release();  // Now owned by `grown`, the same list.
      lines.reset(grown);
    }
  }
  if (curl_slist* grown =
          curl_slist_append(lines.get(), resolve_line_.c_str())) {
    lines.release();
    lines.reset(grown);
    resolve_ = std::move(lines);
  }
  // Out of memory: the transfer keeps its own line; the entries left behind
  // expire from curl's cache after dns.min_ttl, as before.
}

std::string Transfer::curl_dns_key() const {
  return CurlDnsEntries::Key(host_, port_);
}

int Transfer::OnResolverStart(void* /*resolver*/, void* /*reserved*/,
                              void* self) {
  // Only a name the DnsCache did not resolve gets here: the target of a
  // redirect curl follows. An IP literal is no lookup.
  auto* transfer = static_cast<Transfer*>(self);
  char* url = nullptr;
  curl_easy_getinfo(transfer->easy_.get(), CURLINFO_EFFECTIVE_URL, &url);
  if (!DnsCache::IsIpLiteral(UrlHost(url))) ++transfer->counters_->dns_lookups;
  return 0;  // Go on resolving.
}

int Transfer::OnPrerequest(void* self, char* /*primary_ip*/, char* /*local_ip*/,
                           int /*primary_port*/, int /*local_port*/) {
  auto* transfer = static_cast<Transfer*>(self);
  CURL* e = transfer->easy_.get();
  long connects = 0;
  curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
  if (connects <= transfer->connects_seen_) return CURL_PREREQFUNC_OK;
  transfer->connects_seen_ = connects;  // A connection this transfer opened.
  curl_tlssessioninfo* tls = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_TLS_SSL_PTR, &tls) == CURLE_OK &&
      tls != nullptr && tls->backend == CURLSSLBACKEND_OPENSSL &&
      tls->internals != nullptr) {
    if (SSL_session_reused(static_cast<SSL*>(tls->internals)) == 1) {
      ++transfer->counters_->tls_resumed_handshakes;
    } else {
      ++transfer->counters_->tls_full_handshakes;
    }
  }
  return CURL_PREREQFUNC_OK;
}

curl_socket_t Transfer::OnOpenSocket(void* self, curlsocktype /*purpose*/,
                                     curl_sockaddr* address) {
  auto* transfer = static_cast<Transfer*>(self);
  // The URL curl is connecting for right now: after a redirect curl followed,
  // CURLINFO_EFFECTIVE_URL already names the redirect's target.
  char* url = nullptr;
  curl_easy_getinfo(transfer->easy_.get(), CURLINFO_EFFECTIVE_URL, &url);
  // Through a proxy every socket goes to the proxy, which the user chose: it
  // is not checked (and the server's address is the proxy's to resolve).
  std::string refusal =
      transfer->options_.proxy.empty()
          ? transfer->addresses_.Refusal(UrlHost(url), address->addr)
          : std::string();
  if (!refusal.empty()) {
    transfer->blocked_ = std::move(refusal);
    return CURL_SOCKET_BAD;  // curl fails the attempt: CURLE_COULDNT_CONNECT.
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC,
                address->protocol);
}

absl::Status Transfer::Configure() {
  easy_.reset(curl_easy_init());
  if (easy_ == nullptr)
    return absl::ResourceExhaustedError("curl_easy_init failed");
  CURL* e = easy_.get();
  CURLcode rc = CURLE_OK;
  auto check = [&rc](CURLcode code) {
    if (rc == CURLE_OK) rc = code;
  };
  check(curl_easy_setopt(e, CURLOPT_PRIVATE, this));
  check(curl_easy_setopt(e, CURLOPT_URL, request_.url.c_str()));
  check(curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Transfer::OnBody));
  check(curl_easy_setopt(e, CURLOPT_WRITEDATA, this));
  check(
      curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &Transfer::OnOpenSocket));
  check(curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, this));
  check(curl_easy_setopt(e, CURLOPT_RESOLVER_START_FUNCTION,
                         &Transfer::OnResolverStart));
  check(curl_easy_setopt(e, CURLOPT_RESOLVER_START_DATA, this));
  check(curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, &Transfer::OnPrerequest));
  check(curl_easy_setopt(e, CURLOPT_PREREQDATA, this));
  // TLS sessions (and DNS answers) of earlier transfers: a new connection to a
  // host resumes its session instead of a full handshake.
  if (share_ != nullptr) check(curl_easy_setopt(e, CURLOPT_SHARE, share_));
  // ... and sessions of more hosts than libcurl keeps (tls_session_cache.h).
  if (tls_sessions_ != nullptr) {
    check(curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION,
                           &TlsSessionCache::OnSslContext));
    check(curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, tls_sessions_));
  }
  // Idle connections older than this are closed by curl, as the Fetcher's
  // IdleConnections counts them (libcurl's own default, made explicit).
  check(curl_easy_setopt(e, CURLOPT_MAXAGE_CONN, kMaxIdleSeconds));
  if (!keep_connection_) check(curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L));
  check(curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_buffer_));
  check(curl_easy_setopt(e, CURLOPT_NOSIGNAL,
                         1L));  // Threads: no SIGALRM for DNS timeouts.
  check(curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, kWebProtocols));
  check(curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, kWebProtocols));
  if (request_.max_redirects > 0) {
    check(curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L));
    check(curl_easy_setopt(e, CURLOPT_MAXREDIRS,
                           static_cast<long>(request_.max_redirects)));
  }
  check(curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         ToMillis(options_.connect_timeout)));
  check(curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                         ToMillis(options_.total_timeout)));
  if (options_.low_speed_limit > 0) {
    // curl counts whole seconds; round up so the bound is never shorter than
    // asked.
    const int64_t seconds = absl::ToInt64Seconds(
        absl::Ceil(options_.low_speed_time, absl::Seconds(1)));
    check(curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT,
                           static_cast<long>(options_.low_speed_limit)));
    check(curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
                           static_cast<long>(seconds)));
  }
  // Bodies are cut at the limit in OnBody, Content-Length or not. Only
  // skip_oversized refuses a declared length above it before reading the body.
  if (options_.skip_oversized) {
    check(curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE,
                           static_cast<curl_off_t>(max_body_bytes_)));
  }
  check(curl_easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str()));
  if (!options_.proxy.empty())
    check(curl_easy_setopt(e, CURLOPT_PROXY, options_.proxy.c_str()));
  // The request's own list when it has headers of its own (the shared one is
  // read by every transfer), built at the first attempt only.
  if (request_headers_ == nullptr) {
    request_headers_ = RequestHeaderList(extra_headers_, request_);
  }
  if (request_headers_ != nullptr) {
    check(curl_easy_setopt(e, CURLOPT_HTTPHEADER, request_headers_.get()));
  } else if (extra_headers_ != nullptr) {
    // curl reads the list but its API takes a non-const pointer.
    check(curl_easy_setopt(e, CURLOPT_HTTPHEADER,
                           const_cast<curl_slist*>(extra_headers_)));
  }
  if (request_.method == FetchMethod::kHead) {
    check(curl_easy_setopt(e, CURLOPT_NOBODY, 1L));
  }
  // HTTP/2 only over TLS (ALPN). Plain http:// stays HTTP/1.1 explicitly: with
  // HTTP/2 wanted, curl would hold every further transfer to the host until the
  // first response proved the connection cannot multiplex, so one silent server
  // would serialise the whole host.
  const bool h2 =
      options_.http2 && absl::StartsWithIgnoreCase(request_.url, "https:");
  check(curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                         h2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1));
  // With HTTP/2, wait for a connection that can multiplex rather than opening
  // another one.
  check(curl_easy_setopt(e, CURLOPT_PIPEWAIT, h2 ? 1L : 0L));
  // "" = every encoding this libcurl was built to decode.
  if (options_.compressed)
    check(curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""));
  // The host's addresses from the DnsCache; curl resolves only the targets of
  // redirects it follows, and keeps those answers dns.min_ttl.
  if (resolve_ != nullptr)
    check(curl_easy_setopt(e, CURLOPT_RESOLVE, resolve_.get()));
  check(curl_easy_setopt(
      e, CURLOPT_DNS_CACHE_TIMEOUT,
      static_cast<long>(absl::ToInt64Seconds(options_.dns.min_ttl))));
  check(curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER,
                         options_.verify_tls ? 1L : 0L));
  check(curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST,
                         options_.verify_tls ? 2L : 0L));
  if (!options_.ca_bundle.empty())
    check(curl_easy_setopt(e, CURLOPT_CAINFO, options_.ca_bundle.c_str()));
  // The CA bundle alone, not also libcurl's built-in CA directory
  // (/etc/ssl/certs on Debian, the same certificates): with a directory set,
  // libcurl 7.87+ does not cache the parsed bundle (CURLOPT_CA_CACHE_TIMEOUT,
  // 24 h by default) and parses all ~145 certificates again for every
  // connection: 29 ms of CPU per handshake instead of 1.3 ms, measured here
  // (docs/benchmarks.md, "TLS handshakes").
  check(curl_easy_setopt(e, CURLOPT_CAPATH, nullptr));
  if (options_.keep_raw) check(wire_.Configure(e, options_.compressed));
  if (rc != CURLE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("curl_easy_setopt: ", curl_easy_strerror(rc)));
  }
  return absl::OkStatus();
}

size_t Transfer::OnBody(char* data, size_t size, size_t count, void* self) {
  auto* transfer = static_cast<Transfer*>(self);
  const size_t bytes = size * count;
  if (transfer->body_.empty()) {
    // One allocation for a body of announced length, not a copy at each
    // doubling; at most the cap and 8 MiB, whatever a server announces.
    constexpr curl_off_t kMaxReserve = curl_off_t{8} << 20;
    curl_off_t length = -1;
    if (curl_easy_getinfo(transfer->easy_.get(),
                          CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
                          &length) == CURLE_OK &&
        length > 0) {
      transfer->body_.reserve(static_cast<size_t>(std::min<curl_off_t>(
          {length, transfer->max_body_bytes_, kMaxReserve})));
    }
  }
  const size_t room =
      static_cast<size_t>(transfer->max_body_bytes_) - transfer->body_.size();
  if (bytes > room) {
    // Keep what fits, then stop: returning less than `bytes` makes curl abort
    // the transfer with CURLE_WRITE_ERROR, which Finish turns back into success
    // with `truncated` set.
    transfer->body_.append(data, room);
    transfer->truncated_ = true;
    return 0;
  }
  transfer->body_.append(data, bytes);
  return bytes;
}

void Transfer::ReadHeaders(ResponseHeaders* headers) const {
  CURL* e = easy_.get();
  headers->content_type = HeaderValue(e, "Content-Type");
  headers->location = HeaderValue(e, "Location");
  headers->retry_after = HeaderValue(e, "Retry-After");
  headers->x_robots_tag = HeaderValue(e, "X-Robots-Tag");
  headers->etag = HeaderValue(e, "ETag");
  headers->last_modified = HeaderValue(e, "Last-Modified");
  curl_header* header = nullptr;
  if (curl_easy_header(e, "Set-Cookie", 0, CURLH_HEADER, -1, &header) ==
      CURLHE_OK) {
    const size_t amount = header->amount;  // Overwritten by the next call.
    headers->set_cookie.reserve(amount);
    headers->set_cookie.emplace_back(header->value);
    for (size_t i = 1; i < amount; ++i) {
      if (curl_easy_header(e, "Set-Cookie", i, CURLH_HEADER, -1, &header) ==
          CURLHE_OK) {
        headers->set_cookie.emplace_back(header->value);
      }
    }
  }
  if (request_.keep_all_headers) {
    for (curl_header* h = curl_easy_nextheader(e, CURLH_HEADER, -1, nullptr);
         h != nullptr; h = curl_easy_nextheader(e, CURLH_HEADER, -1, h)) {
      headers->all.emplace_back(h->name, h->value);
    }
  }
  int64_t length = 0;
  if (absl::SimpleAtoi(HeaderValue(e, "Content-Length"), &length) &&
      length >= 0) {
    headers->content_length = length;
  }
}

void Transfer::ReadTimings(FetchTimings* timings) const {
  CURL* e = easy_.get();
  timings->dns = InfoDuration(e, CURLINFO_NAMELOOKUP_TIME_T);
  timings->connect = InfoDuration(e, CURLINFO_CONNECT_TIME_T);
  timings->tls = InfoDuration(e, CURLINFO_APPCONNECT_TIME_T);
  timings->first_byte = InfoDuration(e, CURLINFO_STARTTRANSFER_TIME_T);
  timings->total = InfoDuration(e, CURLINFO_TOTAL_TIME_T);
}

FetchResponse Transfer::Finish(CURLcode code) {
  CURL* e = easy_.get();
  FetchResponse response;
  response.id = request_.id;
  response.url = request_.url;
  char* effective_url = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_EFFECTIVE_URL, &effective_url) ==
          CURLE_OK &&
      effective_url != nullptr) {
    response.effective_url = effective_url;
  }
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  ReadHeaders(&response.headers);
  ReadTimings(&response.timings);
  long header_bytes = 0;
  curl_off_t body_bytes = 0;
  curl_easy_getinfo(e, CURLINFO_HEADER_SIZE, &header_bytes);
  curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &body_bytes);
  response.wire_bytes = header_bytes + body_bytes;
  char* ip = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK &&
      ip != nullptr) {
    response.ip_address = ip;
  }
  long version = 0;
  curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &version);
  switch (version) {
    case CURL_HTTP_VERSION_1_0:
      response.http_version = "1.0";
      break;
    case CURL_HTTP_VERSION_1_1:
      response.http_version = "1.1";
      break;
    case CURL_HTTP_VERSION_2_0:
      response.http_version = "2";
      break;
    case CURL_HTTP_VERSION_3:
      response.http_version = "3";
      break;
    default:
      break;  // No response.
  }
  long connects = 0;
  curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
  counters_->connections_opened += static_cast<uint64_t>(connects);
  if (connects == 0 && status != 0) ++counters_->connections_reused;
  response.truncated = truncated_;
  response.body = std::move(body_);
  body_.clear();
  if (options_.keep_raw) {
    code = wire_.Finish(e, code, truncated_, max_body_bytes_, &response);
  }

  if (code == CURLE_WRITE_ERROR && truncated_)
    code = CURLE_OK;  // We stopped it on purpose.
  response.error = ClassifyCurlCode(code);
  if (code == CURLE_COULDNT_CONNECT && !blocked_.empty()) {
    // Every address curl tried was refused by us (or the rest refused the
    // connection): no byte reached a private address.
    response.error = FetchError::kBlockedAddress;
    response.error_message = blocked_;
    return response;
  }
  if (response.error != FetchError::kNone) {
    response.error_message =
        error_buffer_[0] != '\0' ? error_buffer_ : curl_easy_strerror(code);
    return response;
  }
  // A redirect curl did not follow: resolve Location against the URL fetched
  // (curl does it, RFC 3986 5.2) and refuse schemes other than http/https.
  char* redirect_url = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &redirect_url) == CURLE_OK &&
      redirect_url != nullptr) {
    if (HasWebScheme(redirect_url)) {
      response.redirect_url = redirect_url;
    } else {
      response.error = FetchError::kProtocol;
      response.error_message = absl::StrCat(
          "redirect to a scheme other than http/https refused: ", redirect_url);
    }
  }
  return response;
}

FetchResponse Transfer::DnsFailure(const std::string& message) const {
  FetchResponse response;
  response.id = request_.id;
  response.url = request_.url;
  response.error = FetchError::kDns;
  response.error_message = message;
  return response;
}

FetchResponse Transfer::FailedResponse(const absl::Status& status) const {
  FetchResponse response;
  response.id = request_.id;
  response.url = request_.url;
  response.error = status.code() == absl::StatusCode::kResourceExhausted
                       ? FetchError::kOther
                       : FetchError::kInvalidUrl;
  response.error_message = std::string(status.message());
  return response;
}

}  // namespace sieve::fetch_internal
