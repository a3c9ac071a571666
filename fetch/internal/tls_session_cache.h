// fetch/internal/tls_session_cache.h: TLS sessions kept per host name for the
// whole crawl, so a new connection to a host resumes its session (an
// abbreviated handshake: no certificate chain sent or verified).
//
// Why not libcurl's own: libcurl 7.88 keeps 8 sessions in a share handle
// (lib/share.c) and 5 in an easy handle, so among hundreds of hosts in
// rotation a host's session is long gone when it connects again (measured in
// tests/crawler/crawl/crawl_broad_web_test.cc: 0 resumptions over 400
// connections to 200 hosts). This cache hooks OpenSSL through
// CURLOPT_SSL_CTX_FUNCTION: it chains libcurl's new-session callback to keep
// its own reference, and offers the host's session when a handshake starts
// without one. Keyed by the SNI name, so IP-literal hosts (no SNI) fall back
// to libcurl's cache. Internal to sieve::fetch; single-threaded like the
// Fetcher.
#ifndef SIEVE_FETCH_INTERNAL_TLS_SESSION_CACHE_H_
#define SIEVE_FETCH_INTERNAL_TLS_SESSION_CACHE_H_

#include <curl/curl.h>
#include <openssl/ssl.h>

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace sieve::fetch_internal {

class TlsSessionCache {
 public:
  // Keeps at most `capacity` hosts' sessions (an arbitrary one is dropped to
  // make room). Each costs about 1-2 KB.
  explicit TlsSessionCache(size_t capacity) : capacity_(capacity) {}
  ~TlsSessionCache();
  TlsSessionCache(const TlsSessionCache&) = delete;
  TlsSessionCache& operator=(const TlsSessionCache&) = delete;

  // CURLOPT_SSL_CTX_FUNCTION, with CURLOPT_SSL_CTX_DATA = the cache, which
  // must outlive every connection (the Fetcher's multi handle).
  static CURLcode OnSslContext(CURL* easy, void* ssl_ctx, void* self);

  size_t size() const { return sessions_.size(); }

 private:
  static int OnNewSession(SSL* ssl, SSL_SESSION* session);
  static void OnInfo(const SSL* ssl, int where, int ret);
  static TlsSessionCache* Of(const SSL* ssl);

  const size_t capacity_;
  absl::flat_hash_map<std::string, SSL_SESSION*> sessions_;  // Owned refs.
  // libcurl's own new-session callback, called first.
  int (*curl_new_session_)(SSL*, SSL_SESSION*) = nullptr;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_TLS_SESSION_CACHE_H_
