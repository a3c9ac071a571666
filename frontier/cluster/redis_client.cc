#include "frontier/cluster/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_slots.h"

namespace sieve::cluster {
namespace {

timeval TimevalOf(absl::Duration d) {
  return absl::ToTimeval(std::max(d, absl::Milliseconds(1)));
}

bool ParseInt(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

RedisReply Copy(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::kInteger;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
      out.type = r->type == REDIS_REPLY_STRING   ? RedisReply::kString
                 : r->type == REDIS_REPLY_STATUS ? RedisReply::kStatus
                                                 : RedisReply::kError;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::kArray;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i)
        out.elements.push_back(Copy(r->element[i]));
      break;
    default:
      out.type = RedisReply::kNil;
  }
  return out;
}

}  // namespace

absl::StatusOr<RedisEndpoint> ParseRedisUrl(std::string_view url) {
  constexpr std::string_view kScheme = "redis://";
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster URL \"", std::string(url), "\": ", std::string(why),
        " (expected redis://HOST:PORT[/DB])"));
  };
  if (url.substr(0, kScheme.size()) != kScheme) return bad("not redis://");
  std::string_view rest = url.substr(kScheme.size());
  RedisEndpoint at;
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    if (!ParseInt(rest.substr(slash + 1), at.db) || at.db < 0)
      return bad("bad database number");
    rest = rest.substr(0, slash);
  }
  if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    if (!ParseInt(rest.substr(colon + 1), at.port) || at.port <= 0 ||
        at.port > 65535)
      return bad("bad port");
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return bad("no host");
  at.host = std::string(rest);
  return at;
}

absl::StatusOr<std::unique_ptr<RedisClient>> RedisClient::Connect(
    const RedisEndpoint& endpoint, const RedisClientOptions& options) {
  std::unique_ptr<RedisClient> client(new RedisClient(endpoint, options));
  if (absl::Status s = client->Open(client->conns_[0]); !s.ok()) return s;
  if (absl::Status s = client->RefreshSlots(); !s.ok()) return s;
  if (client->cluster_ && endpoint.db != 0)
    return absl::InvalidArgumentError(
        "redis: a Redis Cluster has only database 0");
  return client;
}

RedisClient::~RedisClient() {
  for (Conn& c : conns_) Drop(c);
}

void RedisClient::Drop(Conn& c) {
  if (c.context != nullptr) redisFree(c.context);
  c.context = nullptr;
}

absl::Status RedisClient::Open(Conn& conn) {
  Drop(conn);
  redisContext* c = redisConnectWithTimeout(
      conn.at.host.c_str(), conn.at.port, TimevalOf(options_.connect_timeout));
  if (c == nullptr) return absl::ResourceExhaustedError("redis: out of memory");
  if (c->err != 0) {
    std::string why = c->errstr;
    redisFree(c);
    return absl::UnavailableError(
        absl::StrCat("redis ", conn.at.host, ":", conn.at.port, ": ", why));
  }
  if (redisSetTimeout(c, TimevalOf(options_.command_timeout)) != REDIS_OK) {
    redisFree(c);
    return absl::InternalError("redis: cannot set the command timeout");
  }
  redisEnableKeepAlive(c);
  conn.context = c;
  std::vector<std::vector<std::string>> setup;
  if (conn.at.db != 0) setup.push_back({"SELECT", std::to_string(conn.at.db)});
  for (const std::string& body : scripts_)
    setup.push_back({"SCRIPT", "LOAD", body});
  if (setup.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<RedisReply>> replies = PipelineOn(conn, setup);
  if (!replies.ok()) return replies.status();
  for (const RedisReply& r : *replies) {
    if (r.is_error()) {
      // Not ready (LOADING after a restart): without its scripts the
      // connection would answer NOSCRIPT; the next call opens it again.
      Drop(conn);
      return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
    }
  }
  return absl::OkStatus();
}

absl::Status RedisClient::EnsureConnected(Conn& conn) {
  if (conn.context != nullptr) return absl::OkStatus();
  const absl::Time deadline = absl::Now() + options_.reconnect_deadline;
  absl::Duration backoff = options_.backoff_initial;
  for (;;) {
    absl::Status s = Open(conn);
    if (s.ok()) {
      ++reconnects_;
      return s;
    }
    if (absl::Now() + backoff > deadline) return s;
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(backoff));
    backoff = std::min(backoff * 2, options_.backoff_max);
  }
}

absl::StatusOr<RedisReply> RedisClient::Command(
    const std::vector<std::string>& args) {
  absl::StatusOr<std::vector<RedisReply>> replies = Pipeline({args});
  if (!replies.ok()) return replies.status();
  RedisReply& r = replies->front();
  if (r.is_error())
    return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
  return std::move(r);
}

absl::StatusOr<std::vector<RedisReply>> RedisClient::Pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  if (cluster_) return ClusterPipeline(commands);
  return PipelineOn(conns_[0], commands);
}

absl::StatusOr<std::vector<RedisReply>> RedisClient::PipelineOn(
    Conn& conn, const std::vector<std::vector<std::string>>& commands) {
  if (absl::Status s = EnsureConnected(conn); !s.ok()) return s;
  std::vector<const char*> argv;
  std::vector<size_t> argvlen;
  for (const std::vector<std::string>& command : commands) {
    argv.clear();
    argvlen.clear();
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      argvlen.push_back(arg.size());
    }
    if (redisAppendCommandArgv(conn.context, static_cast<int>(argv.size()),
                               argv.data(), argvlen.data()) != REDIS_OK) {
      Drop(conn);
      return absl::ResourceExhaustedError("redis: cannot buffer a command");
    }
  }
  commands_sent_ += commands.size();
  std::vector<RedisReply> replies;
  replies.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(conn.context, &raw) != REDIS_OK || raw == nullptr) {
      const bool timed_out = conn.context->err == REDIS_ERR_IO &&
                             (errno == EAGAIN || errno == EWOULDBLOCK);
      std::string why = conn.context->errstr;
      Drop(conn);  // The stream is out of step: the next call reconnects.
      std::string what =
          absl::StrCat("redis ", conn.at.host, ":", conn.at.port, ": ", why);
      if (timed_out) return absl::DeadlineExceededError(what);
      return absl::UnavailableError(what);
    }
    replies.push_back(Copy(static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
  }
  return replies;
}

absl::StatusOr<std::string> RedisClient::RegisterScript(std::string_view body) {
  absl::StatusOr<RedisReply> sha =
      Command({"SCRIPT", "LOAD", std::string(body)});
  if (!sha.ok()) return sha.status();
  scripts_.emplace_back(body);
  // Every node this client has open gets it now; a node opened later, at
  // Open.
  for (size_t i = 1; i < conns_.size(); ++i) {
    if (conns_[i].context == nullptr) continue;
    absl::StatusOr<std::vector<RedisReply>> r =
        PipelineOn(conns_[i], {{"SCRIPT", "LOAD", std::string(body)}});
    if (!r.ok()) refresh_ = true;  // Loaded again when it is re-opened.
  }
  return sha->str;
}

}  // namespace sieve::cluster
