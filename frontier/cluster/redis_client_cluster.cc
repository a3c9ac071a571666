// RedisClient against a Redis Cluster: the slot map, one connection per node,
// pipelines split by node, MOVED and ASK followed. The rest of the client
// (connections, one node's pipeline) is in frontier/cluster/redis_client.cc;
// slots and redirections are parsed in frontier/cluster/redis_slots.cc.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/cluster/redis_slots.h"

namespace sieve::cluster {
namespace {

// Redirections followed per command before its last error reply is returned.
constexpr int kMaxRedirects = 5;

}  // namespace

size_t RedisClient::NodeIndex(const std::string& host, int port) {
  for (size_t i = 0; i < conns_.size(); ++i) {
    if (conns_[i].at.host == host && conns_[i].at.port == port) return i;
  }
  conns_.push_back({.at = {.host = host, .port = port, .db = 0}});
  return conns_.size() - 1;
}

absl::StatusOr<std::vector<RedisReply>> RedisClient::NodePipeline(
    Conn& c, const std::vector<std::vector<std::string>>& commands) {
  const absl::Time now = absl::Now();
  if (now < c.down_until) {
    return absl::UnavailableError(absl::StrCat(
        "redis ", c.at.host, ":", c.at.port, ": did not answer; tried again ",
        absl::FormatDuration(c.down_until - now), " from now"));
  }
  absl::StatusOr<std::vector<RedisReply>> r = PipelineOn(c, commands);
  if (r.ok()) {
    c.down_for = absl::ZeroDuration();
  } else if (absl::IsUnavailable(r.status()) ||
             absl::IsDeadlineExceeded(r.status())) {
    // At least as long as the failed try took: a node that makes callers
    // wait its timeout does so at most half the time.
    c.down_for = std::max(c.down_for == absl::ZeroDuration()
                              ? options_.backoff_initial
                              : std::min(c.down_for * 2, options_.backoff_max),
                          absl::Now() - now);
    c.down_until = absl::Now() + c.down_for;
  }
  return r;
}

absl::Status RedisClient::RefreshSlots() {
  // The last node that answered first, then every other known node; a node
  // in its back-off is not asked (NodePipeline).
  std::vector<size_t> order = {any_node_};
  for (size_t i = 0; i < conns_.size(); ++i)
    if (i != any_node_) order.push_back(i);
  absl::Status last;
  for (size_t i : order) {
    absl::StatusOr<std::vector<RedisReply>> r =
        NodePipeline(conns_[i], {{"CLUSTER", "SLOTS"}});
    if (!r.ok()) {
      last = r.status();
      continue;
    }
    const RedisReply& slots = r->front();
    if (slots.is_error()) {
      // Not a cluster node ("cluster support disabled"): one Redis.
      if (!cluster_) return absl::OkStatus();
      last = absl::UnavailableError(absl::StrCat("redis: ", slots.str));
      continue;
    }
    if (slots.type != RedisReply::kArray || slots.elements.empty()) {
      last = absl::UnavailableError("redis: the cluster has no slots yet");
      if (!cluster_) return absl::OkStatus();
      continue;
    }
    cluster_ = true;
    any_node_ = i;
    slot_node_.assign(kClusterSlots, static_cast<uint16_t>(i));
    // [[start, end, [host, port, id], replicas...], ...]
    for (const RedisReply& range : slots.elements) {
      if (range.elements.size() < 3 || range.elements[2].elements.size() < 2)
        continue;
      const RedisReply& master = range.elements[2];
      const std::string host = master.elements[0].str.empty()
                                   ? conns_[i].at.host
                                   : master.elements[0].str;
      const size_t node =
          NodeIndex(host, static_cast<int>(master.elements[1].integer));
      for (int64_t s = range.elements[0].integer;
           s <= range.elements[1].integer && s < kClusterSlots; ++s)
        slot_node_[s] = static_cast<uint16_t>(node);
    }
    refresh_ = false;
    return absl::OkStatus();
  }
  return last;
}

absl::StatusOr<std::vector<RedisReply>> RedisClient::ClusterPipeline(
    const std::vector<std::vector<std::string>>& commands) {
  if (refresh_) {
    if (absl::Status s = RefreshSlots(); !s.ok()) return s;
  }
  std::vector<RedisReply> replies(commands.size());
  // Where each command goes now: its slot's node, or an ASK's target.
  std::vector<size_t> node(commands.size());
  std::vector<bool> asking(commands.size(), false);
  std::vector<size_t> pending;
  for (size_t i = 0; i < commands.size(); ++i) {
    std::optional<std::string_view> key = CommandKey(commands[i]);
    node[i] = key ? slot_node_[KeySlot(*key)] : any_node_;
    pending.push_back(i);
  }
  // A node that fails fails the call, once every other node of the round had
  // its commands (a lease renewal on a live master still runs while another
  // master is down).
  absl::Status failed;
  for (int round = 0; round <= kMaxRedirects && !pending.empty(); ++round) {
    // One pipeline per node, in the commands' order within each.
    std::map<size_t, std::vector<size_t>> by_node;
    for (size_t i : pending) by_node[node[i]].push_back(i);
    pending.clear();
    for (auto& [n, indices] : by_node) {
      std::vector<std::vector<std::string>> batch;
      for (size_t i : indices) {
        if (asking[i]) batch.push_back({"ASKING"});
        batch.push_back(commands[i]);
      }
      absl::StatusOr<std::vector<RedisReply>> got =
          NodePipeline(conns_[n], batch);
      if (!got.ok()) {
        // A node gone (killed, failing over): the map is read again next.
        refresh_ = true;
        failed.Update(got.status());
        continue;
      }
      size_t at = 0;
      for (size_t i : indices) {
        if (asking[i]) ++at;  // ASKING's +OK.
        RedisReply& r = (*got)[at++];
        asking[i] = false;
        replies[i] = std::move(r);
        if (!replies[i].is_error() || round == kMaxRedirects) continue;
        if (std::optional<Redirect> to = ParseRedirect(replies[i].str)) {
          const size_t target = NodeIndex(to->host, to->port);
          node[i] = target;
          if (to->ask) {
            asking[i] = true;
          } else {
            slot_node_[to->slot] = static_cast<uint16_t>(target);
            refresh_ = true;  // Others of its range moved too.
          }
          pending.push_back(i);
        } else if (replies[i].str.starts_with("CLUSTERDOWN")) {
          // A failover under way: the caller tries again later, on the map
          // read after it.
          refresh_ = true;
        } else if (replies[i].str.starts_with("NOSCRIPT")) {
          // A node that has not seen the scripts (opened before one was
          // registered, or a replica promoted since): load them, send again.
          std::vector<std::vector<std::string>> load;
          for (const std::string& body : scripts_)
            load.push_back({"SCRIPT", "LOAD", body});
          if (!PipelineOn(conns_[n], load).ok()) continue;
          pending.push_back(i);
        }
      }
    }
    if (!failed.ok()) return failed;
  }
  if (refresh_) (void)RefreshSlots();
  return replies;
}

}  // namespace sieve::cluster
