// tests/common/compress.h: zlib's deflate for tests that serve or parse
// compressed bytes (Content-Encoding, .xml.gz sitemaps).
//
// Example:
//   server.Serve("/sitemap.xml.gz", sieve::test::Gzip(xml));
//   server.Serve("/z", sieve::test::Compress(page, sieve::test::Wrapper::kZlib));
#ifndef SIEVE_TESTS_COMMON_COMPRESS_H_
#define SIEVE_TESTS_COMMON_COMPRESS_H_

#include <string>
#include <string_view>

namespace sieve::test {

// The framing around the deflate stream.
enum class Wrapper {
  kGzip,  // RFC 1952 (header mtime 0: the same bytes on every run)
  kZlib,  // RFC 1950, what HTTP calls "deflate" (RFC 9110 8.4.1.2)
  kRaw,   // RFC 1951 alone, which some servers send as "deflate"
};

// `data` deflated at zlib's best compression in one stream of `wrapper`.
// Fails the test (ADD_FAILURE) and returns "" when zlib refuses.
std::string Compress(std::string_view data, Wrapper wrapper);

// Compress(data, Wrapper::kGzip).
std::string Gzip(std::string_view data);

}  // namespace sieve::test

#endif  // SIEVE_TESTS_COMMON_COMPRESS_H_
