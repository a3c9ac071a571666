// tests/fetch/test_pki.h: a certificate authority and a server certificate it
// signed for 127.0.0.1 and localhost, made by the test with the openssl
// command-line tool (scripts/install-deps.sh installs it), for TLS servers on
// loopback.
//
// Example:
//   sieve::fetch_test::TestPki pki;
//   if (!sieve::fetch_test::MakeTestPki(dir, &pki)) GTEST_SKIP() << "no openssl";
//   httplib::SSLServer server(pki.cert.c_str(), pki.key.c_str());
//   options.ca_bundle = pki.ca;
#ifndef SIEVE_TESTS_FETCH_TEST_PKI_H_
#define SIEVE_TESTS_FETCH_TEST_PKI_H_

#include <filesystem>
#include <string>

namespace sieve::fetch_test {

struct TestPki {
  std::string ca;    // The CA's certificate (PEM): the bundle to trust.
  std::string cert;  // The server's certificate (PEM), CN and SAN 127.0.0.1.
  std::string key;   // The server's private key (PEM).
};

// Writes the files into `dir` (which must exist). False when the openssl
// command is missing or fails. P-256 keys, valid for two days.
bool MakeTestPki(const std::filesystem::path& dir, TestPki* pki);

}  // namespace sieve::fetch_test

#endif  // SIEVE_TESTS_FETCH_TEST_PKI_H_
