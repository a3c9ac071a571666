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

uint64_t CeilSeconds(absl::Time t) {
  const int64_t s = absl::ToUnixSeconds(t);
  const bool exact = absl::FromUnixSeconds(s) == t;
  return static_cast<uint64_t>(std::max<int64_t>(1, exact ? s : s + 1));
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
  if (options.politeness.max_in_flight_per_host < 1)
    return absl::InvalidArgumentError(
        "GrpcFrontier: max_in_flight_per_host must be >= 1");
  return std::unique_ptr<GrpcFrontier>(new GrpcFrontier(std::move(options)));
}

GrpcFrontier::GrpcFrontier(GrpcFrontierOptions options)
    : options_(std::move(options)), rpc_(std::make_unique<Rpc>()) {
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

void GrpcFrontier::AddMany(std::span<const FrontierAdd> urls,
                           std::span<bool> queued) {
  std::fill(queued.begin(), queued.end(), false);
  if (urls.empty()) return;
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
      stats_.added += ack.added();
      stats_.duplicates += urls.size() - ack.added();
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
  stats_.added += acked;
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
  while (reader->Read(&info)) {
    buffer_.push_back(FromInfo(info));
    ++n;
  }
  const grpc::Status s = reader->Finish();
  if (!s.ok()) NoteErrorLocked(FromGrpc(s, "GetURLs"));
  return n;
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

NextUrl GrpcFrontier::Next(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (buffer_.empty() && now >= next_poll_) {
    if (RefillLocked() == 0) next_poll_ = now + options_.idle_poll;
  }
  absl::Time earliest = absl::InfiniteFuture();
  for (auto it = buffer_.begin(); it != buffer_.end(); ++it) {
    Host& h = hosts_[it->host];
    if (h.in_flight >= options_.politeness.max_in_flight_per_host) continue;
    if (h.next_allowed > now) {
      earliest = std::min(earliest, h.next_allowed);
      continue;
    }
    NextUrl out{.state = NextUrl::kReady, .url = std::move(*it)};
    buffer_.erase(it);
    ++h.in_flight;
    auto [r_throttle, r_error] = retries_[out.url.url];
    in_flight_[out.url.url] = InFlight{.url = out.url,
                                       .throttle_retries = r_throttle,
                                       .error_retries = r_error};
    retries_.erase(out.url.url);
    ++stats_.dispatched;
    return out;
  }
  if (earliest != absl::InfiniteFuture())
    return NextUrl{.state = NextUrl::kWait, .wait = earliest - now};
  if (!buffer_.empty() || !in_flight_.empty())
    return NextUrl{.state = NextUrl::kWaitForDone};
  // Nothing here: finished only if the server has nothing queued (due or not)
  // and nothing in transit at any crawler.
  if (ServerEmptyLocked()) return NextUrl{.state = NextUrl::kEmpty};
  return NextUrl{.state = NextUrl::kWait,
                 .wait = std::max(next_poll_ - now, absl::Milliseconds(1))};
}

absl::Status GrpcFrontier::PutKnownLocked(const FrontierUrl& url,
                                          uint64_t refetch) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  auto stream = rpc_->frontier->PutURLs(&ctx);
  urlfrontier::URLItem item;
  FillInfo(url, options_.crawl_id, item.mutable_known()->mutable_info());
  item.mutable_known()->set_refetchable_from_date(refetch);
  urlfrontier::AckMessage ack;
  const bool exchanged = stream->Write(item) && stream->Read(&ack);
  stream->WritesDone();
  const grpc::Status s = stream->Finish();
  if (!s.ok()) return FromGrpc(s, "PutURLs");
  if (!exchanged || ack.status() != urlfrontier::AckMessage::OK)
    return absl::UnavailableError("PutURLs: update not acknowledged");
  return absl::OkStatus();
}

absl::StatusOr<UrlFate> GrpcFrontier::Done(std::string_view url,
                                           const FetchOutcome& outcome,
                                           absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_flight_.find(std::string(url));
  if (it == in_flight_.end())
    return absl::NotFoundError(
        absl::StrCat("not in flight: ", std::string(url)));
  InFlight f = std::move(it->second);
  in_flight_.erase(it);
  Host& h = hosts_[f.url.host];
  --h.in_flight;
  ++stats_.done;
  const PolitenessOptions& p = options_.politeness;
  std::optional<absl::Duration> retry_in;
  switch (outcome.kind) {
    case FetchOutcome::kSuccess:
      ++stats_.succeeded;
      h.politeness.throttle_streak = 0;
      h.politeness.last_response_time = outcome.response_time;
      h.next_allowed = now + DelayBetweenRequests(p, h.politeness);
      break;
    case FetchOutcome::kThrottled: {
      ++stats_.throttled;
      const absl::Duration backoff = ThrottleBackoff(
          p, ++h.politeness.throttle_streak, outcome.retry_after, rng_);
      h.next_allowed = now + backoff;
      if (++f.throttle_retries <= p.max_throttle_retries) retry_in = backoff;
      break;
    }
    case FetchOutcome::kError:
      ++stats_.failed;
      h.next_allowed = now + DelayBetweenRequests(p, h.politeness);
      if (outcome.transient && ++f.error_retries <= p.max_error_retries)
        retry_in = p.backoff_base;
      if (outcome.transient && !retry_in) {
        ++stats_.given_up;
        absl::Status s = PutKnownLocked(f.url, 0);
        NoteErrorLocked(s);
        return UrlFate::kGivenUp;
      }
      break;
    case FetchOutcome::kNotFetched:
      break;
    case FetchOutcome::kDeferred:
      // Back to the head of the buffer; still in transit on the server.
      h.next_allowed = now + DelayBetweenRequests(p, h.politeness);
      retries_[f.url.url] = {f.throttle_retries, f.error_retries};
      buffer_.push_front(std::move(f.url));
      return UrlFate::kRetryLater;
  }
  if (outcome.kind == FetchOutcome::kThrottled && !retry_in) {
    ++stats_.given_up;
    NoteErrorLocked(PutKnownLocked(f.url, 0));
    return UrlFate::kGivenUp;
  }
  if (retry_in) {
    ++stats_.retried;
    retries_[f.url.url] = {f.throttle_retries, f.error_retries};
    if (absl::Status s = PutKnownLocked(f.url, CeilSeconds(now + *retry_in));
        !s.ok()) {
      NoteErrorLocked(s);
      return s;
    }
    return UrlFate::kRetryLater;
  }
  if (absl::Status s = PutKnownLocked(f.url, 0); !s.ok()) {
    NoteErrorLocked(s);
    return s;
  }
  return UrlFate::kFinished;
}

void GrpcFrontier::SetCrawlDelay(std::string_view host, absl::Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  if (RecordCrawlDelay(options_.politeness, delay,
                       hosts_[std::string(host)].politeness))
    ++stats_.crawl_delays_capped;
}

absl::Status GrpcFrontier::Checkpoint(SnapshotWriter&) {
  return absl::OkStatus();
}

FrontierStats GrpcFrontier::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  FrontierStats s = stats_;
  s.queued = buffer_.size();
  s.queued_in_hosts = buffer_.size();
  s.in_flight = in_flight_.size();
  s.hosts_known = hosts_.size();
  return s;
}

absl::Status GrpcFrontier::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace sieve::service
