#include "fetch/ca_bundle.h"

#include <cstdlib>

namespace sieve {

CaBundleChoice ChooseCaBundle(std::string_view configured,
                              const char* curl_ca_bundle,
                              const char* ssl_cert_file) {
  if (!configured.empty()) return {std::string(configured), "setting"};
  if (curl_ca_bundle != nullptr && *curl_ca_bundle != '\0')
    return {curl_ca_bundle, "CURL_CA_BUNDLE"};
  if (ssl_cert_file != nullptr && *ssl_cert_file != '\0')
    return {ssl_cert_file, "SSL_CERT_FILE"};
  return {"", "libcurl default"};
}

CaBundleChoice ChooseCaBundleFromEnvironment(std::string_view configured) {
  return ChooseCaBundle(configured, std::getenv("CURL_CA_BUNDLE"),
                        std::getenv("SSL_CERT_FILE"));
}

}  // namespace sieve
