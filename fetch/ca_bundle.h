// fetch/ca_bundle.h: which file of certificate authorities a crawl trusts,
// chosen as curl's command-line tool chooses it.
//
// Precedence, first one set (and not empty) wins:
//   1. the explicit setting (`--ca-bundle FILE`, config `fetch.ca_bundle`);
//   2. the environment variable CURL_CA_BUNDLE;
//   3. the environment variable SSL_CERT_FILE;
//   4. libcurl's built-in bundle (on Debian the system's,
//      /etc/ssl/certs/ca-certificates.crt).
// curl's tool reads the same two variables in the same order (its
// docs/cmdline-opts/cacert.md); libcurl itself reads neither, so the caller
// must.
//
// Example:
//   sieve::CaBundleChoice ca = sieve::ChooseCaBundleFromEnvironment("");
//   options.ca_bundle = ca.path;  // "" keeps libcurl's default.
//   Log("CA bundle: {} ({})", ca.path, ca.source);
#ifndef SIEVE_FETCH_CA_BUNDLE_H_
#define SIEVE_FETCH_CA_BUNDLE_H_

#include <string>
#include <string_view>

namespace sieve {

struct CaBundleChoice {
  // The PEM file to trust; empty for libcurl's built-in bundle.
  std::string path;
  // Where it came from: "setting", "CURL_CA_BUNDLE", "SSL_CERT_FILE" or
  // "libcurl default".
  std::string_view source;
};

// The rule above over explicit values; a null or empty value counts as unset.
// Pure: reads no environment, touches no file.
CaBundleChoice ChooseCaBundle(std::string_view configured,
                              const char* curl_ca_bundle,
                              const char* ssl_cert_file);

// ChooseCaBundle with the process's CURL_CA_BUNDLE and SSL_CERT_FILE.
CaBundleChoice ChooseCaBundleFromEnvironment(std::string_view configured);

}  // namespace sieve

#endif  // SIEVE_FETCH_CA_BUNDLE_H_
