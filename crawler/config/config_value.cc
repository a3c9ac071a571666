// The settings' values as TOML text and their types as help words
// (config_keys.h: FormatConfigValue, ConfigValueName).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "crawler/config/config_keys.h"

namespace sieve {
namespace {

std::string QuoteToml(const std::string& s) {
  return absl::StrCat("\"", s, "\"");
}

}  // namespace

std::string FormatConfigValue(const ConfigKey& key, const CrawlConfig& config) {
  CrawlConfig& c = const_cast<CrawlConfig&>(
      config);  // Accessors are shared with the loader.
  struct Formatter {
    CrawlConfig& c;
    std::string operator()(bool& (*get)(CrawlConfig&)) const {
      return get(c) ? "true" : "false";
    }
    std::string operator()(int64_t& (*get)(CrawlConfig&)) const {
      return absl::StrCat(get(c));
    }
    std::string operator()(double& (*get)(CrawlConfig&)) const {
      // The fewest digits that read back to the same value: absl::StrCat's
      // six would print 2592001 as 2.592e+06.
      const double v = get(c);
      for (int digits = 6; digits < 17; ++digits) {
        std::string text = absl::StrFormat("%.*g", digits, v);
        if (std::strtod(text.c_str(), nullptr) == v) return text;
      }
      return absl::StrFormat("%.17g", v);
    }
    std::string operator()(std::string& (*get)(CrawlConfig&)) const {
      return QuoteToml(get(c));
    }
    std::string operator()(
        std::vector<std::string>& (*get)(CrawlConfig&)) const {
      return absl::StrCat("[",
                          absl::StrJoin(get(c), ", ",
                                        [](std::string* out, const auto& s) {
                                          out->append(QuoteToml(s));
                                        }),
                          "]");
    }
    std::string operator()(const EnumField& field) const {
      return QuoteToml(field.get(c));
    }
  };
  return std::visit(Formatter{c}, key.field);
}

std::string ConfigValueName(const ConfigKey& key) {
  struct Namer {
    const ConfigKey& key;
    std::string operator()(bool& (*)(CrawlConfig&)) const { return ""; }
    std::string operator()(int64_t& (*)(CrawlConfig&)) const { return "INT"; }
    std::string operator()(double& (*)(CrawlConfig&)) const { return "NUM"; }
    std::string operator()(std::string& (*)(CrawlConfig&)) const {
      return key.choices.empty() ? "STR" : std::string(key.choices);
    }
    std::string operator()(std::vector<std::string>& (*)(CrawlConfig&)) const {
      return "LIST";
    }
    std::string operator()(const EnumField& field) const {
      return absl::StrJoin(field.names(), "|");
    }
  };
  return std::visit(Namer{key}, key.field);
}

}  // namespace sieve
