#include "frontier/cluster/crawl_rate.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace sieve::cluster {
namespace {

// KEYS[1]: the TAT (us); ARGV[1]: the interval (us). Returns 0 when the slot
// is taken, else the microseconds until it comes. TIME in a script that
// writes needs effects replication (the default since Redis 5, the only
// mode since 7).
constexpr char kTakeScript[] = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat > now then return tat - now end
local interval = tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', now + interval), 'PX',
           string.format('%.0f', math.floor(interval / 1000) + 1000))
return 0
)lua";

}  // namespace

absl::StatusOr<CrawlRate> CrawlRate::Open(RedisClient& client,
                                          const ClusterKeys& keys,
                                          double per_second) {
  if (!(per_second > 0 && per_second <= 1e6)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster: a crawl-wide rate of ", per_second,
                     " requests per second is outside (0, 10^6]"));
  }
  absl::StatusOr<std::string> sha = client.RegisterScript(kTakeScript);
  if (!sha.ok()) return sha.status();
  CrawlRate rate;
  rate.client_ = &client;
  rate.key_ = keys.Rate();
  rate.sha_ = *std::move(sha);
  rate.interval_us_ = std::max<int64_t>(1, std::llround(1e6 / per_second));
  return rate;
}

absl::StatusOr<absl::Duration> CrawlRate::TryTake() {
  absl::StatusOr<RedisReply> r = client_->Command(
      {"EVALSHA", sha_, "1", key_, absl::StrCat(interval_us_)});
  if (!r.ok()) return r.status();
  if (r->type != RedisReply::kInteger || r->integer < 0) {
    return absl::InternalError("cluster: unexpected reply of the rate script");
  }
  return absl::Microseconds(r->integer);
}

}  // namespace sieve::cluster
