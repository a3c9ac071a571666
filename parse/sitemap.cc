#include "parse/sitemap.h"

#include <expat.h>
#include <zlib.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "parse/internal/sitemap_xml.h"

namespace sieve {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
         c == '\v';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// Receives the uncompressed bytes in order, at most kMaxUncompressedBytes in
// all; decides XML or text from the first non-blank byte and feeds the right
// reader. Returns false when the reader wants no more input.
class Sink {
 public:
  Sink(SitemapResult* result, const SitemapParseOptions& options)
      : result_(result), options_(options) {}

  bool Feed(std::string_view chunk) {
    result_->uncompressed_bytes += static_cast<int64_t>(chunk.size());
    if (mode_ == Mode::kUndecided) {
      std::string_view rest = chunk;
      // The first chunk is never shorter than a BOM unless the file is.
      if (first_chunk_ && rest.substr(0, 3) == "\xEF\xBB\xBF") {
        rest.remove_prefix(3);
      }
      first_chunk_ = false;
      while (!rest.empty() && IsBlank(rest.front())) rest.remove_prefix(1);
      if (rest.empty()) return true;
      if (rest.front() == '<') {
        mode_ = Mode::kXml;
        xml_ = std::make_unique<parse_internal::SitemapXmlReader>(result_,
                                                                  options_);
      } else {
        mode_ = Mode::kText;
        result_->kind = SitemapKind::kText;
      }
      chunk = rest;
    }
    if (mode_ == Mode::kXml) return xml_->Feed(chunk, /*last=*/false);
    return FeedText(chunk);
  }

  void Finish(bool complete) {
    if (mode_ == Mode::kXml) {
      if (complete) xml_->Feed({}, /*last=*/true);
    } else if (mode_ == Mode::kText && complete) {
      TextLine(line_);
      line_.clear();
    }
  }

 private:
  enum class Mode { kUndecided, kXml, kText };

  bool FeedText(std::string_view chunk) {
    while (!chunk.empty()) {
      if (line_.empty()) {  // Blank lines cost one comparison per byte.
        size_t i = 0;
        while (i < chunk.size() && IsBlank(chunk[i])) ++i;
        chunk.remove_prefix(i);
        if (chunk.empty()) return true;
      }
      const size_t nl = chunk.find('\n');
      if (nl == std::string_view::npos) {
        // A line longer than any URL we keep is dropped at its end.
        if (line_.size() <= kSitemapMaxUrlBytes) line_.append(chunk);
        return true;
      }
      std::string_view line = chunk.substr(0, nl);
      chunk.remove_prefix(nl + 1);
      if (!line_.empty()) {  // The line began in an earlier chunk.
        if (line_.size() <= kSitemapMaxUrlBytes) line_.append(line);
        const std::string joined = std::move(line_);
        line_.clear();
        if (!TextLine(joined)) return false;
      } else if (!TextLine(line)) {
        return false;
      }
    }
    return true;
  }

  bool TextLine(std::string_view line) {
    if (line.size() > kSitemapMaxUrlBytes + 64) {
      ++result_->skipped_entries;
      return true;
    }
    line = Trim(line);
    if (line.empty()) return true;
    return parse_internal::AddSitemapEntry(result_, std::string(line), "");
  }

  SitemapResult* result_;
  const SitemapParseOptions& options_;
  Mode mode_ = Mode::kUndecided;
  bool first_chunk_ = true;
  std::string line_;
  std::unique_ptr<parse_internal::SitemapXmlReader> xml_;
};

void SetError(SitemapResult* result, SitemapError error, std::string message) {
  if (result->error != SitemapError::kNone) return;
  result->error = error;
  result->error_message = std::move(message);
}

// Feeds `bytes` to the sink, cut at the byte limit.
void FeedPlain(std::string_view bytes, Sink* sink, SitemapResult* result) {
  bool cut = false;
  if (static_cast<int64_t>(bytes.size()) > kSitemapMaxUncompressedBytes) {
    bytes = bytes.substr(0, kSitemapMaxUncompressedBytes);
    cut = true;
  }
  bool more = true;
  while (more && !bytes.empty()) {
    const size_t n = std::min(bytes.size(), kChunkBytes);
    more = sink->Feed(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  if (!more) return;
  sink->Finish(!cut);
  if (cut) {
    SetError(result, SitemapError::kTooLarge,
             "sitemap larger than 50 MiB; cut there");
  }
}

// Inflates gzip member(s) 64 KiB at a time into the sink; stops once 50 MiB
// have come out, however much more the stream would produce.
void FeedGzip(std::string_view bytes, Sink* sink, SitemapResult* result) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) {  // 15 + 32: zlib or gzip header.
    SetError(result, SitemapError::kBadGzip, "inflateInit2 failed");
    return;
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out(kChunkBytes, '\0');
  int64_t produced = 0;
  while (true) {
    const int64_t room = kSitemapMaxUncompressedBytes - produced;
    if (room == 0) {
      // Is there more? Inflate one more byte to find out, then stop.
      char probe;
      z.next_out = reinterpret_cast<Bytef*>(&probe);
      z.avail_out = 1;
      const int rc = inflate(&z, Z_NO_FLUSH);
      if (z.avail_out == 0 || (rc != Z_STREAM_END && z.avail_in > 0)) {
        SetError(result, SitemapError::kTooLarge,
                 "gzip sitemap inflates past 50 MiB; cut there");
        return;
      }
      sink->Finish(true);
      return;
    }
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(std::min<int64_t>(room, kChunkBytes));
    const uInt asked = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const size_t got = asked - z.avail_out;
    produced += static_cast<int64_t>(got);
    if (got > 0 && !sink->Feed(std::string_view(out.data(), got))) return;
    if (rc == Z_STREAM_END) {
      // Concatenated members (gzip allows them): go on if bytes remain.
      if (z.avail_in > 0 && inflateReset(&z) == Z_OK) continue;
      sink->Finish(true);
      return;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      // Cut short: keep what we read, the XML reader reports what is open.
      sink->Finish(true);
      SetError(result, SitemapError::kBadGzip, "gzip stream ends early");
      return;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      SetError(result, SitemapError::kBadGzip,
               std::string("corrupt gzip stream: ") +
                   (z.msg != nullptr ? z.msg : "inflate error"));
      return;
    }
  }
}

}  // namespace

std::string_view SitemapErrorName(SitemapError error) {
  switch (error) {
    case SitemapError::kNone:
      return "none";
    case SitemapError::kNotASitemap:
      return "not_a_sitemap";
    case SitemapError::kWrongNamespace:
      return "wrong_namespace";
    case SitemapError::kMissingLoc:
      return "missing_loc";
    case SitemapError::kMalformedXml:
      return "malformed_xml";
    case SitemapError::kDoctype:
      return "doctype";
    case SitemapError::kBadGzip:
      return "bad_gzip";
    case SitemapError::kTooManyUrls:
      return "too_many_urls";
    case SitemapError::kTooLarge:
      return "too_large";
  }
  return "unknown";
}

SitemapResult ParseSitemap(std::string_view bytes,
                           const SitemapParseOptions& options) {
  SitemapResult result;
  Sink sink(&result, options);
  result.gzipped =
      bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b';
  if (result.gzipped) {
    FeedGzip(bytes, &sink, &result);
  } else {
    FeedPlain(bytes, &sink, &result);
  }
  if (result.kind == SitemapKind::kUnknown &&
      result.error == SitemapError::kNone) {
    result.error = SitemapError::kNotASitemap;
    result.error_message = "empty sitemap";
  }
  return result;
}

}  // namespace sieve
