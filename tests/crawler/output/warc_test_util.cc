#include "tests/crawler/output/warc_test_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace sieve::testing_warc {

WarcExchange Exchange(const std::string& url, const std::string& body,
                      absl::Time date) {
  WarcExchange ex;
  ex.target_uri = url;
  ex.date = date;
  ex.ip_address = "127.0.0.1";
  ex.request_head = absl::StrCat("GET ", url.substr(url.find('/', 8)),
                                 " HTTP/1.1\r\nHost: a.test\r\n"
                                 "User-Agent: SieveBot/0.1\r\n\r\n");
  ex.response_head = absl::StrCat(
      "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
      "Content-Length: ",
      body.size(), "\r\n\r\n");
  ex.payload = body;
  return ex;
}

std::vector<WarcRecord> ReadAll(const std::filesystem::path& warc) {
  std::vector<WarcRecord> records;
  absl::StatusOr<WarcFileReader> reader = WarcFileReader::Open(warc);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return records;
  int64_t at = 0;
  while (at < reader->size()) {
    absl::StatusOr<WarcRecord> record = reader->ReadAt(at);
    EXPECT_TRUE(record.ok()) << record.status();
    if (!record.ok()) break;
    at += record->length;
    records.push_back(*std::move(record));
  }
  return records;
}

std::vector<std::filesystem::path> FilesEndingWith(
    const std::filesystem::path& dir, const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string FindWarcio() {
  if (const char* env = std::getenv("SIEVE_WARCIO"); env && *env) return env;
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    const std::filesystem::path candidate =
        std::filesystem::path(std::string(dir)) / "warcio";
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return candidate.string();
    }
  }
  return "";
}

std::unique_ptr<WarcWriter> OpenWriter(const std::filesystem::path& dir,
                                       int64_t max_bytes) {
  WarcWriterOptions o;
  o.directory = dir;
  o.max_bytes = max_bytes;
  o.software = "Sieve/test";
  o.info = {{"user-agent", "SieveBot/0.1"}, {"robots", "obey"}};
  absl::StatusOr<std::unique_ptr<WarcWriter>> w = WarcWriter::Open(o);
  EXPECT_TRUE(w.ok()) << w.status();
  return *std::move(w);
}

std::string RandomBody(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

}  // namespace sieve::testing_warc
