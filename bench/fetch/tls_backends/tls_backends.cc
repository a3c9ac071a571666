// Client CPU of libcurl's TLS backends on Debian 12: one libcurl flavour per
// build of this file (bench/fetch/tls_backends/tls_backends.sh links it to
// libcurl.so.4 = OpenSSL, libcurl-gnutls.so.4 = GnuTLS, libcurl-nss.so.4 =
// NSS; the curl/curl.h headers are the same for all three).
//
// Usage: tls_backends HTTPS_BASE HTTP_BASE CA_FILE BUNDLE_FILE CONNS REQUESTS
//   HTTPS_BASE  e.g. https://127.0.0.1:18443 (a server that refuses session
//               resumption, so that every new connection is a full handshake)
//   HTTP_BASE   e.g. http://127.0.0.1:18080, the same pages over plain HTTP
//   CA_FILE     a PEM file with the test CA alone
//   BUNDLE_FILE Debian's CA bundle with the test CA appended (what Sieve loads)
//   Both bases serve /small (about 1.5 KB, a broad-web page), /20k (20 KB)
//   and /proto (the negotiated TLS version, cipher and group, as text).
//
// Prints one line of key=value pairs, every figure the process's user+system
// CPU (getrusage RUSAGE_SELF: the client only, the server is another process)
// divided by the count, in µs:
//   conn_https_ca      a new connection per request, verify on, CA_FILE
//   conn_https_bundle  the same with BUNDLE_FILE
//   conn_http          a new connection per request over HTTP
//   req_https_small / req_http_small  requests of /small on one kept connection
//   req_https_20k / req_http_20k      requests of /20k on one kept connection
// New connections use one easy handle with CURLOPT_FRESH_CONNECT and
// CURLOPT_FORBID_REUSE and no TLS session ID cache; libcurl's CA cache
// (CURLOPT_CA_CACHE_TIMEOUT, default 24 h) is left at its default, so a
// backend that has it parses the CA file once. Loopback only; no root needed.
#include <curl/curl.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double CpuMicros() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

size_t Discard(char*, size_t size, size_t count, void*) { return size * count; }

size_t Keep(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

CURL* NewHandle(const std::string& ca_file) {
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Discard);
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr);
  return curl;
}

void Perform(CURL* curl) {
  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (code != CURLE_OK || status != 200) {
    std::fprintf(stderr, "transfer failed: %s, status %ld\n",
                 curl_easy_strerror(code), status);
    std::exit(1);
  }
}

// µs of CPU per request, each on a new connection (a full handshake).
double PerConnection(const std::string& url, const std::string& ca_file,
                     int count) {
  CURL* curl = NewHandle(ca_file);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
  curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_SESSIONID_CACHE, 0L);
  Perform(curl);  // warm-up: the CA cache and lazy initialisation
  const double start = CpuMicros();
  for (int i = 0; i < count; ++i) Perform(curl);
  const double per = (CpuMicros() - start) / count;
  curl_easy_cleanup(curl);
  return per;
}

// µs of CPU per request, all on one kept connection: the median of 10
// batches, so that a burst of other work on this shared machine does not move
// the figure.
double PerRequest(const std::string& url, const std::string& ca_file,
                  int count) {
  CURL* curl = NewHandle(ca_file);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  Perform(curl);  // the connection and its handshake, not counted
  constexpr int kBatches = 10;
  std::vector<double> batches;
  for (int b = 0; b < kBatches; ++b) {
    const double start = CpuMicros();
    for (int i = 0; i < count / kBatches; ++i) Perform(curl);
    batches.push_back((CpuMicros() - start) / (count / kBatches));
  }
  std::sort(batches.begin(), batches.end());
  const double per = (batches[kBatches / 2 - 1] + batches[kBatches / 2]) / 2;
  long connects = 0;
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  if (connects != 0) {
    std::fprintf(stderr, "%s: the connection was not kept\n", url.c_str());
    std::exit(1);
  }
  curl_easy_cleanup(curl);
  return per;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: %s HTTPS_BASE HTTP_BASE CA_FILE BUNDLE_FILE CONNS "
                 "REQUESTS\n",
                 argv[0]);
    return 2;
  }
  const std::string https = argv[1], http = argv[2], ca = argv[3],
                    bundle = argv[4];
  const int conns = std::atoi(argv[5]), requests = std::atoi(argv[6]);
  curl_global_init(CURL_GLOBAL_DEFAULT);

  std::string proto;
  CURL* probe = NewHandle(ca);
  curl_easy_setopt(probe, CURLOPT_URL, (https + "/proto").c_str());
  curl_easy_setopt(probe, CURLOPT_WRITEFUNCTION, Keep);
  curl_easy_setopt(probe, CURLOPT_WRITEDATA, &proto);
  Perform(probe);
  curl_easy_cleanup(probe);
  while (!proto.empty() && proto.back() == '\n') proto.pop_back();

  const double conn_ca = PerConnection(https + "/small", ca, conns);
  const double conn_bundle = PerConnection(https + "/small", bundle, conns);
  const double conn_http = PerConnection(http + "/small", ca, conns);
  const double req_https_small = PerRequest(https + "/small", ca, requests);
  const double req_http_small = PerRequest(http + "/small", ca, requests);
  const double req_https_20k = PerRequest(https + "/20k", ca, requests);
  const double req_http_20k = PerRequest(http + "/20k", ca, requests);

  std::printf(
      "ssl=\"%s\" proto=\"%s\" conn_https_ca=%.1f conn_https_bundle=%.1f "
      "conn_http=%.1f req_https_small=%.2f req_http_small=%.2f "
      "req_https_20k=%.2f req_http_20k=%.2f\n",
      curl_version_info(CURLVERSION_NOW)->ssl_version, proto.c_str(), conn_ca,
      conn_bundle, conn_http, req_https_small, req_http_small, req_https_20k,
      req_http_20k);
  curl_global_cleanup();
  return 0;
}
