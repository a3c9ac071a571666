#include "tests/common/dnsmasq.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sieve::test {
namespace {

namespace fs = std::filesystem;

constexpr char kNamespaceEnv[] = "SIEVE_TEST_IN_NETNS";

// A UDP port of 127.0.0.1 that was free a moment ago.
int FreeUdpPort() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  if (fd >= 0) close(fd);
  return port;
}

int Run(const std::string& command) { return std::system(command.c_str()); }

}  // namespace

bool HaveCommand(const std::string& command) {
  return Run(absl::StrCat("command -v ", command, " >/dev/null 2>&1")) == 0;
}

Dnsmasq::Dnsmasq(const fs::path& dir, const std::vector<std::string>& options,
                 int port)
    : dir_(dir) {
  // dnsmasq binds TCP on the port too, which may be taken even when UDP was
  // free (it was once in CI, beside other tests' servers): try a few.
  for (int attempt = 0; attempt < (port == 0 ? 5 : 1) && !ok_; ++attempt) {
    port_ = port == 0 ? FreeUdpPort() : port;
    std::string command = absl::StrCat(
        "dnsmasq --no-resolv --no-hosts "
        "--listen-address=127.0.0.1 --bind-interfaces --port=",
        port_, " --pid-file=", (dir_ / "dnsmasq.pid").string());
    for (const std::string& o : options) {
      absl::StrAppend(&command, " ", o);
      // A log file only for the questions: with one, even a dnsmasq that
      // logs no questions answered slowly enough to bunch the requests of
      // crawler_crawl_per_ip_test's rate cap (2 runs of 5 failed, 0 without).
      if (o == "--log-queries") {
        absl::StrAppend(&command,
                        " --log-facility=", (dir_ / "dnsmasq.log").string());
      }
    }
    ok_ = port_ != 0 && Run(command) == 0;
  }
}

Dnsmasq::~Dnsmasq() {
  std::ifstream pid(dir_ / "dnsmasq.pid");
  int n = 0;
  if (pid >> n && n > 0) kill(n, SIGTERM);
}

std::string Dnsmasq::server() const {
  return absl::StrCat("127.0.0.1:", port_);
}

int Dnsmasq::Asked(const std::string& type, const std::string& host) const {
  return Questions(absl::StrCat(": query[", type, "] ", host, " "));
}

int Dnsmasq::Questions() const { return Questions(": query["); }

int Dnsmasq::Questions(const std::string& needle) const {
  absl::SleepFor(absl::Milliseconds(50));  // Let dnsmasq write its line.
  std::ifstream log(dir_ / "dnsmasq.log");
  int n = 0;
  for (std::string line; std::getline(log, line);)
    n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

bool InNetworkNamespace() { return std::getenv(kNamespaceEnv) != nullptr; }

NamespaceRun RerunInNetworkNamespace(const std::vector<std::string>& commands) {
  NamespaceRun run;
  if (geteuid() != 0) {
    run.skip =
        "needs root: it makes its own network namespace (unshare --net "
        "--mount)";
    return run;
  }
  std::vector<std::string> needed = {"unshare", "ip", "mount"};
  needed.insert(needed.end(), commands.begin(), commands.end());
  for (const std::string& command : needed) {
    if (!HaveCommand(command)) {
      run.skip = absl::StrCat("needs ", command,
                              command == "dnsmasq" ? " (dnsmasq-base)" : "");
      return run;
    }
  }
  const ::testing::TestInfo* info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  run.code = Run(absl::StrCat(
      kNamespaceEnv, "=1 unshare --net --mount -- /proc/", getpid(),
      "/exe --gtest_filter=", info->test_suite_name(), ".", info->name()));
  return run;
}

bool UseLoopbackResolver(const fs::path& dir) {
  if (Run("ip link set lo up") != 0) {
    ADD_FAILURE() << "ip link set lo up failed";
    return false;
  }
  std::ofstream(dir / "resolv.conf") << "nameserver 127.0.0.1\n";
  if (Run(absl::StrCat("mount --bind ", (dir / "resolv.conf").string(),
                       " /etc/resolv.conf")) != 0) {
    ADD_FAILURE() << "cannot bind-mount " << (dir / "resolv.conf");
    return false;
  }
  return true;
}

}  // namespace sieve::test
