// UrlRecordStore (frontier/url_record_store.h) through Frontier::UrlRecords:
// records put, read, replaced and listed; on disk in the store's own column
// family, so a checkpoint holds them and a Frontier restored from it (a new
// process's, with nothing in RAM) reads them back; records put after the
// checkpoint are not in it.
#include "frontier/url_record_store.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontier/frontier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::Pair;

class UrlRecordStoreTest : public ::testing::Test {
 protected:
  UrlRecordStoreTest() { fs::create_directories(root_ / "work"); }

  FrontierOptions Options() const {
    return {.sieve = {.expected_urls = 10'000,
                      .fp_rate = 1e-6,
                      .work_dir = root_ / "work"}};
  }

  std::unique_ptr<Frontier> Make() const {
    absl::StatusOr<std::unique_ptr<Frontier>> f = Frontier::Create(Options());
    EXPECT_TRUE(f.ok()) << f.status();
    return std::move(*f);
  }

  const test::ScopedTempDir root_;
};

UrlRecordStore& StoreOf(Frontier& f) {
  absl::StatusOr<UrlRecordStore*> store = f.UrlRecords();
  EXPECT_TRUE(store.ok()) << store.status();
  return **store;
}

std::map<std::string, std::string> All(const UrlRecordStore& store) {
  std::map<std::string, std::string> all;
  EXPECT_TRUE(store
                  .ForEach([&all](std::string_view url, std::string_view b) {
                    all.emplace(url, b);
                    return absl::OkStatus();
                  })
                  .ok());
  return all;
}

TEST_F(UrlRecordStoreTest, PutGetReplaceAndList) {
  std::unique_ptr<Frontier> f = Make();
  UrlRecordStore& store = StoreOf(*f);
  EXPECT_EQ(&StoreOf(*f), &store);  // The same store every call.
  EXPECT_EQ(*store.Get("http://a/x"), std::nullopt);
  ASSERT_TRUE(store.Put("http://a/x", "one").ok());
  ASSERT_TRUE(store.Put("http://a/y", std::string("\0\1\2", 3)).ok());
  ASSERT_TRUE(store.Put("http://a/x", "two").ok());  // Replaced.
  absl::StatusOr<std::optional<std::string>> x = store.Get("http://a/x");
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_THAT(*x, Optional(std::string("two")));
  EXPECT_THAT(All(store),
              ElementsAre(Pair("http://a/x", "two"),
                          Pair("http://a/y", std::string("\0\1\2", 3))));
  EXPECT_EQ(*store.Count(), 2u);
  // ForEach stops at the visitor's first error and returns it.
  int visited = 0;
  absl::Status stop = store.ForEach([&](std::string_view, std::string_view) {
    ++visited;
    return absl::DataLossError("bad record");
  });
  EXPECT_TRUE(absl::IsDataLoss(stop)) << stop;
  EXPECT_EQ(visited, 1);
}

TEST_F(UrlRecordStoreTest, ACheckpointHoldsTheRecordsAndRestoreReadsThem) {
  const fs::path ckpt = root_ / "checkpoint";
  {
    std::unique_ptr<Frontier> f = Make();
    ASSERT_TRUE(f->Add("http://a/x", "a", 0));
    UrlRecordStore& store = StoreOf(*f);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(
          store.Put(absl::StrCat("http://a/", i), absl::StrCat("record ", i))
              .ok());
    }
    ASSERT_TRUE(f->Checkpoint(ckpt).ok());
    // After the checkpoint: not in it.
    ASSERT_TRUE(store.Put("http://a/late", "late").ok());
    ASSERT_TRUE(store.Put("http://a/7", "changed").ok());
  }
  // The column family is in the checkpoint's RocksDB (its OPTIONS file names
  // every family).
  bool named = false;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(ckpt)) {
    if (e.path().filename().string().rfind("OPTIONS-", 0) != 0) continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    named = named || text.find("\"url_records\"") != std::string::npos;
  }
  EXPECT_TRUE(named);

  for (int round = 0; round < 2; ++round) {  // Restore leaves it as it was.
    absl::StatusOr<std::unique_ptr<Frontier>> back =
        Frontier::Restore(ckpt, Options());
    ASSERT_TRUE(back.ok()) << back.status();
    UrlRecordStore& store = StoreOf(**back);
    EXPECT_EQ(*store.Count(), 1000u);
    EXPECT_THAT(*store.Get("http://a/7"), Optional(std::string("record 7")));
    EXPECT_EQ(*store.Get("http://a/late"), std::nullopt);
    ASSERT_TRUE(store.Put("http://a/new", "x").ok());  // Writable.
  }
}

TEST_F(UrlRecordStoreTest, OnlyTheLocalFrontierKeepsRecords) {
  // The interface's default: a frontier without a store says so.
  struct NoStore : CrawlFrontier {
    bool Add(std::string_view, std::string_view, uint32_t,
             std::string_view) override {
      return false;
    }
    NextUrl Next(absl::Time) override { return {}; }
    absl::StatusOr<UrlFate> Done(std::string_view, const FetchOutcome&,
                                 absl::Time) override {
      return UrlFate::kFinished;
    }
    void SetCrawlDelay(std::string_view, absl::Duration) override {}
    absl::Status Checkpoint(SnapshotWriter&) override {
      return absl::OkStatus();
    }
    FrontierStats stats() const override { return {}; }
    FrontierFilterStats filter_stats() const override { return {}; }
    absl::Status status() const override { return absl::OkStatus(); }
  } none;
  absl::StatusOr<UrlRecordStore*> store = none.UrlRecords();
  EXPECT_TRUE(absl::IsUnimplemented(store.status())) << store.status();
  EXPECT_THAT(store.status().message(), HasSubstr("no URL records"));
}

}  // namespace
}  // namespace sieve
