// Save → load is bit-identical for every kind; damaged or foreign input is an
// error that says what is wrong. Includes the schema test pinning the saved
// image.
#include <filesystem>
#include <string>

#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/counting_bloom_filter.h"
#include "filter/filter.h"
#include "filter/key_hash.h"
#include "filter/scalable_bloom_filter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/files.h"
#include "tests/common/temp_dir.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_keys::KeySet;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

class PersistenceTest : public ::testing::TestWithParam<FilterKind> {
 protected:
  // A filter of the kind under test with 30'000 keys (the scalable one has
  // grown 3 stages).
  std::unique_ptr<Filter> MakeFilled() {
    std::unique_ptr<Filter> f = *CreateFilter(
        {.kind = GetParam(), .capacity = 10'000, .fp_rate = 0.01});
    for (size_t i = 0; i < keys_.size(); ++i) f->Add(keys_[i]);
    return f;
  }
  const KeySet keys_{0, 30'000};
};

TEST_P(PersistenceTest, SerializeThenDeserializeIsBitIdentical) {
  std::unique_ptr<Filter> f = MakeFilled();
  const std::string bytes = f->Serialize();
  absl::StatusOr<std::unique_ptr<Filter>> g = DeserializeFilter(bytes);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->kind(), GetParam());
  EXPECT_TRUE((*g)->Serialize() == bytes);
  EXPECT_EQ((*g)->EstimatedCount(), f->EstimatedCount());
  EXPECT_EQ((*g)->capacity(), f->capacity());
  // The same answers (every key, for the kinds that never forget).
  for (size_t i = 0; i < keys_.size(); ++i) {
    ASSERT_EQ((*g)->MayContain(keys_[i]), f->MayContain(keys_[i]));
    if (!FilterKindForgets(GetParam())) {
      ASSERT_TRUE((*g)->MayContain(keys_[i]));
    }
  }
}

TEST_P(PersistenceTest, SerializeToHandsOverSerializesBytes) {
  std::unique_ptr<Filter> f = MakeFilled();
  std::string pieces;
  int calls = 0;
  f->SerializeTo([&](std::string_view piece) {
    pieces.append(piece);
    ++calls;
  });
  EXPECT_TRUE(pieces == f->Serialize());
  EXPECT_GT(calls, 1);  // The header apart from the bits: not one copy.
}

TEST_P(PersistenceTest, SaveThenLoadIsBitIdenticalCopiedOrMapped) {
  std::unique_ptr<Filter> f = MakeFilled();
  const test::ScopedTempDir dir;
  const std::string path = (dir / "filter").string();
  ASSERT_TRUE(f->SaveToFile(path).ok());
  const std::string saved = test::ReadFile(path);
  EXPECT_TRUE(saved == f->Serialize());
  for (bool map : {false, true}) {
    absl::StatusOr<std::unique_ptr<Filter>> g =
        LoadFilterFromFile(path, LoadOptions{.memory_map = map});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE((*g)->Serialize() == saved) << "memory_map=" << map;
    // A mapped filter is private: adding to it leaves the file alone.
    (*g)->Add("added after loading");
    EXPECT_TRUE((*g)->MayContain("added after loading"));
  }
  EXPECT_TRUE(test::ReadFile(path) == saved);
}

TEST_P(PersistenceTest, TruncatedImagesAreRejected) {
  const std::string bytes = MakeFilled()->Serialize();
  for (size_t size : {size_t{0}, size_t{5}, size_t{8}, size_t{63}, size_t{71},
                      bytes.size() / 2, bytes.size() - 8, bytes.size() - 1}) {
    absl::StatusOr<std::unique_ptr<Filter>> g =
        DeserializeFilter(bytes.substr(0, size));
    ASSERT_FALSE(g.ok()) << size;
    EXPECT_THAT(Message(g.status()), HasSubstr("truncated"))
        << size << ": " << g.status();
  }
}

TEST_P(PersistenceTest, AnyFlippedBitIsRejected) {
  const std::string bytes = MakeFilled()->Serialize();
  // Every header byte, then bytes spread over the payload and the checksum.
  std::vector<size_t> positions;
  for (size_t i = 8; i < 64; ++i) positions.push_back(i);
  for (size_t i = 64; i < bytes.size(); i += bytes.size() / 97 + 1)
    positions.push_back(i);
  positions.push_back(bytes.size() - 1);
  for (size_t at : positions) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    absl::StatusOr<std::unique_ptr<Filter>> g = DeserializeFilter(damaged);
    EXPECT_FALSE(g.ok()) << "flip at byte " << at << " of " << bytes.size();
  }
  std::string damaged = bytes;
  damaged[bytes.size() / 2] ^= 1;
  EXPECT_THAT(Message(DeserializeFilter(damaged).status()),
              HasSubstr("checksum"));
}

TEST_P(PersistenceTest, WrongMagicAndForeignFilesAreRejected) {
  std::string bytes = MakeFilled()->Serialize();
  bytes[0] = 'X';
  EXPECT_THAT(Message(DeserializeFilter(bytes).status()), HasSubstr("magic"));
  const test::ScopedTempDir dir;
  const std::string path = (dir / "foreign").string();
  test::WriteFile(
      path, "<html><body>not a filter at all, just a web page</body></html>\n");
  absl::StatusOr<std::unique_ptr<Filter>> g = LoadFilterFromFile(path);
  EXPECT_THAT(Message(g.status()), HasSubstr("magic"));
}

TEST_P(PersistenceTest, TrailingBytesAreRejected) {
  const std::string bytes = MakeFilled()->Serialize() + std::string(8, '\0');
  EXPECT_FALSE(DeserializeFilter(bytes).ok());
}

// A full disk while the image is written (its temporary file is a link to
// /dev/full, which fails every write with ENOSPC) is ResourceExhausted, and
// neither the temporary file nor a partial image is left.
TEST_P(PersistenceTest, AFullDiskIsResourceExhaustedAndLeavesNothing) {
  std::unique_ptr<Filter> f = MakeFilled();
  const test::ScopedTempDir dir;
  const std::filesystem::path path = dir / "filter";
  std::filesystem::create_symlink("/dev/full", dir / "filter.tmp");
  const absl::Status saved = f->SaveToFile(path.string());
  EXPECT_EQ(saved.code(), absl::StatusCode::kResourceExhausted) << saved;
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "filter.tmp"));
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, PersistenceTest,
    ::testing::Values(FilterKind::kClassic, FilterKind::kBlocked,
                      FilterKind::kCounting, FilterKind::kScalable,
                      FilterKind::kStable, FilterKind::kGenerational),
    [](const auto& param_info) {
      return std::string(FilterKindName(param_info.param));
    });

TEST(PersistenceErrorsTest, AConcreteClassRefusesAnotherKindsImage) {
  const std::string blocked =
      BlockedBloomFilter::ForCapacity(1000, 0.01).Serialize();
  absl::StatusOr<BloomFilter> f = BloomFilter::Deserialize(blocked);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(Message(f.status()), HasSubstr("blocked"));
  EXPECT_FALSE(ScalableBloomFilter::Deserialize(blocked).ok());
  EXPECT_FALSE(CountingBloomFilter::Deserialize(blocked).ok());
}

TEST(PersistenceErrorsTest, UnknownVersionIsNamed) {
  std::string bytes = BloomFilter::ForCapacity(1000, 0.01).Serialize();
  bytes[8] = 9;
  EXPECT_THAT(Message(DeserializeFilter(bytes).status()),
              HasSubstr("version 9"));
}

TEST(PersistenceErrorsTest, MissingFileIsNotFound) {
  EXPECT_EQ(LoadFilterFromFile("/nonexistent/dir/filter.bloom").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_FALSE(
      BloomFilter::ForCapacity(10, 0.1).SaveToFile("/nonexistent/dir/f").ok());
}

TEST(PersistenceErrorsTest, LoadedFilterTakesTheConcurrentOption) {
  BloomFilter f = BloomFilter::ForCapacity(1000, 0.01);
  absl::StatusOr<BloomFilter> g =
      BloomFilter::Deserialize(f.Serialize(), {.concurrent = true});
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->concurrent());
}

// Schema test: the saved form of a fixed filter, pinned. If this fails, the
// on-disk format or the key hash changed: old files no longer load right. Bump
// kFormatVersion and re-pin deliberately.
TEST(FilterSchemaTest, SavedImageOfAFixedFilterIsPinned) {
  BloomFilter f =
      *BloomFilter::CreateWithSize(256, 3, {.capacity = 20, .fp_rate = 0.05});
  for (const char* url :
       {"http://a/", "http://b/", "https://example.com/x?y=1"})
    f.Add(url);
  const std::string bytes = f.Serialize();
  ASSERT_EQ(bytes.size(), 64u + 32u + 8u);
  std::string hex;
  for (unsigned char c : bytes) {
    static const char* kDigits = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  EXPECT_EQ(hex.substr(0, 128),
            // magic    ver kind   k   m              seed
            "5349455645464c54"
            "0100"
            "01"
            "00"
            "03000000"
            "0001000000000000"
            "4d4c424556454953"
            "1400000000000000"
            "9a9999999999a93f"
            "0900000000000000"
            "2000000000000000");
  // payload: 4 words holding 9 set bits; then the XXH3-64 checksum.
  EXPECT_EQ(hex.substr(128),
            "0000008000000000"
            "8000000000000000"
            "4000010008404001"
            "0000000002000000"
            "b476d3ff827a3830");
}

}  // namespace
}  // namespace sieve
