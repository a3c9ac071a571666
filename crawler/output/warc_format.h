// crawler/output/warc_format.h: the byte-level pieces of WARC 1.1 (ISO
// 28500:2017) records that the writer, the reader and the index share.
//
//   - Sha1Digest: "sha1:" + RFC 4648 Base32 of the SHA-1 (OpenSSL libcrypto),
//     the form WARC-Block-Digest / WARC-Payload-Digest carry and wget, warcio
//     and Heritrix write.
//   - NewWarcRecordId: "<urn:uuid:...>" with a random (version 4) UUID,
//     RFC 4122 4.4.
//   - WarcDate: "2026-11-22T14:05:55.123456Z" (WARC 1.1 5.4 allows fractions
//     of a second); CdxTimestamp: the 14-digit "20261122140555" of CDX files.
//   - FormatWarcRecord: "WARC/1.1" CRLF, the named fields, Content-Length,
//     CRLF, the block, CRLF CRLF (WARC 1.1 section 4).
//   - GzipMember: one gzip member (RFC 1952) holding the bytes, so each record
//     can be read alone from its offset (WARC 1.1 annex D.2).
//
// Example:
//   std::string record = sieve::FormatWarcRecord(
//       {{"WARC-Type", "resource"}, {"WARC-Record-ID", NewWarcRecordId(gen)}},
//       "hello");
//   file.Append(sieve::GzipMember(record));
#ifndef SIEVE_CRAWLER_OUTPUT_WARC_FORMAT_H_
#define SIEVE_CRAWLER_OUTPUT_WARC_FORMAT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/time/time.h"

namespace sieve {

using WarcFields = std::vector<std::pair<std::string, std::string>>;

// "sha1:" + Base32 (RFC 4648, upper case, no padding needed: 160 bits = 32
// characters) of SHA-1(bytes). Cost: O(|bytes|), about 1 GB/s.
std::string Sha1Digest(std::string_view bytes);

// RFC 4648 Base32 (upper-case alphabet, '=' padding).
std::string Base32(std::string_view bytes);

// "<urn:uuid:xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx>" from 122 random bits.
std::string NewWarcRecordId(absl::BitGenRef gen);

// UTC, microseconds: "YYYY-MM-DDThh:mm:ss.ffffffZ".
std::string WarcDate(absl::Time t);

// Parses WarcDate's form, with or without fractions. False if it does not
// parse.
bool ParseWarcDate(std::string_view text, absl::Time* t);

// UTC "YYYYMMDDhhmmss".
std::string CdxTimestamp(absl::Time t);

// The record: version line, `fields` in order, Content-Length, blank line,
// block, CRLF CRLF. REQUIRES: no field value holds CR or LF (the writer
// strips them).
std::string FormatWarcRecord(const WarcFields& fields, std::string_view block);

// `bytes` as one complete gzip member, deflated at zlib `level` (1 fastest
// ... 9 smallest; 6 is zlib's default).
std::string GzipMember(std::string_view bytes, int level = 6);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_WARC_FORMAT_H_
