#include "tests/common/compress.h"

#include <zlib.h>

#include "gtest/gtest.h"

namespace sieve::test {
namespace {

// zlib's windowBits: 15 is a 32 KiB window; +16 asks for the gzip wrapper, a
// negative value for none (zlib.h, deflateInit2).
int WindowBits(Wrapper wrapper) {
  switch (wrapper) {
    case Wrapper::kGzip:
      return 15 + 16;
    case Wrapper::kZlib:
      return 15;
    case Wrapper::kRaw:
      return -15;
  }
  return 15;
}

}  // namespace

std::string Compress(std::string_view data, Wrapper wrapper) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, WindowBits(wrapper), 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    ADD_FAILURE() << "deflateInit2 failed";
    return "";
  }
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&z, Z_FINISH);  // deflateBound: one call is enough
  out.resize(z.total_out);
  deflateEnd(&z);
  if (result != Z_STREAM_END) {
    ADD_FAILURE() << "deflate did not finish: " << result;
    return "";
  }
  return out;
}

std::string Gzip(std::string_view data) {
  return Compress(data, Wrapper::kGzip);
}

}  // namespace sieve::test
