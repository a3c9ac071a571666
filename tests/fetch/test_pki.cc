#include "tests/fetch/test_pki.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace sieve::fetch_test {
namespace {

bool Run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace

bool MakeTestPki(const std::filesystem::path& dir, TestPki* pki) {
  const std::string d = dir.string();
  pki->ca = d + "/ca.pem";
  pki->cert = d + "/server.pem";
  pki->key = d + "/server.key";
  std::ofstream(dir / "ext.cnf")
      << "basicConstraints=CA:FALSE\n"
         "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1";
  return Run("openssl version") &&
         Run(absl::StrCat("openssl req -x509 ", ec,
                          " -nodes -days 2 -subj '/CN=Sieve Test CA' -keyout ",
                          d, "/ca.key -out ", pki->ca)) &&
         Run(absl::StrCat("openssl req ", ec,
                          " -nodes -subj '/CN=127.0.0.1' -keyout ", pki->key,
                          " -out ", d, "/server.csr")) &&
         Run(absl::StrCat("openssl x509 -req -days 2 -in ", d,
                          "/server.csr -CA ", pki->ca, " -CAkey ", d,
                          "/ca.key -CAcreateserial -extfile ", d,
                          "/ext.cnf -out ", pki->cert));
}

}  // namespace sieve::fetch_test
