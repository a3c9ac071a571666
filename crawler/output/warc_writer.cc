#include "crawler/output/warc_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crawler/output/cdxj_index.h"

namespace sieve {
namespace {

constexpr char kRevisitProfile[] =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
constexpr char kNotModifiedProfile[] =
    "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

// Field values come from the network (URLs): no CR/LF may reach a record
// head.
std::string OneLine(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

absl::Status Errno(const char* what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WarcWriter>> WarcWriter::Open(
    WarcWriterOptions options) {
  if (options.directory.empty()) {
    return absl::InvalidArgumentError("WarcWriterOptions.directory is empty");
  }
  if (options.max_bytes <= 0) {
    return absl::InvalidArgumentError(
        "WarcWriterOptions.max_bytes must be > 0");
  }
  if (options.gzip_level < 1 || options.gzip_level > 9) {
    return absl::InvalidArgumentError(
        "WarcWriterOptions.gzip_level must be in 1..9");
  }
  if (options.max_digests < 0) {
    return absl::InvalidArgumentError(
        "WarcWriterOptions.max_digests must be >= 0");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.directory, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat(
        "cannot create ", options.directory.string(), ": ", ec.message()));
  }
  if (!options.clock) options.clock = [] { return absl::Now(); };
  if (options.software.empty()) options.software = "Sieve";
  if (options.hostname.empty()) options.hostname = HostName();
  return std::unique_ptr<WarcWriter>(new WarcWriter(std::move(options)));
}

WarcWriter::WarcWriter(WarcWriterOptions options)
    : options_(std::move(options)), next_serial_(options_.first_serial) {}

WarcWriter::~WarcWriter() { (void)Close(); }

std::string WarcWriter::WarcinfoRecord(const std::string& file_name) {
  std::string block = absl::StrCat(
      "software: ", OneLine(options_.software), "\r\n",
      "format: WARC File Format 1.1\r\n",
      "conformsTo: "
      "https://iipc.github.io/warc-specifications/specifications/warc-format/"
      "warc-1.1/\r\n",
      "hostname: ", OneLine(options_.hostname), "\r\n");
  for (const auto& [name, value] : options_.info) {
    absl::StrAppend(&block, OneLine(name), ": ", OneLine(value), "\r\n");
  }
  return FormatWarcRecord({{"WARC-Type", "warcinfo"},
                           {"WARC-Record-ID", NewWarcRecordId(gen_)},
                           {"WARC-Date", WarcDate(options_.clock())},
                           {"WARC-Filename", file_name},
                           {"Content-Type", "application/warc-fields"},
                           {"WARC-Block-Digest", Sha1Digest(block)}},
                          block);
}

absl::Status WarcWriter::OpenNextFile() {
  // Names sort by time; the serial keeps them unique and ordered within a
  // millisecond, O_EXCL refuses to overwrite anything.
  for (int tries = 0; tries < 1000; ++tries) {
    const std::string name = absl::StrFormat(
        "sieve-%s%03d-%05d.warc.gz",
        absl::FormatTime("%Y%m%d%H%M%S", options_.clock(), absl::UTCTimeZone()),
        absl::ToInt64Milliseconds(options_.clock() - absl::UnixEpoch()) % 1000,
        next_serial_++);
    const std::filesystem::path path = options_.directory / name;
    const int fd = open(
        path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return Errno("create", path.string());
    fd_ = fd;
    file_name_ = name;
    file_bytes_ = 0;
    file_exchanges_ = 0;
    dir_synced_ = false;
    cdxj_lines_.clear();
    files_.push_back({name, 0, false});
    ++stats_.files;
    const std::string info =
        GzipMember(WarcinfoRecord(name), options_.gzip_level);
    absl::Status s = Append(info);
    if (s.ok()) ++stats_.records;
    return s;
  }
  return absl::AlreadyExistsError("no free WARC file name after 1000 tries");
}

absl::Status WarcWriter::Append(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", file_name_);
    done += static_cast<size_t>(n);
  }
  file_bytes_ += static_cast<int64_t>(bytes.size());
  stats_.bytes += static_cast<int64_t>(bytes.size());
  return absl::OkStatus();
}

WarcWriter::Plan WarcWriter::PlanExchange(const WarcExchange& ex) {
  Plan plan{.uri = OneLine(ex.target_uri),
            .date = WarcDate(ex.date),
            .request_id = NewWarcRecordId(gen_),
            .response_id = NewWarcRecordId(gen_),
            .head = HeadForArchive(ex.response_head),
            .payload_digest = Sha1Digest(ex.payload),
            .record_digest = {},
            .status = HttpStatusOf(ex.response_head),
            .full = ex.cut == BodyCut::kNone && !ex.payload.empty(),
            .not_modified = false,
            .original = std::nullopt};
  // Revisit when the same full payload was written before (and remembered),
  // or when the exchange's own earlier copy is unchanged (a 304 to its
  // conditional request, or the same payload).
  plan.not_modified = ex.original.has_value() && plan.status == 304;
  if (ex.original.has_value() &&
      (plan.not_modified ||
       (plan.full && plan.payload_digest == ex.original->payload_digest))) {
    plan.original =
        Original{OneLine(ex.original->target_uri), ex.original->date,
                 OneLine(ex.original->record_id)};
  } else if (plan.full && options_.max_digests > 0) {
    auto it = digests_.find(plan.payload_digest);
    if (it != digests_.end()) plan.original = it->second;
  }
  // A 304 carries no payload: the digest is the unchanged original's.
  plan.record_digest = plan.not_modified && !ex.original->payload_digest.empty()
                           ? ex.original->payload_digest
                           : plan.payload_digest;
  return plan;
}

std::string WarcWriter::ResponseRecord(const WarcExchange& ex,
                                       const Plan& plan) const {
  const std::optional<Original>& original = plan.original;
  WarcFields fields = {{"WARC-Type", original ? "revisit" : "response"},
                       {"WARC-Record-ID", plan.response_id},
                       {"WARC-Date", plan.date},
                       {"WARC-Target-URI", plan.uri},
                       {"WARC-Concurrent-To", plan.request_id}};
  if (!ex.ip_address.empty()) {
    fields.push_back({"WARC-IP-Address", OneLine(ex.ip_address)});
  }
  fields.push_back({"Content-Type", "application/http;msgtype=response"});
  std::string block;
  if (original.has_value()) {
    block = plan.head;  // Headers only; the payload is the original's.
    fields.push_back({"WARC-Profile", plan.not_modified ? kNotModifiedProfile
                                                        : kRevisitProfile});
    if (!original->record_id.empty()) {
      fields.push_back({"WARC-Refers-To", original->record_id});
    }
    fields.push_back({"WARC-Refers-To-Target-URI", original->uri});
    fields.push_back({"WARC-Refers-To-Date", WarcDate(original->date)});
  } else {
    block = absl::StrCat(plan.head, ex.payload);
  }
  fields.push_back({"WARC-Block-Digest", Sha1Digest(block)});
  fields.push_back({"WARC-Payload-Digest", plan.record_digest});
  if (!original.has_value() && ex.cut != BodyCut::kNone) {
    fields.push_back(
        {"WARC-Truncated", ex.cut == BodyCut::kLength ? "length" : "time"});
  }
  return GzipMember(FormatWarcRecord(fields, block), options_.gzip_level);
}

absl::Status WarcWriter::MakeRoom(int64_t need) {
  if (fd_ >= 0 && file_exchanges_ > 0 &&
      file_bytes_ + need > options_.max_bytes) {
    if (absl::Status s = Close(); !s.ok()) return s;
  }
  if (fd_ < 0) return OpenNextFile();
  return absl::OkStatus();
}

void WarcWriter::CountWritten(const WarcExchange& ex, const Plan& plan) {
  files_.back().length = file_bytes_;  // Written, not yet durable: see Sync.
  ++file_exchanges_;
  stats_.records += 2;
  if (plan.original.has_value()) {
    ++stats_.revisits;
    return;
  }
  ++stats_.responses;
  stats_.payload_bytes += static_cast<int64_t>(ex.payload.size());
  if (ex.cut != BodyCut::kNone) ++stats_.truncated;
  if (plan.full && options_.max_digests > 0) {
    if (static_cast<int64_t>(digests_.size()) < options_.max_digests) {
      digests_.emplace(plan.payload_digest,
                       Original{plan.uri, ex.date, plan.response_id});
    } else {
      ++stats_.digests_dropped;
    }
  }
}

absl::StatusOr<WarcLocation> WarcWriter::WriteExchange(const WarcExchange& ex) {
  const Plan plan = PlanExchange(ex);
  const std::string response = ResponseRecord(ex, plan);
  const std::string request = GzipMember(
      FormatWarcRecord({{"WARC-Type", "request"},
                        {"WARC-Record-ID", plan.request_id},
                        {"WARC-Date", plan.date},
                        {"WARC-Target-URI", plan.uri},
                        {"WARC-Concurrent-To", plan.response_id},
                        {"Content-Type", "application/http;msgtype=request"},
                        {"WARC-Block-Digest", Sha1Digest(ex.request_head)}},
                       ex.request_head));
  if (absl::Status s =
          MakeRoom(static_cast<int64_t>(request.size() + response.size()));
      !s.ok()) {
    return s;
  }
  absl::Status s = Append(request);
  WarcLocation at{
      file_name_,
      file_bytes_,
      static_cast<int64_t>(response.size()),
      plan.original ? WarcRecordKind::kRevisit : WarcRecordKind::kResponse,
      plan.record_digest,
      plan.response_id};
  if (s.ok()) s = Append(response);
  if (!s.ok()) return s;
  CountWritten(ex, plan);
  cdxj_lines_.push_back(CdxjLine(
      {.url = plan.uri,
       .date = ex.date,
       .mime = plan.original ? "warc/revisit" : MimeOf(ex.response_head),
       .status = plan.status,
       .digest = plan.record_digest,
       .length = at.length,
       .offset = at.offset,
       .filename = file_name_}));
  return at;
}

absl::StatusOr<WarcLocation> WarcWriter::WriteResource(
    const WarcResource& resource) {
  if (!resource.target_uri.starts_with("urn:")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a resource record's URI must be a urn: ", resource.target_uri));
  }
  const std::string uri = OneLine(resource.target_uri);
  const std::string digest = Sha1Digest(resource.block);
  const std::string id = NewWarcRecordId(gen_);
  const std::string record = GzipMember(
      FormatWarcRecord({{"WARC-Type", "resource"},
                        {"WARC-Record-ID", id},
                        {"WARC-Date", WarcDate(resource.date)},
                        {"WARC-Target-URI", uri},
                        {"Content-Type", OneLine(resource.content_type)},
                        {"WARC-Block-Digest", digest},
                        {"WARC-Payload-Digest", digest}},
                       resource.block),
      options_.gzip_level);
  if (absl::Status s = MakeRoom(static_cast<int64_t>(record.size())); !s.ok()) {
    return s;
  }
  WarcLocation at{file_name_,
                  file_bytes_,
                  static_cast<int64_t>(record.size()),
                  WarcRecordKind::kResource,
                  digest,
                  id};
  if (absl::Status s = Append(record); !s.ok()) return s;
  files_.back().length = file_bytes_;
  ++file_exchanges_;
  ++stats_.records;
  ++stats_.resources;
  cdxj_lines_.push_back(CdxjLine({.url = uri,
                                  .date = resource.date,
                                  .mime = OneLine(resource.content_type),
                                  .status = std::nullopt,
                                  .digest = digest,
                                  .length = at.length,
                                  .offset = at.offset,
                                  .filename = file_name_}));
  return at;
}

absl::StatusOr<std::vector<WarcFileState>> WarcWriter::Sync() {
  std::vector<WarcFileState> states = files_;
  if (fd_ >= 0) {
    if (fsync(fd_) != 0) return Errno("fsync", file_name_);
    if (!dir_synced_) {
      const int dir = open(options_.directory.c_str(), O_RDONLY | O_CLOEXEC);
      if (dir >= 0) {
        fsync(dir);
        close(dir);
      }
      dir_synced_ = true;
    }
    states.back().length = file_bytes_;
  }
  return states;
}

absl::Status WarcWriter::Close() {
  if (fd_ < 0) return absl::OkStatus();
  absl::Status s;
  if (fsync(fd_) != 0) s = Errno("fsync", file_name_);
  if (close(fd_) != 0 && s.ok()) s = Errno("close", file_name_);
  fd_ = -1;
  files_.back().length = file_bytes_;
  if (s.ok()) {
    s = WriteCdxjFile(CdxjPathFor(options_.directory / file_name_),
                      std::move(cdxj_lines_));
  }
  cdxj_lines_.clear();
  if (s.ok()) files_.back().closed = true;
  return s;
}

}  // namespace sieve
