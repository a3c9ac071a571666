#include "crawler/loop/crawl_state.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "crawler/output/warc_recovery.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

constexpr size_t kListedCounters = 0
#define SIEVE_COUNT(name) +1
    SIEVE_CRAWL_COUNTERS(SIEVE_COUNT)
#undef SIEVE_COUNT
    ;
// Every listed count is a uint64_t: a field added to CrawlCounters and not to
// SIEVE_CRAWL_COUNTERS fails here.
static_assert(sizeof(CrawlCounters) == kListedCounters * sizeof(uint64_t) +
                                           sizeof(double) +
                                           sizeof(CrawlCounters::failures) +
                                           sizeof(CrawlCounters::skipped),
              "CrawlCounters has a field SIEVE_CRAWL_COUNTERS does not list");

void CountersFromJson(const nlohmann::json& j, CrawlCounters& c) {
#define SIEVE_READ(name) \
  if (j.contains(#name)) j.at(#name).get_to(c.name);
  SIEVE_CRAWL_COUNTERS(SIEVE_READ)
  SIEVE_READ(run_seconds)
#undef SIEVE_READ
  if (j.contains("skipped")) {
    const nlohmann::json& skipped = j.at("skipped");
    for (SkipReason reason : AllSkipReasons()) {
      const std::string name(SkipReasonName(reason));
      if (skipped.contains(name)) {
        skipped.at(name).get_to(c.skipped[static_cast<size_t>(reason)]);
      }
    }
  }
  if (!j.contains("failures")) return;
  const nlohmann::json& failures = j.at("failures");
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    const std::string name(FailureCodeName(static_cast<FailureCode>(i)));
    if (failures.contains(name)) failures.at(name).get_to(c.failures[i]);
  }
}

constexpr std::string_view kStateFile = "crawl.state";
// The domain budget's table (DomainBudget::Save), when it tracks a domain.
constexpr std::string_view kDomainBudgetFile = "domains.budget";
constexpr int kStateFormat = 1;

}  // namespace

nlohmann::json CountersToJson(const CrawlCounters& c) {
  nlohmann::ordered_json j;
#define SIEVE_WRITE(name) j[#name] = c.name;
  SIEVE_CRAWL_COUNTERS(SIEVE_WRITE)
  SIEVE_WRITE(run_seconds)
#undef SIEVE_WRITE
  nlohmann::ordered_json failures = nlohmann::ordered_json::object();
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    if (c.failures[i] == 0) continue;
    failures[std::string(FailureCodeName(static_cast<FailureCode>(i)))] =
        c.failures[i];
  }
  j["failures"] = std::move(failures);
  // Every reason, 0 included: the summary lists the closed set.
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (SkipReason reason : AllSkipReasons()) {
    skipped[std::string(SkipReasonName(reason))] =
        c.skipped[static_cast<size_t>(reason)];
  }
  j["skipped"] = std::move(skipped);
  return j;
}

absl::Status WriteCheckpoint(const fs::path& dir, const CrawlState& state,
                             CrawlFrontier& frontier,
                             SnapshotChecksumCache* cache) {
  absl::StatusOr<SnapshotWriter> snapshot = SnapshotWriter::Begin(dir, cache);
  if (!snapshot.ok()) return snapshot.status();
  nlohmann::ordered_json j;
  j["format"] = kStateFormat;
  j["pages_offset"] = state.pages_offset;
  j["skipped_offset"] = state.skipped_offset;
  j["sequence"] = state.sequence;
  j["counters"] = CountersToJson(state.counters);
  j["seed_hosts"] = state.seed_hosts;
  j["warc_files"] = WarcFileStatesToJson(state.warc_files);
  if (absl::Status s = snapshot->AddFile(kStateFile, j.dump()); !s.ok()) {
    return s;
  }
  if (!state.domain_budget.empty()) {
    if (absl::Status s =
            snapshot->AddFile(kDomainBudgetFile, state.domain_budget);
        !s.ok())
      return s;
  }
  if (absl::Status s = frontier.Checkpoint(*snapshot); !s.ok()) return s;
  return snapshot->Commit();
}

absl::StatusOr<CrawlState> DecodeCrawlState(std::string_view text,
                                            std::string_view source) {
  const std::string path(source);
  CrawlState state;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (const uint64_t format = j.at("format").get<uint64_t>();
        format != kStateFormat) {
      return FormatVersionError(path, format, kStateFormat);
    }
    state.pages_offset = j.at("pages_offset").get<uint64_t>();
    state.sequence = j.at("sequence").get<uint64_t>();
    if (j.contains("skipped_offset")) {
      state.skipped_offset = j.at("skipped_offset").get<uint64_t>();
    }
    CountersFromJson(j.at("counters"), state.counters);
    state.seed_hosts = j.at("seed_hosts").get<std::vector<std::string>>();
    if (j.contains("warc_files")) {
      absl::StatusOr<std::vector<WarcFileState>> warc =
          WarcFileStatesFromJson(j.at("warc_files"));
      if (!warc.ok()) {
        return absl::DataLossError(
            absl::StrCat(path, ": warc_files: ", warc.status().message()));
      }
      state.warc_files = *std::move(warc);
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": ", e.what()));
  }
  return state;
}

absl::StatusOr<CrawlState> ReadCrawlState(const SnapshotReader& snapshot) {
  // Builds of 26 Nov 2026 before the history moved into the crawl's store
  // (frontier/url_record_store.h) saved it as this file; resuming without it
  // would silently forget every URL's validators and schedule.
  constexpr std::string_view kOldHistoryFile = "crawl.history";
  if (snapshot.Contains(kOldHistoryFile)) {
    return absl::FailedPreconditionError(absl::StrCat(
        snapshot.PathOf(kOldHistoryFile).string(),
        ": this checkpoint keeps its revisit history in the older "
        "crawl.history file, which this build does not read; resume it with "
        "the build that wrote it"));
  }
  absl::StatusOr<std::string> text = snapshot.ReadFile(kStateFile);
  if (!text.ok()) return text.status();
  absl::StatusOr<CrawlState> state =
      DecodeCrawlState(*text, snapshot.PathOf(kStateFile).string());
  if (state.ok() && snapshot.Contains(kDomainBudgetFile)) {
    absl::StatusOr<std::string> budget = snapshot.ReadFile(kDomainBudgetFile);
    if (!budget.ok()) return budget.status();
    state->domain_budget = *std::move(budget);
  }
  return state;
}

}  // namespace sieve
