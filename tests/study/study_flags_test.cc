#include "study/study_flags.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "study/study_command.h"

namespace sieve::study {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseCountTest, AcceptsScientificAndPlainIntegers) {
  EXPECT_EQ(*ParseCount("1e6"), 1'000'000u);
  EXPECT_EQ(*ParseCount("1E9"), 1'000'000'000u);
  EXPECT_EQ(*ParseCount("2.5e3"), 2500u);
  EXPECT_EQ(*ParseCount("123456789"), 123456789u);
}

TEST(ParseCountTest, RejectsFractionsNegativesAndGarbage) {
  EXPECT_FALSE(ParseCount("1.5").ok());
  EXPECT_FALSE(ParseCount("-3").ok());
  EXPECT_FALSE(ParseCount("ten").ok());
  EXPECT_FALSE(ParseCount("").ok());
  EXPECT_FALSE(ParseCount("1e30").ok());
}

TEST(ParseByteSizeTest, UnderstandsBinarySuffixes) {
  EXPECT_EQ(*ParseByteSize("16G"), uint64_t{16} << 30);
  EXPECT_EQ(*ParseByteSize("16GiB"), uint64_t{16} << 30);
  EXPECT_EQ(*ParseByteSize("16gb"), uint64_t{16} << 30);
  EXPECT_EQ(*ParseByteSize("512M"), uint64_t{512} << 20);
  EXPECT_EQ(*ParseByteSize("4096K"), uint64_t{4096} << 10);
  EXPECT_EQ(*ParseByteSize("1.5T"), uint64_t{3} << 39);
  EXPECT_EQ(*ParseByteSize("1024"), 1024u);
}

TEST(ParseByteSizeTest, RejectsUnknownSuffixesAndNegatives) {
  EXPECT_FALSE(ParseByteSize("16X").ok());
  EXPECT_FALSE(ParseByteSize("-1G").ok());
  EXPECT_FALSE(ParseByteSize("G").ok());
}

TEST(ParseFpRatesTest, ParsesACommaList) {
  EXPECT_THAT(*ParseFpRates("0.1,0.01, 0.001"), ElementsAre(0.1, 0.01, 0.001));
}

TEST(ParseFpRatesTest, RejectsRatesOutsideTheOpenUnitInterval) {
  EXPECT_FALSE(ParseFpRates("0.1,1").ok());
  EXPECT_FALSE(ParseFpRates("0").ok());
  EXPECT_FALSE(ParseFpRates("").ok());
}

TEST(ParseKindsTest, ParsesKindNamesAndRejectsDuplicatesAndUnknowns) {
  EXPECT_THAT(*ParseKinds("classic,blocked"),
              ElementsAre(FilterKind::kClassic, FilterKind::kBlocked));
  EXPECT_FALSE(ParseKinds("classic,classic").ok());
  EXPECT_FALSE(ParseKinds("cuckoo").ok());
  // The forgetting kinds belong to the stream chapter, not the grid.
  EXPECT_THAT(std::string(ParseKinds("classic,stable").status().message()),
              HasSubstr("forgets keys"));
}

using Given = std::vector<std::pair<std::string, std::string>>;

TEST(StudyFlagsFromTextTest, NoFlagsGiveTheDefaults) {
  absl::StatusOr<StudyFlags> flags = StudyFlagsFromText({});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->max_n, 100'000'000u);
  EXPECT_THAT(flags->fp_rates, ElementsAre(0.1, 0.01, 0.001, 0.0001));
  EXPECT_EQ(flags->kinds.size(), 4u);
  EXPECT_EQ(flags->memory_cap, uint64_t{16} << 30);
  EXPECT_EQ(flags->out, "study-out");
  EXPECT_EQ(flags->seed, 42u);
  EXPECT_DOUBLE_EQ(flags->repeat_share, 0.1);
}

TEST(StudyFlagsFromTextTest, ParsesEveryFlag) {
  absl::StatusOr<StudyFlags> flags = StudyFlagsFromText(Given{
      {"max-n", "1e6"},
      {"fp-rates", "0.05"},
      {"kinds", "scalable"},
      {"memory-cap", "2G"},
      {"out", "x"},
      {"seed", "7"},
      {"repeat-share", "0.8"},
  });
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->max_n, 1'000'000u);
  EXPECT_THAT(flags->fp_rates, ElementsAre(0.05));
  EXPECT_THAT(flags->kinds, ElementsAre(FilterKind::kScalable));
  EXPECT_EQ(flags->memory_cap, uint64_t{2} << 30);
  EXPECT_EQ(flags->out, "x");
  EXPECT_EQ(flags->seed, 7u);
  EXPECT_DOUBLE_EQ(flags->repeat_share, 0.8);
}

TEST(StudyFlagsFromTextTest, RejectsBadAndOutOfRangeValuesNamingTheFlag) {
  auto message = [](Given given) {
    return std::string(StudyFlagsFromText(given).status().message());
  };
  EXPECT_THAT(message({{"max-n", "10"}}), HasSubstr("--max-n"));
  EXPECT_THAT(message({{"max-n", "lots"}}), HasSubstr("--max-n"));
  EXPECT_THAT(message({{"repeat-share", "1"}}), HasSubstr("--repeat-share"));
  EXPECT_THAT(message({{"memory-cap", "1K"}}), HasSubstr("--memory-cap"));
  EXPECT_THAT(message({{"kinds", "cuckoo"}}), HasSubstr("--kinds"));
  EXPECT_THAT(message({{"colour", "red"}}), HasSubstr("unknown flag --colour"));
}

// The table prints each default in the form its parser reads, so help texts
// and report command lines can be pasted back.
TEST(StudySettingsTest, EveryDefaultPrintsAsTextThatParsesBackToIt) {
  const StudyFlags defaults;
  Given given;
  for (const StudySetting& s : StudySettings())
    given.emplace_back(std::string(s.flag), s.format(defaults));
  absl::StatusOr<StudyFlags> round_trip = StudyFlagsFromText(given);
  ASSERT_TRUE(round_trip.ok()) << round_trip.status();
  EXPECT_EQ(StudyCommandLine(*round_trip), StudyCommandLine(defaults));
  EXPECT_EQ(StudyCommandLine(defaults),
            "sieve study --max-n 1e8 --fp-rates 0.1,0.01,0.001,0.0001 --kinds "
            "classic,blocked,counting,scalable --memory-cap 16G --out "
            "study-out --seed 42 --repeat-share 0.1 --stream-n 0 "
            "--stream-window 0 --stream-memory 0");
}

TEST(RunStudyTest, ReturnsTwoForInvalidFlags) {
  StudyFlags flags;
  flags.fp_rates = {1.5};
  EXPECT_EQ(RunStudy(flags), 2);
  flags = StudyFlags{};
  flags.max_n = 5;
  EXPECT_EQ(RunStudy(flags), 2);
}

}  // namespace
}  // namespace sieve::study
