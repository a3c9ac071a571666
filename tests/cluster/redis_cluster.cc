#include "tests/cluster/redis_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_client.h"

namespace sieve::testing {
namespace {

cluster::RedisClientOptions Quick() {
  cluster::RedisClientOptions o;
  o.connect_timeout = absl::Milliseconds(300);
  o.command_timeout = absl::Seconds(2);
  o.reconnect_deadline = absl::ZeroDuration();
  return o;
}

// A command to one node, without following the cluster.
absl::StatusOr<cluster::RedisReply> Ask(RedisServer& node,
                                        const std::vector<std::string>& args) {
  // RedisClient routes by slot on a cluster; keyless commands go to the
  // node it connected to.
  auto client = cluster::RedisClient::Connect(node.endpoint(), Quick());
  if (!client.ok()) return client.status();
  return (*client)->Command(args);
}

}  // namespace

std::string RedisCluster::Cli() {
  for (const char* path : {"/usr/bin/redis-cli", "/usr/local/bin/redis-cli"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<RedisCluster>> RedisCluster::Start(
    int masters, int replicas) {
  if (Cli().empty()) return absl::NotFoundError("redis-cli not installed");
  std::unique_ptr<RedisCluster> c(new RedisCluster());
  c->log_ = (std::filesystem::temp_directory_path() /
             absl::StrCat("sieve-redis-cluster-", getpid(), ".log"))
                .string();
  std::vector<std::string> args = {"--cluster", "create"};
  for (int i = 0; i < masters * (1 + replicas); ++i) {
    auto node =
        RedisServer::Start({.cluster = true, .cluster_without_slots = true});
    if (!node.ok()) return node.status();
    args.push_back(absl::StrCat("127.0.0.1:", (*node)->port()));
    c->nodes_.push_back(*std::move(node));
  }
  args.insert(args.end(), {"--cluster-replicas", std::to_string(replicas),
                           "--cluster-yes"});
  if (absl::Status s = c->RunCli(args, absl::Seconds(30)); !s.ok()) return s;
  if (absl::Status s = c->WaitUntilOk(absl::Seconds(30)); !s.ok()) return s;
  return c;
}

cluster::RedisEndpoint RedisCluster::endpoint() const {
  return nodes_[0]->endpoint();
}

std::string RedisCluster::url() const {
  return absl::StrCat("redis://127.0.0.1:", endpoint().port);
}

absl::Status RedisCluster::RunCli(const std::vector<std::string>& args,
                                  absl::Duration limit) {
  std::vector<std::string> argv_s = {Cli()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    const int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  const absl::Time deadline = absl::Now() + limit;
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return absl::OkStatus();
      return absl::InternalError(absl::StrCat(
          "redis-cli ", args[0], " ", args[1], " failed (see ", log_, ")"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return absl::DeadlineExceededError("redis-cli did not finish in time");
}

absl::Status RedisCluster::WaitUntilOk(absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  while (absl::Now() < deadline) {
    bool all_ok = true;
    for (size_t i = 0; i < nodes_.size() && all_ok; ++i) {
      auto info = Ask(*nodes_[i], {"CLUSTER", "INFO"});
      all_ok = info.ok() &&
               info->str.find("cluster_state:ok") != std::string::npos &&
               info->str.find("cluster_slots_ok:16384") != std::string::npos;
      // A replica counts once its first sync is done: before, it holds no
      // data and refuses to fail over ("Disconnected from master for longer
      // than allowed"), and a master killed then loses its slots for good.
      auto replication = Ask(*nodes_[i], {"INFO", "replication"});
      all_ok =
          all_ok && replication.ok() &&
          (replication->str.find("role:slave") == std::string::npos ||
           replication->str.find("master_link_status:up") != std::string::npos);
    }
    if (all_ok) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError("the Redis Cluster is not ok");
}

absl::StatusOr<std::string> RedisCluster::NodeId(int i) {
  auto id = Ask(*nodes_[i], {"CLUSTER", "MYID"});
  if (!id.ok()) return id.status();
  return id->str;
}

absl::StatusOr<cluster::RedisReply> RedisCluster::Slots() {
  absl::StatusOr<cluster::RedisReply> slots =
      absl::UnavailableError("no node running");
  for (size_t n = 0; n < nodes_.size() && !slots.ok(); ++n)
    slots = Ask(*nodes_[n], {"CLUSTER", "SLOTS"});
  return slots;
}

absl::StatusOr<int> RedisCluster::RangeStart(int slot) {
  absl::StatusOr<cluster::RedisReply> slots = Slots();
  if (!slots.ok()) return slots.status();
  for (const cluster::RedisReply& range : slots->elements) {
    if (range.elements[0].integer <= slot && slot <= range.elements[1].integer)
      return static_cast<int>(range.elements[0].integer);
  }
  return absl::NotFoundError(absl::StrCat("no master serves slot ", slot));
}

absl::StatusOr<int> RedisCluster::MasterOf(int slot) {
  absl::StatusOr<cluster::RedisReply> slots = Slots();
  if (!slots.ok()) return slots.status();
  for (const cluster::RedisReply& range : slots->elements) {
    if (range.elements[0].integer <= slot &&
        slot <= range.elements[1].integer) {
      const int port = static_cast<int>(range.elements[2].elements[1].integer);
      for (size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i]->port() == port) return static_cast<int>(i);
    }
  }
  return absl::NotFoundError(absl::StrCat("no master serves slot ", slot));
}

absl::Status RedisCluster::Reshard(int from, int to, int slots) {
  absl::StatusOr<std::string> from_id = NodeId(from);
  if (!from_id.ok()) return from_id.status();
  absl::StatusOr<std::string> to_id = NodeId(to);
  if (!to_id.ok()) return to_id.status();
  return RunCli(
      {"--cluster", "reshard", absl::StrCat("127.0.0.1:", nodes_[from]->port()),
       "--cluster-from", *from_id, "--cluster-to", *to_id, "--cluster-slots",
       std::to_string(slots), "--cluster-yes"},
      absl::Seconds(60));
}

}  // namespace sieve::testing
