#include "crawler/output/cdxj_index.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crawler/output/warc_exchange.h"
#include "crawler/output/warc_format.h"
#include "crawler/output/warc_reader.h"
#include "filter/durable_file.h"
#include "nlohmann/json.hpp"
#include "parse/surt.h"

namespace sieve {
namespace {

// Debian's Abseil has its own string_view.
absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

std::string CdxjLine(const CdxjEntry& entry) {
  std::string_view digest = entry.digest;
  if (absl::StartsWith(A(digest), "sha1:")) digest.remove_prefix(5);
  nlohmann::ordered_json json;
  json["url"] = entry.url;
  json["mime"] = entry.mime;
  if (entry.status.has_value()) {
    json["status"] = std::to_string(*entry.status);
  }
  json["digest"] = std::string(digest);
  json["length"] = std::to_string(entry.length);
  json["offset"] = std::to_string(entry.offset);
  json["filename"] = entry.filename;
  // A urn: (a resource record's) is its own key, lower-cased as pywb does.
  const std::string key = absl::StartsWith(A(entry.url), "urn:")
                              ? absl::AsciiStrToLower(entry.url)
                              : SurtKey(entry.url);
  return absl::StrCat(
      key, " ", CdxTimestamp(entry.date), " ",
      json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::filesystem::path CdxjPathFor(const std::filesystem::path& warc) {
  std::string name = warc.filename().string();
  for (std::string_view suffix : {".warc.gz", ".warc"}) {
    if (absl::EndsWith(name, A(suffix))) {
      name.resize(name.size() - suffix.size());
      break;
    }
  }
  return warc.parent_path() / (name + ".cdxj");
}

absl::Status WriteCdxjFile(const std::filesystem::path& path,
                           std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const std::string& line : lines) absl::StrAppend(&text, line, "\n");
  return WriteFileAtomically(path, text);
}

absl::Status IndexWarcFile(const std::filesystem::path& warc, int64_t length) {
  absl::StatusOr<WarcFileReader> reader = WarcFileReader::Open(warc);
  if (!reader.ok()) return reader.status();
  const std::string filename = warc.filename().string();
  std::vector<std::string> lines;
  int64_t at = 0;
  while (at < std::min(length, reader->size())) {
    absl::StatusOr<WarcRecord> record = reader->ReadAt(at);
    if (!record.ok()) return record.status();
    const std::string type = record->Field("WARC-Type");
    if (type == "response" || type == "revisit" || type == "resource") {
      CdxjEntry e;
      e.url = record->Field("WARC-Target-URI");
      if (!ParseWarcDate(record->Field("WARC-Date"), &e.date)) {
        return absl::DataLossError(
            absl::StrCat("bad WARC-Date in record at ", at));
      }
      if (type == "resource") {  // Bytes without an HTTP head.
        e.mime = record->Field("Content-Type");
      } else {
        e.mime = type == "revisit" ? "warc/revisit" : MimeOf(record->block);
        e.status = HttpStatusOf(record->block);
      }
      e.digest = record->Field("WARC-Payload-Digest");
      e.length = record->length;
      e.offset = at;
      e.filename = filename;
      lines.push_back(CdxjLine(e));
    }
    at += record->length;
  }
  return WriteCdxjFile(CdxjPathFor(warc), std::move(lines));
}

}  // namespace sieve
