#include "crawler/loop/record_sink.h"

#include <optional>
#include <utility>

#include "fetch/fetch_failure.h"

namespace sieve {

namespace fs = std::filesystem;

absl::StatusOr<std::unique_ptr<RecordSink>> RecordSink::Open(
    const fs::path& out, bool resume, const CrawlState& state, bool skipped,
    CrawlCounters& counters, CrawlFrontier* frontier) {
  const fs::path pages = out / "pages.jsonl";
  const fs::path skipped_path = out / "skipped.jsonl";
  if (resume) {
    if (absl::Status s = PagesWriter::TruncateTo(pages, state.pages_offset);
        !s.ok()) {
      return s;
    }
    if (skipped) {
      if (absl::Status s =
              PagesWriter::TruncateTo(skipped_path, state.skipped_offset);
          !s.ok()) {
        return s;
      }
    }
  }
  std::unique_ptr<RecordSink> sink(new RecordSink(counters, frontier));
  absl::StatusOr<std::unique_ptr<PagesWriter>> writer =
      PagesWriter::Open(pages);
  if (!writer.ok()) return writer.status();
  sink->pages_ = *std::move(writer);
  if (skipped) {
    absl::StatusOr<std::unique_ptr<SkippedLog>> log =
        SkippedLog::Open(skipped_path);
    if (!log.ok()) return log.status();
    sink->skipped_ = *std::move(log);
  }
  return sink;
}

absl::Status RecordSink::Write(const PageRecord& record, bool count_links) {
  absl::Status written = pages_->Write(record);
  // Only now may a shared frontier let the URL go (its errors show in
  // frontier.status()).
  if (written.ok() && frontier_ != nullptr) {
    (void)frontier_->RecordWritten(record.url);
  }
  ++counters_.pages;
  ++status_classes_[record.status >= 100 && record.status < 600
                        ? static_cast<size_t>(record.status / 100)
                        : 0];
  if (!record.error.empty()) {
    if (std::optional<FailureCode> code = FailureCodeFromName(record.error)) {
      ++counters_.failures[static_cast<size_t>(*code)];
    }
  }
  counters_.bytes += static_cast<uint64_t>(record.bytes);
  if (count_links) {
    counters_.links_found += static_cast<uint64_t>(record.links_found);
    counters_.links_new += static_cast<uint64_t>(record.links_new);
  }
  if (record.truncated) ++counters_.truncated;
  if (record.requisite) ++counters_.requisites;
  return written;
}

absl::Status RecordSink::Skipped(std::string_view url,
                                 std::string_view found_on, SkipReason reason) {
  if (skipped_ == nullptr) return absl::OkStatus();
  absl::StatusOr<bool> written = skipped_->Add(url, found_on, reason);
  if (!written.ok()) return written.status();
  if (*written) ++counters_.skipped[static_cast<size_t>(reason)];
  return absl::OkStatus();
}

absl::Status RecordSink::CountLinks(const LinkOutcomes& links,
                                    std::string_view found_on) {
#define SIEVE_ADD_LINK_COUNT(name) counters_.name += links.name;
  SIEVE_LINK_COUNTERS(SIEVE_ADD_LINK_COUNT)
#undef SIEVE_ADD_LINK_COUNT
  absl::Status status;
  for (const SkippedLink& link : links.skipped) {
    status.Update(Skipped(link.url, found_on, link.reason));
  }
  return status;
}

absl::Status RecordSink::Sync(CrawlState& state) {
  if (absl::Status s = pages_->Sync(); !s.ok()) return s;
  state.pages_offset = pages_->offset();
  if (skipped_ != nullptr) {
    if (absl::Status s = skipped_->Sync(); !s.ok()) return s;
    state.skipped_offset = skipped_->offset();
  }
  return absl::OkStatus();
}

}  // namespace sieve
