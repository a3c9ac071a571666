#include "frontier/service/grpc_frontier.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sieve_frontier.grpc.pb.h"
#include "urlfrontier.grpc.pb.h"

namespace sieve::service {
namespace {

constexpr char kDepthKey[] = "sieve.depth";
constexpr char kMetaKey[] = "sieve.meta";

absl::Status FromGrpc(const grpc::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      absl::StrCat(std::string(what), ": ", s.error_message()));
}

void FillInfo(const FrontierUrl& u, const std::string& crawl,
              urlfrontier::URLInfo* info) {
  info->set_url(u.url);
  info->set_key(u.host);
  info->set_crawlid(crawl);
  (*info->mutable_metadata())[kDepthKey].add_values(absl::StrCat(u.depth));
  if (!u.metadata.empty())
    (*info->mutable_metadata())[kMetaKey].add_values(u.metadata);
}

FrontierUrl FromInfo(const urlfrontier::URLInfo& info) {
  FrontierUrl u{.url = info.url(), .host = info.key()};
  auto depth = info.metadata().find(kDepthKey);
  if (depth != info.metadata().end() && depth->second.values_size() > 0) {
    uint32_t d = 0;
    if (absl::SimpleAtoi(depth->second.values(0), &d)) u.depth = d;
  }
  auto meta = info.metadata().find(kMetaKey);
  if (meta != info.metadata().end() && meta->second.values_size() > 0)
    u.metadata = meta->second.values(0);
  return u;
}

}  // namespace

struct GrpcFrontier::Rpc {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<urlfrontier::URLFrontier::Stub> frontier;
  std::unique_ptr<sieve_urlfrontier::SieveFrontier::Stub> sieve;
};

absl::StatusOr<std::string> ParseGrpcTarget(std::string_view url) {
  constexpr std::string_view kScheme = "grpc://";
  if (!url.starts_with(kScheme) || url.size() == kScheme.size() ||
      url.find(':', kScheme.size()) == std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected grpc://HOST:PORT, got \"", std::string(url), "\""));
  }
  std::string target(url.substr(kScheme.size()));
  if (target.ends_with("/")) target.pop_back();
  return target;
}

absl::StatusOr<std::unique_ptr<GrpcFrontier>> GrpcFrontier::Create(
    GrpcFrontierOptions options) {
  if (options.target.empty())
    return absl::InvalidArgumentError("GrpcFrontier: no target");
  if (options.max_urls_per_queue == 0 || options.max_queues == 0)
    return absl::InvalidArgumentError(
        "GrpcFrontier: max_urls_per_queue and max_queues must be > 0");
  // The per-host rules are a local Frontier's. The server deduplicates: the
  // local Sieve must not drop a URL on a false positive of its own.
  FrontierOptions local;
  local.sieve.expected_urls = 1 << 20;
  local.sieve.memory_budget_bytes = size_t{1} << 20;
  local.sieve.verify_positives = true;
  local.sieve.work_dir = options.work_dir;
  local.politeness = options.politeness;
  local.max_urls_per_host = options.max_urls_per_host;
  local.host_queue_memory_bytes = size_t{4} << 20;
  absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Create(local);
  if (!frontier.ok()) return frontier.status();
  return std::unique_ptr<GrpcFrontier>(
      new GrpcFrontier(std::move(options), *std::move(frontier)));
}

GrpcFrontier::GrpcFrontier(GrpcFrontierOptions options,
                           std::unique_ptr<Frontier> local)
    : options_(std::move(options)),
      rpc_(std::make_unique<Rpc>()),
      local_(std::move(local)) {
  rpc_->channel =
      grpc::CreateChannel(options_.target, grpc::InsecureChannelCredentials());
  rpc_->frontier = urlfrontier::URLFrontier::NewStub(rpc_->channel);
  rpc_->sieve = sieve_urlfrontier::SieveFrontier::NewStub(rpc_->channel);
}

GrpcFrontier::~GrpcFrontier() = default;

void GrpcFrontier::NoteErrorLocked(const absl::Status& s) {
  if (!s.ok() && status_.ok()) status_ = s;
}

bool GrpcFrontier::Add(std::string_view url, std::string_view host,
                       uint32_t depth, std::string_view metadata) {
  const FrontierAdd add{
      .url = url, .host = host, .depth = depth, .metadata = metadata};
  bool queued = false;
  AddMany(std::span<const FrontierAdd>(&add, 1), std::span<bool>(&queued, 1));
  return queued;
}

void GrpcFrontier::AddMany(std::span<const FrontierAdd> all,
                           std::span<bool> all_queued) {
  std::fill(all_queued.begin(), all_queued.end(), false);
  // A host past its page cap here: refused without a call.
  std::vector<FrontierAdd> kept;
  std::vector<size_t> at;  // Position in `all` of each kept URL.
  for (size_t i = 0; i < all.size(); ++i) {
    if (local_->IsDropped(all[i].host)) {
      local_->NoteRefused(all[i]);  // Its skipped record.
      continue;
    }
    kept.push_back(all[i]);
    at.push_back(i);
  }
  if (kept.size() < all.size()) {
    std::lock_guard<std::mutex> lock(mu_);
    counters_.refused_urls += all.size() - kept.size();
  }
  if (kept.empty()) return;
  std::unique_ptr<bool[]> kept_queued(new bool[kept.size()]());
  SendAdds(kept, std::span<bool>(kept_queued.get(), kept.size()));
  for (size_t k = 0; k < kept.size(); ++k) all_queued[at[k]] = kept_queued[k];
}

void GrpcFrontier::SendAdds(std::span<const FrontierAdd> urls,
                            std::span<bool> queued) {
  // The round trip holds no lock (the stubs are thread-safe): Next and Done
  // go on while a page's links are on their way.
  auto info = [&](size_t i, urlfrontier::URLInfo* out) {
    FillInfo({.url = std::string(urls[i].url),
              .host = std::string(urls[i].host),
              .depth = urls[i].depth,
              .metadata = std::string(urls[i].metadata)},
             options_.crawl_id, out);
  };
  if (!put_discovered_unavailable_.load()) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    auto stream = rpc_->sieve->PutDiscovered(&ctx);
    sieve_urlfrontier::DiscoveredBatch batch;
    for (size_t i = 0; i < urls.size(); ++i)
      info(i, batch.add_items()->mutable_info());
    sieve_urlfrontier::BatchAck ack;
    const bool exchanged = stream->Write(batch) && stream->Read(&ack);
    stream->WritesDone();
    const grpc::Status s = stream->Finish();
    if (s.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      put_discovered_unavailable_ = true;  // Another URLFrontier server.
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      if (!s.ok() || !exchanged ||
          ack.status() != urlfrontier::AckMessage::OK) {
        NoteErrorLocked(FromGrpc(
            s.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "no ack") : s,
            "PutDiscovered"));
        return;
      }
      // A server without per-item answers: only a batch of one is known.
      const bool per_item = ack.stored_size() == static_cast<int>(urls.size());
      for (size_t i = 0; i < urls.size(); ++i) {
        queued[i] = per_item ? ack.stored(static_cast<int>(i))
                             : urls.size() == 1 && ack.added() > 0;
      }
      counters_.added += ack.added();
      counters_.duplicates += urls.size() - ack.added();
      return;
    }
  }
  // Another URLFrontier server: one PutURLs stream for the page; a URL
  // counts as queued when the server acknowledged it.
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  auto stream = rpc_->frontier->PutURLs(&ctx);
  bool written = true;
  for (size_t i = 0; i < urls.size() && written; ++i) {
    urlfrontier::URLItem item;
    item.set_id(absl::StrCat(i));
    info(i, item.mutable_discovered()->mutable_info());
    written = stream->Write(item);
  }
  stream->WritesDone();
  urlfrontier::AckMessage ack;
  uint64_t acked = 0;
  while (stream->Read(&ack)) {
    size_t i = 0;
    if (ack.status() == urlfrontier::AckMessage::OK &&
        absl::SimpleAtoi(ack.id(), &i) && i < urls.size()) {
      acked += queued[i] ? 0 : 1;
      queued[i] = true;
    }
  }
  const grpc::Status s = stream->Finish();
  std::lock_guard<std::mutex> lock(mu_);
  if (!s.ok() || !written) NoteErrorLocked(FromGrpc(s, "PutURLs"));
  counters_.added += acked;
}

size_t GrpcFrontier::RefillLocked() {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  urlfrontier::GetParams p;
  p.set_max_urls_per_queue(options_.max_urls_per_queue);
  p.set_max_queues(options_.max_queues);
  p.set_delay_requestable(options_.delay_requestable);
  p.set_crawlid(options_.crawl_id);
  auto reader = rpc_->frontier->GetURLs(&ctx, p);
  urlfrontier::URLInfo info;
  size_t n = 0;
  std::vector<FrontierUrl> refused;
  while (reader->Read(&info)) {
    ++n;
    FrontierUrl u = FromInfo(info);
    // Handed out again while it waits here (its time in transit ran out).
    if (fed_.contains(u.url)) continue;
    if (!local_->Add(u.url, u.host, u.depth, u.metadata)) {
      // Its host is past its page cap, or it was finished here before (the
      // server did not get the update): done either way.
      refused.push_back(std::move(u));
      continue;
    }
    std::string key = u.url;
    fed_.emplace(std::move(key), Fed{.url = std::move(u)});
  }
  const grpc::Status s = reader->Finish();
  if (!s.ok()) NoteErrorLocked(FromGrpc(s, "GetURLs"));
  if (!refused.empty()) SendDoneLocked(std::move(refused));
  return n;
}

void GrpcFrontier::MaybeRefillLocked(absl::Time now) {
  const size_t held = fed_.size() - in_flight_;
  if (now < next_poll_ ||
      held >= size_t{options_.max_queues} * options_.max_urls_per_queue)
    return;
  if (local_->PeekNext(now).state == NextUrl::kReady) return;
  // Asked again at the next Next unless the server had nothing for us.
  next_poll_ =
      RefillLocked() == 0 ? now + options_.idle_poll : absl::InfinitePast();
}

bool GrpcFrontier::ServerEmptyLocked() {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  urlfrontier::QueueWithinCrawlParams p;
  p.set_crawlid(options_.crawl_id);
  urlfrontier::Stats stats;
  const grpc::Status s = rpc_->frontier->GetStats(&ctx, p, &stats);
  if (!s.ok()) {
    NoteErrorLocked(FromGrpc(s, "GetStats"));
    return false;
  }
  return stats.size() == 0 && stats.inprocess() == 0;
}

void GrpcFrontier::FinishDroppedHostLocked(const std::string& host) {
  std::vector<FrontierUrl> dropped;
  for (auto it = fed_.begin(); it != fed_.end();) {
    if (it->second.url.host == host && !it->second.in_flight) {
      dropped.push_back(std::move(it->second.url));
      fed_.erase(it++);
    } else {
      ++it;
    }
  }
  if (!dropped.empty()) SendDoneLocked(std::move(dropped));
}

NextUrl GrpcFrontier::Next(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!unsent_.empty()) {
    std::vector<FrontierUrl> again;
    again.swap(unsent_);
    SendDoneLocked(std::move(again));
  }
  MaybeRefillLocked(now);
  NextUrl next = local_->Next(now);
  if (next.state == NextUrl::kReady) {
    auto it = fed_.find(next.url.url);
    if (it != fed_.end()) it->second.in_flight = true;
    ++in_flight_;
    // Its host's last page: the rest of its URLs here were discarded.
    if (options_.max_urls_per_host > 0 && local_->IsDropped(next.url.host))
      FinishDroppedHostLocked(next.url.host);
    return next;
  }
  // The server may hold URLs of other hosts: unless this client holds as
  // many as it may, look again at next_poll_.
  const bool may_poll =
      fed_.size() - in_flight_ <
      size_t{options_.max_queues} * options_.max_urls_per_queue;
  const absl::Duration poll =
      next_poll_ > now ? next_poll_ - now : options_.idle_poll;
  switch (next.state) {
    case NextUrl::kWait:
      if (may_poll) next.wait = std::min(next.wait, poll);
      return next;
    case NextUrl::kWaitForDone:
      // A Done will come, and the next Next looks at the server.
      if (in_flight_ > 0 || !may_poll) return next;
      return {.state = NextUrl::kWait, .wait = poll};
    default:
      break;
  }
  // Nothing here: finished only if every update was sent and the server has
  // nothing queued (due or not) and nothing in transit at any crawler.
  if (unsent_.empty() && ServerEmptyLocked())
    return NextUrl{.state = NextUrl::kEmpty};
  return NextUrl{.state = NextUrl::kWait, .wait = poll};
}

void GrpcFrontier::SendDoneLocked(std::vector<FrontierUrl> urls) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  auto stream = rpc_->frontier->PutURLs(&ctx);
  bool written = true;
  for (size_t i = 0; i < urls.size() && written; ++i) {
    urlfrontier::URLItem item;
    item.set_id(absl::StrCat(i));
    FillInfo(urls[i], options_.crawl_id, item.mutable_known()->mutable_info());
    item.mutable_known()->set_refetchable_from_date(0);
    written = stream->Write(item);
  }
  stream->WritesDone();
  std::vector<bool> acked(urls.size(), false);
  urlfrontier::AckMessage ack;
  while (stream->Read(&ack)) {
    size_t i = 0;
    if (ack.status() == urlfrontier::AckMessage::OK &&
        absl::SimpleAtoi(ack.id(), &i) && i < urls.size())
      acked[i] = true;
  }
  const grpc::Status s = stream->Finish();
  for (size_t i = 0; i < urls.size(); ++i) {
    if (!acked[i]) unsent_.push_back(std::move(urls[i]));
  }
  if (!s.ok()) {
    NoteErrorLocked(FromGrpc(s, "PutURLs"));
  } else if (!unsent_.empty()) {
    NoteErrorLocked(absl::UnavailableError("PutURLs: update not acknowledged"));
  }
}

absl::StatusOr<UrlFate> GrpcFrontier::Done(std::string_view url,
                                           const FetchOutcome& outcome,
                                           absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = fed_.find(std::string(url));
  if (it == fed_.end() || !it->second.in_flight)
    return absl::NotFoundError(
        absl::StrCat("not in flight: ", std::string(url)));
  absl::StatusOr<UrlFate> fate = local_->Done(url, outcome, now);
  if (!fate.ok()) return fate;
  it->second.in_flight = false;
  --in_flight_;
  // A retry waits here, still in transit on the server.
  if (*fate == UrlFate::kRetryLater) return fate;
  std::vector<FrontierUrl> done;
  done.push_back(std::move(it->second.url));
  fed_.erase(it);
  SendDoneLocked(std::move(done));
  return fate;
}

void GrpcFrontier::SetCrawlDelay(std::string_view host, absl::Duration delay) {
  local_->SetCrawlDelay(host, delay);
}

absl::Status GrpcFrontier::Checkpoint(SnapshotWriter&) {
  return absl::OkStatus();
}

FrontierStats GrpcFrontier::stats() const {
  FrontierStats s = local_->stats();
  std::lock_guard<std::mutex> lock(mu_);
  // local_ sees the URLs fed to it; the server says which adds were new.
  s.added = counters_.added;
  s.duplicates = counters_.duplicates;
  s.refused_urls += counters_.refused_urls;
  s.dropped_urls += counters_.refused_urls;
  return s;
}

absl::Status GrpcFrontier::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace sieve::service
