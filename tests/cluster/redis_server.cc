#include "tests/cluster/redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sieve::testing {
namespace {

// Whether `port` on 127.0.0.1 can be bound now (0: any); the port bound.
absl::StatusOr<int> BindFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("port ", port, " is taken"));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// A port the kernel says is free now (bind to 0, read it back, close). A
// cluster node also listens on port + 10000 (its cluster bus): that one must
// exist (a port above 55535 has none, and redis-server exits at start) and
// be free too.
absl::StatusOr<int> FreePort(bool cluster) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    absl::StatusOr<int> port = BindFree(0);
    if (!port.ok()) return port.status();
    if (!cluster) return port;
    if (*port + 10000 <= 65535 && BindFree(*port + 10000).ok()) return port;
  }
  return absl::InternalError("no free port with a free cluster bus port");
}

bool WaitForExit(int pid, absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

std::string RedisServer::Binary() {
  for (const char* path :
       {"/usr/bin/redis-server", "/usr/local/bin/redis-server"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<RedisServer>> RedisServer::Start(
    RedisServerOptions options) {
  if (Binary().empty())
    return absl::NotFoundError("redis-server not installed");
  std::unique_ptr<RedisServer> server(new RedisServer());
  server->options_ = options;
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "sieve-redis-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    return absl::InternalError("mkdtemp failed");
  server->dir_ = tmpl;
  // A port taken between FreePort and redis's bind makes Launch fail: retry.
  absl::Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    absl::StatusOr<int> port = FreePort(options.cluster);
    if (!port.ok()) return port.status();
    server->port_ = *port;
    last = server->Launch();
    if (last.ok()) return server;
  }
  return last;
}

absl::Status RedisServer::Launch() {
  std::vector<std::string> args = {Binary(),
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--dir",
                                   dir_,
                                   "--save",
                                   "",
                                   "--daemonize",
                                   "no",
                                   "--logfile",
                                   dir_ + "/redis.log",
                                   "--appendonly",
                                   options_.appendonly ? "yes" : "no",
                                   "--appendfsync",
                                   "always"};
  if (options_.cluster) {
    // A replica's first full sync starts at once, not after the default
    // 5 s wait for more replicas (repl-diskless-sync-delay): until it ends,
    // the replica has no data and cannot take its master's place. While a
    // master is down, the others serve their slots
    // (cluster-require-full-coverage no), as docs/cluster.md advises.
    for (const char* a :
         {"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
          "--cluster-node-timeout", "1000", "--repl-diskless-sync-delay", "0",
          "--cluster-require-full-coverage", "no"})
      args.push_back(a);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    execv(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  // Bounded wait for PING: 10 s, 20 ms apart.
  cluster::RedisClientOptions quick;
  quick.connect_timeout = absl::Milliseconds(200);
  quick.command_timeout = absl::Milliseconds(500);
  quick.reconnect_deadline = absl::ZeroDuration();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(
          absl::StrCat("redis-server exited at start (port ", port_, ")"));
    }
    auto client = cluster::RedisClient::Connect(endpoint(), quick);
    if (client.ok()) {
      auto pong = (*client)->Command({"PING"});
      if (pong.ok() && pong->str == "PONG") {
        if (!options_.cluster || options_.cluster_without_slots)
          return absl::OkStatus();
        // Every slot to this node (already so after a Restart: nodes.conf
        // keeps them), then wait for the cluster to say it is up.
        (void)(*client)->Command({"CLUSTER", "ADDSLOTSRANGE", "0", "16383"});
        auto info = (*client)->Command({"CLUSTER", "INFO"});
        if (info.ok() &&
            info->str.find("cluster_state:ok") != std::string::npos)
          return absl::OkStatus();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Stop();
  return absl::DeadlineExceededError(
      "redis-server did not answer PING in 10 s");
}

void RedisServer::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  if (!WaitForExit(pid_, absl::Seconds(10))) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void RedisServer::Pause() {
  if (pid_ > 0) kill(pid_, SIGSTOP);
}

void RedisServer::Resume() {
  if (pid_ > 0) kill(pid_, SIGCONT);
}

absl::Status RedisServer::Restart() {
  Stop();
  return Launch();
}

std::string RedisServer::url() const {
  return absl::StrCat("redis://127.0.0.1:", port_);
}

RedisServer::~RedisServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

}  // namespace sieve::testing
