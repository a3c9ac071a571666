#include "fetch/internal/tls_session_cache.h"

namespace sieve::fetch_internal {
namespace {

// OpenSSL's slot for the cache on each SSL_CTX libcurl makes. OpenSSL hands
// out ex_data indexes process-wide; a function-local static asks once.
int CacheIndex() {
  static const int index =
      SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

}  // namespace

TlsSessionCache::~TlsSessionCache() {
  for (auto& [host, session] : sessions_) SSL_SESSION_free(session);
}

TlsSessionCache* TlsSessionCache::Of(const SSL* ssl) {
  return static_cast<TlsSessionCache*>(
      SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), CacheIndex()));
}

CURLcode TlsSessionCache::OnSslContext(CURL* /*easy*/, void* ssl_ctx,
                                       void* self) {
  auto* cache = static_cast<TlsSessionCache*>(self);
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  if (SSL_CTX_set_ex_data(ctx, CacheIndex(), cache) != 1) return CURLE_OK;
  // libcurl installed its callback (and client session caching) before
  // calling us; keep it in the chain.
  int (*curl_cb)(SSL*, SSL_SESSION*) = SSL_CTX_sess_get_new_cb(ctx);
  if (curl_cb != &TlsSessionCache::OnNewSession)
    cache->curl_new_session_ = curl_cb;
  SSL_CTX_set_session_cache_mode(
      ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
  SSL_CTX_sess_set_new_cb(ctx, &TlsSessionCache::OnNewSession);
  SSL_CTX_set_info_callback(ctx, &TlsSessionCache::OnInfo);
  return CURLE_OK;
}

int TlsSessionCache::OnNewSession(SSL* ssl, SSL_SESSION* session) {
  TlsSessionCache* cache = Of(ssl);
  if (cache == nullptr) return 0;
  // 1 when libcurl kept OpenSSL's reference; ours is taken separately.
  const int kept = cache->curl_new_session_ != nullptr
                       ? cache->curl_new_session_(ssl, session)
                       : 0;
  const char* host = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (host == nullptr) return kept;
  auto it = cache->sessions_.find(host);
  if (it == cache->sessions_.end()) {
    if (cache->sessions_.size() >= cache->capacity_) {
      SSL_SESSION_free(cache->sessions_.begin()->second);
      cache->sessions_.erase(cache->sessions_.begin());
    }
    it = cache->sessions_.emplace(host, nullptr).first;
  }
  SSL_SESSION_up_ref(session);
  if (it->second != nullptr) SSL_SESSION_free(it->second);
  it->second = session;
  return kept;
}

void TlsSessionCache::OnInfo(const SSL* ssl, int where, int /*ret*/) {
  // Before the ClientHello is built: offer the host's session unless libcurl
  // already set one from its own cache.
  if ((where & SSL_CB_HANDSHAKE_START) == 0 || SSL_get_session(ssl) != nullptr)
    return;
  TlsSessionCache* cache = Of(ssl);
  const char* host = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (cache == nullptr || host == nullptr) return;
  auto it = cache->sessions_.find(host);
  if (it == cache->sessions_.end() || SSL_SESSION_is_resumable(it->second) != 1)
    return;
  // OpenSSL passes the connection as const; setting its session before the
  // handshake's first message is what SSL_set_session is for.
  SSL_set_session(const_cast<SSL*>(ssl), it->second);
}

}  // namespace sieve::fetch_internal
