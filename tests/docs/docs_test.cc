// The front door and the docs hold together: README.md stays short and keeps
// the two quick-start commands, every relative link in README.md and
// docs/*.md names a file that exists (and, with #anchor, a heading of that
// file, by GitHub's slug rule), and no page cites a path outside the
// repository.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kRoot = SIEVE_SOURCE_DIR;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> Pages() {
  std::vector<fs::path> pages = {kRoot / "README.md"};
  for (const fs::directory_entry& e : fs::directory_iterator(kRoot / "docs"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  return pages;
}

// GitHub's anchor of a heading: lower case, punctuation dropped (ASCII letters,
// digits, '-', '_' and spaces kept; other bytes dropped), spaces to dashes.
std::set<std::string> Anchors(const fs::path& page) {
  std::set<std::string> anchors;
  std::istringstream lines(Read(page));
  bool in_code = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("```")) in_code = !in_code;
    if (in_code || !line.starts_with("#")) continue;
    std::string anchor;
    for (char c : line.substr(line.find_first_not_of('#'))) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u) && u < 128) {
        anchor += static_cast<char>(std::tolower(u));
      } else if (c == ' ') {
        anchor += '-';
      } else if (c == '-' || c == '_') {
        anchor += c;
      }
    }
    anchors.insert(anchor.substr(anchor.find_first_not_of('-')));
  }
  return anchors;
}

TEST(DocsTest, ReadmeIsShortAndKeepsTheTwoQuickStartCommands) {
  const std::string readme = Read(kRoot / "README.md");
  const auto lines = std::count(readme.begin(), readme.end(), '\n');
  EXPECT_LE(lines, 250);
  EXPECT_THAT(readme, HasSubstr("bash scripts/demo.sh"));
  EXPECT_THAT(readme, HasSubstr("bash scripts/test.sh"));
}

TEST(DocsTest, EveryRelativeLinkNamesAFileAndHeadingThatExist) {
  // RE2, not std::regex: GCC 12's <regex> trips -Wmaybe-uninitialized under
  // the sanitizers.
  const RE2 link(R"((\]\(([^)#\s]*)(?:#([^)\s]*))?\)))");
  int checked = 0;
  for (const fs::path& page : Pages()) {
    const std::string text = Read(page);
    re2::StringPiece input(text);
    std::string whole, target, anchor;
    while (RE2::FindAndConsume(&input, link, &whole, &target, &anchor)) {
      if (target.find(':') != std::string::npos) continue;  // http:, mailto:
      const fs::path path = target.empty() ? page : page.parent_path() / target;
      ++checked;
      ASSERT_TRUE(fs::exists(path)) << page << ": " << whole;
      if (!anchor.empty()) {
        EXPECT_TRUE(Anchors(path).contains(anchor))
            << page << ": no heading #" << anchor << " in " << path;
      }
    }
  }
  EXPECT_GE(checked, 8);
}

TEST(DocsTest, NoPageCitesAPathOutsideTheRepository) {
  for (const fs::path& page : Pages()) {
    EXPECT_THAT(Read(page), Not(HasSubstr("shared/"))) << page;
    EXPECT_THAT(Read(page), Not(HasSubstr("DESIGN.md"))) << page;
  }
}

}  // namespace
