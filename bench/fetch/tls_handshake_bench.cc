// CPU of a TLS connection's full handshake on the client side: the Fetcher
// (which lets libcurl cache the parsed CA bundle) beside libcurl with its
// defaults (which, with Debian's built-in CA directory set, parses the whole
// bundle again for every connection: fetch/internal/transfer.cc). The server
// on 127.0.0.1 closes every connection after one request and refuses session
// resumption, so every request pays a full handshake; the bundle is the
// system's (about 145 certificates) plus the test's CA. The CPU column is the
// benchmark thread's, i.e. the client's (the server runs on its own threads).
// SIEVE_BENCH_SMOKE=1 shrinks each batch for the ctest smoke run.
#include <benchmark/benchmark.h>
#include <httplib.h>
#include <openssl/ssl.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "fetch/fetcher.h"
#include "tests/fetch/test_pki.h"

namespace sieve {
namespace {

int BatchSize() {
  return std::getenv("SIEVE_BENCH_SMOKE") != nullptr ? 5 : 100;
}

// An HTTPS server that makes every request a new connection with a full
// handshake (no session cache, no tickets).
class FullHandshakeServer {
 public:
  explicit FullHandshakeServer(const fetch_test::TestPki& pki)
      : server_([&pki](SSL_CTX& ctx) {
          SSL_CTX_set_session_cache_mode(&ctx, SSL_SESS_CACHE_OFF);
          SSL_CTX_set_options(&ctx, SSL_OP_NO_TICKET);
          return SSL_CTX_use_certificate_chain_file(&ctx, pki.cert.c_str()) ==
                     1 &&
                 SSL_CTX_use_PrivateKey_file(&ctx, pki.key.c_str(),
                                             SSL_FILETYPE_PEM) == 1;
        }) {
    server_.set_keep_alive_max_count(1);
    server_.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~FullHandshakeServer() {
    server_.stop();
    thread_.join();
  }
  std::string Url() const {
    return absl::StrCat("https://127.0.0.1:", port_, "/");
  }

 private:
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
};

// The system bundle plus the test's CA, in a temporary directory.
struct Setup {
  fetch_test::TestPki pki;
  std::string bundle;
  bool ok = false;
};

const Setup& GetSetup() {
  static const Setup* setup = [] {
    auto* s = new Setup;
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        absl::StrCat("sieve-tls-bench-", getpid());
    std::filesystem::create_directories(dir);
    if (!fetch_test::MakeTestPki(dir, &s->pki)) return s;
    s->bundle = (dir / "bundle.pem").string();
    std::ofstream out(s->bundle);
    out << std::ifstream("/etc/ssl/certs/ca-certificates.crt").rdbuf()
        << std::ifstream(s->pki.ca).rdbuf();
    s->ok = out.good();
    return s;
  }();
  return *setup;
}

// arg 0: libcurl's defaults (what the Fetcher did before); 1: the Fetcher.
void BM_TlsFullHandshake(benchmark::State& state) {
  const Setup& setup = GetSetup();
  if (!setup.ok) {
    state.SkipWithError("openssl command missing or failed");
    return;
  }
  FullHandshakeServer server(setup.pki);
  const int batch = BatchSize();
  int64_t failures = 0;
  if (state.range(0) == 0) {
    for (auto _ : state) {
      for (int i = 0; i < batch; ++i) {
        CURL* e = curl_easy_init();
        curl_easy_setopt(e, CURLOPT_URL, server.Url().c_str());
        curl_easy_setopt(e, CURLOPT_CAINFO, setup.bundle.c_str());
        curl_easy_setopt(
            e, CURLOPT_WRITEFUNCTION,
            +[](char*, size_t size, size_t n, void*) { return size * n; });
        failures += curl_easy_perform(e) == CURLE_OK ? 0 : 1;
        curl_easy_cleanup(e);
      }
    }
  } else {
    FetchOptions options;
    options.ca_bundle = setup.bundle;
    options.allow_private_addresses = true;  // The server is on loopback.
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
    if (!fetcher.ok()) {
      state.SkipWithError(std::string(fetcher.status().message()).c_str());
      return;
    }
    for (auto _ : state) {
      for (int i = 0; i < batch; ++i) {
        (*fetcher)->Submit({.id = 1, .url = server.Url()});
        bool done = false;
        while (!done) {
          for (const FetchResponse& r : (*fetcher)->Poll(absl::Seconds(1))) {
            failures += r.ok() ? 0 : 1;
            done = true;
          }
        }
      }
    }
    state.counters["tls_full"] =
        static_cast<double>((*fetcher)->counters().tls_full_handshakes);
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["failures"] = static_cast<double>(failures);
  // CPU seconds per connection, printed with an SI prefix (e.g. 1.3ms).
  state.counters["cpu_per_connection"] =
      benchmark::Counter(static_cast<double>(batch),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

BENCHMARK(BM_TlsFullHandshake)
    ->ArgNames({"fetcher"})
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sieve

BENCHMARK_MAIN();
