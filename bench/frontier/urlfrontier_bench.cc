// The URLFrontier server's throughput, through gRPC on 127.0.0.1 (client and
// server in this process), with the Bloom filter in front of the store and
// without it (every discovered URL then costs a store lookup):
//   - ingestion: PutDiscovered of URLS URLs in batches of BATCH, half of them
//     already known (URLS/2 known URLs are stored first, unmeasured, then
//     URLS are sent: each known URL once, interleaved with as many new ones);
//   - round trips: GetURLs (100 queues x 1 URL) + PutURLs of the same URLs as
//     done, repeated for ROUNDS calls;
//   - disk bytes per stored URL, after a flush.
//
//   urlfrontier_bench [URLS] [BATCH] [ROUNDS] [DIR]
//       (defaults: 10^6, 1000, 300, /tmp/...)
//
// SIEVE_BENCH_SMOKE=1: 2*10^4 URLs and 20 rounds, for the ctest smoke run.
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "frontier/service/frontier_server.h"
#include "sieve_frontier.grpc.pb.h"
#include "urlfrontier.grpc.pb.h"

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kHosts = 1000;

std::string Url(uint64_t i) {
  return absl::StrCat("http://host", i % kHosts, ".example/section/", i / 1000,
                      "/page-", i, ".html");
}

std::chrono::system_clock::time_point Deadline() {
  return std::chrono::system_clock::now() + std::chrono::seconds(120);
}

// Sends `ids` as PutDiscovered batches on one stream; the URLs added.
uint64_t PutDiscovered(sieve_urlfrontier::SieveFrontier::Stub& stub,
                       const std::vector<uint64_t>& ids, size_t batch_size) {
  grpc::ClientContext ctx;
  ctx.set_deadline(Deadline() + std::chrono::seconds(3600));
  auto stream = stub.PutDiscovered(&ctx);
  uint64_t added = 0;
  sieve_urlfrontier::DiscoveredBatch batch;
  sieve_urlfrontier::BatchAck ack;
  for (size_t start = 0; start < ids.size(); start += batch_size) {
    batch.Clear();
    for (size_t i = start; i < std::min(ids.size(), start + batch_size); ++i)
      batch.add_items()->mutable_info()->set_url(Url(ids[i]));
    if (!stream->Write(batch) || !stream->Read(&ack)) break;
    added += ack.added();
  }
  stream->WritesDone();
  const grpc::Status s = stream->Finish();
  if (!s.ok())
    std::fprintf(stderr, "PutDiscovered: %s\n", s.error_message().c_str());
  return added;
}

// One GetURLs + PutURLs(done) round; the URLs completed.
uint64_t RoundTrip(urlfrontier::URLFrontier::Stub& stub) {
  std::vector<std::string> urls;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(Deadline());
    urlfrontier::GetParams p;
    p.set_max_queues(100);
    p.set_max_urls_per_queue(1);
    auto reader = stub.GetURLs(&ctx, p);
    urlfrontier::URLInfo info;
    while (reader->Read(&info)) urls.push_back(info.url());
    if (!reader->Finish().ok()) return 0;
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(Deadline());
  auto stream = stub.PutURLs(&ctx);
  urlfrontier::URLItem item;
  urlfrontier::AckMessage ack;
  for (const std::string& url : urls) {
    item.mutable_known()->mutable_info()->set_url(url);
    if (!stream->Write(item)) break;
  }
  stream->WritesDone();
  uint64_t acked = 0;
  while (stream->Read(&ack)) ++acked;
  return stream->Finish().ok() ? acked : 0;
}

int Run(bool bloom, uint64_t urls, size_t batch, int rounds,
        const fs::path& dir) {
  fs::remove_all(dir);
  sieve::service::FrontierServerOptions o;
  o.listen = "127.0.0.1:0";
  o.core.data_dir = dir;
  o.core.bloom = bloom;
  o.core.expected_urls = urls * 2;
  o.core.default_queue_delay = 0;
  auto server = sieve::service::FrontierServer::Start(std::move(o));
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                          grpc::InsecureChannelCredentials());
  auto sieve_stub = sieve_urlfrontier::SieveFrontier::NewStub(channel);
  auto stub = urlfrontier::URLFrontier::NewStub(channel);

  // Known URLs: even ids below urls; then urls ids, each known id
  // interleaved with a new (odd, or past urls) one.
  std::vector<uint64_t> known, mixed;
  for (uint64_t i = 0; i < urls / 2; ++i) known.push_back(2 * i);
  for (uint64_t i = 0; i < urls / 2; ++i) {
    mixed.push_back(2 * i);
    mixed.push_back(2 * i + 1);
  }
  PutDiscovered(*sieve_stub, known, batch);
  const uint64_t lookups_before = (*server)->core().store_lookups();
  const absl::Time t0 = absl::Now();
  const uint64_t added = PutDiscovered(*sieve_stub, mixed, batch);
  const absl::Duration ingest = absl::Now() - t0;
  const uint64_t lookups = (*server)->core().store_lookups() - lookups_before;

  const absl::Time t1 = absl::Now();
  uint64_t completed = 0;
  for (int r = 0; r < rounds; ++r) completed += RoundTrip(*stub);
  const absl::Duration trips = absl::Now() - t1;

  if (absl::Status s = (*server)->core().FlushStore(); !s.ok())
    std::fprintf(stderr, "flush: %s\n", s.ToString().c_str());
  const double stored = static_cast<double>(urls / 2 + added);
  std::printf(
      "bloom=%-3s ingest %llu URLs (50%% known) in %.2f s: %.0f URLs/s, "
      "%llu added, %llu store lookups | %d GetURLs+PutURLs rounds: "
      "%.0f rounds/s, %.0f URLs done/s | disk %.1f bytes/URL\n",
      bloom ? "on" : "off", static_cast<unsigned long long>(mixed.size()),
      absl::ToDoubleSeconds(ingest),
      static_cast<double>(mixed.size()) / absl::ToDoubleSeconds(ingest),
      static_cast<unsigned long long>(added),
      static_cast<unsigned long long>(lookups), rounds,
      rounds / absl::ToDoubleSeconds(trips),
      static_cast<double>(completed) / absl::ToDoubleSeconds(trips),
      static_cast<double>((*server)->core().disk_bytes()) / stored);
  (*server)->Shutdown(absl::Seconds(1));
  fs::remove_all(dir);
  return added == urls / 2 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = std::getenv("SIEVE_BENCH_SMOKE") != nullptr;
  const uint64_t urls = argc > 1 ? std::strtoull(argv[1], nullptr, 10)
                                 : (smoke ? 20'000 : 1'000'000);
  const size_t batch = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : (smoke ? 20 : 300);
  const fs::path dir =
      argc > 4 ? fs::path(argv[4])
               : fs::temp_directory_path() /
                     absl::StrCat("sieve-urlfrontier-bench-", ::getpid());
  int rc = Run(true, urls, batch, rounds, dir / "bloom");
  rc |= Run(false, urls, batch, rounds, dir / "nobloom");
  fs::remove_all(dir);
  return rc;
}
