// Runs the WHATWG URL test data (web-platform-tests
// url/resources/urltestdata.json, kept outside the project: the directory the
// SIEVE_SHARED_TESTDATA environment variable names) through ResolveUrl and
// asserts a pass rate of at least 90 %.
//
// Which entries: every object whose input or base is an http(s) URL (after the
// browser's trimming). Pass rule:
//  * "failure": true → ResolveUrl must return an error;
//  * expected href is http(s) → ResolveUrl must return it, modulo our
//    normalisation (fragment dropped, percent-escape hex upper-cased, escapes
//    of unreserved characters decoded);
//  * expected href has another scheme ("mailto:x" against an http base) →
//    ResolveUrl must reject it, since parse/url.h accepts http and https only.
//    These are counted and printed apart.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "parse/url.h"

namespace sieve {
namespace {

bool IsHttpish(std::string s) {
  absl::StripAsciiWhitespace(&s);
  s = absl::AsciiStrToLower(s.substr(0, 6));
  return absl::StartsWith(s, "http:") || absl::StartsWith(s, "https:");
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(static_cast<unsigned char>(c));
  return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

// Our normalisation applied to a browser's href, written independently of
// parse/ on purpose.
std::string OurForm(const std::string& href) {
  const std::string no_fragment = href.substr(0, href.find('#'));
  std::string out;
  for (size_t i = 0; i < no_fragment.size(); ++i) {
    if (no_fragment[i] == '%' && i + 2 < no_fragment.size() &&
        Hex(no_fragment[i + 1]) >= 0 && Hex(no_fragment[i + 2]) >= 0) {
      const char decoded = static_cast<char>(Hex(no_fragment[i + 1]) * 16 +
                                             Hex(no_fragment[i + 2]));
      if (absl::ascii_isalnum(static_cast<unsigned char>(decoded)) ||
          std::string_view("-._~").find(decoded) != std::string_view::npos) {
        out.push_back(decoded);
      } else {
        out += absl::StrCat(
            "%", absl::AsciiStrToUpper(no_fragment.substr(i + 1, 2)));
      }
      i += 2;
    } else {
      out.push_back(no_fragment[i]);
    }
  }
  return out;
}

// The file escapes lone UTF-16 surrogates ("\uD800"), which are not Unicode
// scalar values and which nlohmann-json rejects. A browser turns them into
// U+FFFD before parsing a URL (USVString conversion), so that is what we
// substitute.
std::string ReplaceLoneSurrogates(const std::string& json) {
  auto code_at = [&](size_t i) -> int {  // value of "\uXXXX" at i, or -1
    if (i + 6 > json.size() || json[i] != '\\' || json[i + 1] != 'u') return -1;
    int v = 0;
    for (size_t k = i + 2; k < i + 6; ++k) {
      if (Hex(json[k]) < 0) return -1;
      v = v * 16 + Hex(json[k]);
    }
    return v;
  };
  std::string out;
  for (size_t i = 0; i < json.size();) {
    if (json[i] != '\\' || i + 1 >= json.size()) {
      out.push_back(json[i++]);
      continue;
    }
    const int code = code_at(i);
    if (code >= 0xD800 && code <= 0xDBFF) {
      const int low = code_at(i + 6);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        out.append(json, i, 12);
        i += 12;
        continue;
      }
    }
    if (code >= 0xD800 && code <= 0xDFFF) {
      out += "\\uFFFD";
      i += 6;
      continue;
    }
    out.append(json, i, 2);  // any other escape, including "\\"
    i += 2;
  }
  return out;
}

TEST(WhatwgUrlTest, ResolvesAtLeastNinetyPercentOfHttpCasesLikeABrowser) {
  const char* dir = std::getenv("SIEVE_SHARED_TESTDATA");
  const std::string path =
      dir ? absl::StrCat(dir, "/whatwg-urltestdata.json") : "";
  std::ifstream in(path);
  if (!in)
    GTEST_SKIP()
        << "whatwg-urltestdata.json not found (set SIEVE_SHARED_TESTDATA)";
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  const nlohmann::json cases =
      nlohmann::json::parse(ReplaceLoneSurrogates(text));

  int total = 0, passed = 0, other_scheme = 0, other_scheme_rejected = 0;
  std::string failures;
  for (const nlohmann::json& entry : cases) {
    if (!entry.is_object()) continue;  // comment strings
    const std::string input = entry.at("input").get<std::string>();
    const std::string base =
        entry.contains("base") && entry.at("base").is_string()
            ? entry.at("base").get<std::string>()
            : "";
    if (!IsHttpish(input) && !IsHttpish(base)) continue;
    ++total;
    const absl::StatusOr<std::string> got = ResolveUrl(base, input);
    bool ok = false;
    std::string want;
    if (entry.value("failure", false)) {
      want = "(failure)";
      ok = !got.ok();
    } else {
      const std::string href = entry.at("href").get<std::string>();
      if (IsHttpish(href)) {
        want = OurForm(href);
        ok = got.ok() && *got == want;
      } else {
        want = absl::StrCat("(rejected: ", href, ")");
        ++other_scheme;
        ok = !got.ok();
        other_scheme_rejected += ok;
      }
    }
    if (ok) {
      ++passed;
    } else {
      absl::StrAppend(&failures, "  input=", nlohmann::json(input).dump(),
                      " base=", nlohmann::json(base).dump(), "\n    want ",
                      want, "\n    got  ",
                      got.ok() ? *got : got.status().ToString(), "\n");
    }
  }
  const double rate = total == 0 ? 0 : 100.0 * passed / total;
  std::cout << "WHATWG http(s) cases: " << passed << "/" << total << " pass ("
            << absl::StrCat(static_cast<int>(rate * 10) / 10.0)
            << " %); of these, " << other_scheme_rejected << "/" << other_scheme
            << " are non-http(s) results we must reject.\n";
  if (!failures.empty()) std::cout << "Failures:\n" << failures;
  EXPECT_GE(total, 400) << "test data looks truncated";
  EXPECT_GE(rate, 90.0);
}

}  // namespace
}  // namespace sieve
