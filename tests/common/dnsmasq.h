// tests/common/dnsmasq.h: a real DNS server for tests, and the network
// namespace that lets a test own port 53 and /etc/resolv.conf.
//
// Dnsmasq starts Debian's dnsmasq on 127.0.0.1 with the caller's records and
// logs every question, so a test can count what the crawler asked. On a free
// port (no root needed) the crawler is pointed at it with fetch.dns_servers;
// inside a namespace made by RerunInNetworkNamespace it takes port 53 and the
// system resolver finds it through UseLoopbackResolver.
//
// Example (a namespace test; the binary runs itself again inside it):
//   TEST(BroadWebTest, ManyHosts) {
//     if (sieve::test::InNetworkNamespace()) {
//       sieve::test::UseLoopbackResolver(dir);
//       sieve::test::Dnsmasq dns(dir, {"--address=/web.test/127.0.0.1"}, 53);
//       ...  // crawl, assert
//       return;
//     }
//     const sieve::test::NamespaceRun run =
//         sieve::test::RerunInNetworkNamespace({"dnsmasq"});
//     if (!run.skip.empty()) GTEST_SKIP() << run.skip;
//     EXPECT_EQ(run.code, 0) << "the test inside the namespace failed";
//   }
#ifndef SIEVE_TESTS_COMMON_DNSMASQ_H_
#define SIEVE_TESTS_COMMON_DNSMASQ_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::test {

// True when `command` is found on PATH.
bool HaveCommand(const std::string& command);

// dnsmasq on 127.0.0.1, answering only from `options` (dnsmasq's own flags,
// e.g. "--address=/test/127.0.0.1", "--host-record=a.test,127.0.0.2,1";
// "--local=/test/" makes every other name under test. NXDOMAIN): no upstream,
// no /etc/hosts; "--log-queries" logs every question to a file in `dir` for
// Asked and Questions (it slows the answers: leave it out where timing is
// measured).
// Stopped (SIGTERM) by the destructor. Its pid file and log live in `dir`.
class Dnsmasq {
 public:
  // `port` 0: a free port, found by trying a few (dnsmasq binds UDP and TCP).
  Dnsmasq(const std::filesystem::path& dir,
          const std::vector<std::string>& options, int port = 0);
  ~Dnsmasq();
  Dnsmasq(const Dnsmasq&) = delete;
  Dnsmasq& operator=(const Dnsmasq&) = delete;

  bool ok() const { return ok_; }
  // "127.0.0.1:PORT", for fetch.dns_servers / DnsOptions::servers.
  std::string server() const;
  // Questions of `type` ("A", "AAAA") asked for `host` so far.
  // REQUIRES: "--log-queries" among the options (also for Questions).
  int Asked(const std::string& type, const std::string& host) const;
  // All questions asked so far.
  int Questions() const;

 private:
  int Questions(const std::string& needle) const;

  std::filesystem::path dir_;
  int port_ = 0;
  bool ok_ = false;
};

// True in the copy of the test that RerunInNetworkNamespace started.
bool InNetworkNamespace();

// What RerunInNetworkNamespace did: `skip` says why it could not run (not
// root, a command missing), else `code` is the inner run's exit status.
struct NamespaceRun {
  std::string skip;
  int code = 0;
};

// Runs the current test again in this binary, inside a new network and mount
// namespace (`unshare --net --mount`, root only) where InNetworkNamespace() is
// true. Needs unshare, ip, mount and each of `commands`.
NamespaceRun RerunInNetworkNamespace(const std::vector<std::string>& commands);

// Inside the namespace: brings loopback up and bind-mounts a resolv.conf
// naming 127.0.0.1 (written in `dir`) over /etc/resolv.conf, for this
// namespace only. Fails the test (ADD_FAILURE) and returns false on error.
bool UseLoopbackResolver(const std::filesystem::path& dir);

}  // namespace sieve::test

#endif  // SIEVE_TESTS_COMMON_DNSMASQ_H_
