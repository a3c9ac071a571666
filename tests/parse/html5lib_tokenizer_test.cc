// The html5lib-tests tokenizer suite (tokenizer/*.test, kept outside the
// project: the directory SIEVE_SHARED_TESTDATA names) through
// sieve::html::Tokenizer: every case, in every initial state it lists, must
// give exactly the expected tokens. Parse errors ("errors") are not checked:
// the tokenizer does not report them. xmlViolation.test's "xmlViolationTests"
// are for XML-coercing tokenizers and are not run.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parse/html/internal/char_ref.h"
#include "parse/html/tokenizer.h"

namespace sieve::html {
namespace {

using nlohmann::json;

// Records tokens in the suite's form, adjacent text merged.
class Recorder : public TokenSink {
 public:
  void StartTag(const Tag& tag) override {
    json attributes = json::object();
    for (const Attribute& a : tag.attributes) {
      attributes[std::string(a.name)] = std::string(a.value);
    }
    json token = {"StartTag", std::string(tag.name), attributes};
    if (tag.self_closing) token.push_back(true);
    tokens.push_back(token);
  }
  void EndTag(const Tag& tag) override {
    tokens.push_back({"EndTag", std::string(tag.name)});
  }
  void Characters(std::string_view text) override {
    if (!tokens.empty() && tokens.back()[0] == "Character") {
      tokens.back()[1] =
          tokens.back()[1].get<std::string>() + std::string(text);
    } else {
      tokens.push_back({"Character", std::string(text)});
    }
  }
  void Comment(std::string_view text) override {
    tokens.push_back({"Comment", std::string(text)});
  }
  void DoctypeToken(const Doctype& d) override {
    auto or_null = [](bool has, std::string_view s) {
      return has ? json(std::string(s)) : json(nullptr);
    };
    tokens.push_back({"DOCTYPE", or_null(d.has_name, d.name),
                      or_null(d.has_public_id, d.public_id),
                      or_null(d.has_system_id, d.system_id), !d.force_quirks});
  }
  json tokens = json::array();
};

// doubleEscaped cases write code points as "\uXXXX" inside the JSON string;
// lone surrogates become their 3-byte (WTF-8) form on both sides.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "\\u") == 0 && i + 6 <= s.size()) {
      char32_t cp = std::stoul(s.substr(i + 2, 4), nullptr, 16);
      i += 6;
      if (cp >= 0xD800 && cp <= 0xDBFF && s.compare(i, 2, "\\u") == 0 &&
          i + 6 <= s.size()) {
        const char32_t low = std::stoul(s.substr(i + 2, 4), nullptr, 16);
        if (low >= 0xDC00 && low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
      }
      html_internal::AppendUtf8(cp, &out);
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

json UnescapeAll(const json& value) {
  if (value.is_string()) return Unescape(value.get<std::string>());
  if (value.is_array()) {
    json out = json::array();
    for (const json& v : value) out.push_back(UnescapeAll(v));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      out[Unescape(it.key())] = UnescapeAll(it.value());
    }
    return out;
  }
  return value;
}

// The expected tokens with adjacent Character tokens merged.
json Merged(const json& output) {
  json out = json::array();
  for (const json& token : output) {
    if (token[0] == "Character" && !out.empty() &&
        out.back()[0] == "Character") {
      out.back()[1] =
          out.back()[1].get<std::string>() + token[1].get<std::string>();
    } else {
      out.push_back(token);
    }
  }
  return out;
}

bool ToState(const std::string& name, State* state) {
  static const std::pair<const char*, State> kStates[] = {
      {"Data state", State::kData},
      {"PLAINTEXT state", State::kPlaintext},
      {"RCDATA state", State::kRcdata},
      {"RAWTEXT state", State::kRawtext},
      {"Script data state", State::kScriptData},
      {"CDATA section state", State::kCdataSection}};
  for (const auto& [n, s] : kStates) {
    if (name == n) {
      *state = s;
      return true;
    }
  }
  return false;
}

TEST(Html5libTokenizerTest, EveryCaseGivesTheExpectedTokens) {
  const char* dir = std::getenv("SIEVE_SHARED_TESTDATA");
  const std::filesystem::path folder =
      dir ? std::filesystem::path(dir) / "html5lib-tests" / "tokenizer"
          : std::filesystem::path();
  if (!dir || !std::filesystem::is_directory(folder)) {
    GTEST_SKIP() << "html5lib-tests/tokenizer not found (set "
                    "SIEVE_SHARED_TESTDATA)";
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int cases = 0, runs = 0, failures = 0;
  std::string report;
  for (const auto& file : files) {
    std::ifstream in(file);
    const json suite = json::parse(in);
    if (!suite.contains("tests")) continue;  // xmlViolationTests only
    for (const json& test : suite.at("tests")) {
      ++cases;
      const bool double_escaped = test.value("doubleEscaped", false);
      std::string input = test.at("input").get<std::string>();
      json expected = Merged(test.at("output"));
      if (double_escaped) {
        input = Unescape(input);
        expected = Merged(UnescapeAll(test.at("output")));
      }
      std::vector<std::string> states = {"Data state"};
      if (test.contains("initialStates")) {
        states = test.at("initialStates").get<std::vector<std::string>>();
      }
      for (const std::string& state_name : states) {
        ++runs;
        State state;
        ASSERT_TRUE(ToState(state_name, &state)) << state_name;
        Recorder recorder;
        Tokenizer tokenizer(input, &recorder);
        tokenizer.set_state(state);
        if (test.contains("lastStartTag")) {
          tokenizer.set_last_start_tag(
              test.at("lastStartTag").get<std::string>());
        }
        tokenizer.Run();
        if (recorder.tokens != expected) {
          ++failures;
          if (failures <= 40) {
            absl::StrAppend(&report, file.filename().string(), ": ",
                            test.at("description").get<std::string>(), " [",
                            state_name, "]\n  input:    ", json(input).dump(),
                            "\n  expected: ", expected.dump(),
                            "\n  got:      ", recorder.tokens.dump(), "\n");
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 6806);  // 6,810 less xmlViolation.test's 4
  EXPECT_EQ(runs, 7032);   // 7,036 less those 4
  EXPECT_EQ(failures, 0) << report;
}

}  // namespace
}  // namespace sieve::html
