#include "crawler/config/config_loader.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "crawler/config/config_keys.h"
#include "toml++/toml.h"

namespace sieve {
namespace {

const char* TomlTypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

// Checks a number against the key's range; `where` prefixes the error.
absl::Status CheckRange(const ConfigKey& key, double value,
                        const std::string& where) {
  if (value < key.min) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": must be >= ", key.min, ", got ", value));
  }
  if (value > key.max) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": must be <= ", key.max, ", got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckChoice(const ConfigKey& key, const std::string& value,
                         const std::string& where) {
  if (key.choices.empty()) return absl::OkStatus();
  for (absl::string_view choice :
       absl::StrSplit(std::string(key.choices), '|')) {
    if (choice == value) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": must be one of ",
                   absl::StrReplaceAll(std::string(key.choices), {{"|", ", "}}),
                   "; got \"", value, "\""));
}

// "where: message" for an error from another module's parser.
absl::Status Prefixed(const absl::Status& status, const std::string& where) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(where, ": ", status.message()));
}

// Stores one TOML value into the field bound to `key`.
struct TomlSetter {
  const ConfigKey& key;
  const toml::node& node;
  CrawlConfig& config;
  std::string where;

  absl::Status WrongType(const char* wanted) const {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": expected ", wanted, ", got ", TomlTypeName(node.type())));
  }
  absl::Status operator()(bool& (*get)(CrawlConfig&)) const {
    std::optional<bool> v = node.value_exact<bool>();
    if (!v) return WrongType("a boolean");
    get(config) = *v;
    return absl::OkStatus();
  }
  absl::Status operator()(int64_t& (*get)(CrawlConfig&)) const {
    std::optional<int64_t> v = node.value_exact<int64_t>();
    if (!v) return WrongType("an integer");
    if (absl::Status s = CheckRange(key, static_cast<double>(*v), where);
        !s.ok())
      return s;
    get(config) = *v;
    return absl::OkStatus();
  }
  absl::Status operator()(double& (*get)(CrawlConfig&)) const {
    if (!node.is_number()) return WrongType("a number");
    double v = node.value<double>().value_or(0);
    if (absl::Status s = CheckRange(key, v, where); !s.ok()) return s;
    get(config) = v;
    return absl::OkStatus();
  }
  absl::Status operator()(std::string& (*get)(CrawlConfig&)) const {
    std::optional<std::string> v = node.value_exact<std::string>();
    if (!v) return WrongType("a string");
    if (absl::Status s = CheckChoice(key, *v, where); !s.ok()) return s;
    get(config) = *v;
    return absl::OkStatus();
  }
  absl::Status operator()(
      std::vector<std::string>& (*get)(CrawlConfig&)) const {
    const toml::array* array = node.as_array();
    if (array == nullptr) return WrongType("an array of strings");
    std::vector<std::string> values;
    for (const toml::node& element : *array) {
      std::optional<std::string> v = element.value_exact<std::string>();
      if (!v) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": expected an array of strings, found ",
                         TomlTypeName(element.type())));
      }
      values.push_back(*v);
    }
    get(config) = std::move(values);
    return absl::OkStatus();
  }
  absl::Status operator()(const EnumField& field) const {
    std::optional<std::string> v = node.value_exact<std::string>();
    if (!v) return WrongType("a string");
    return Prefixed(field.set(config, *v), where);
  }
};

// Stores a flag's text into the field bound to `key`.
struct TextSetter {
  const ConfigKey& key;
  const std::string& text;
  CrawlConfig& config;
  std::string where;

  absl::Status WrongValue(const char* wanted) const {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected ", wanted, ", got '", text, "'"));
  }
  absl::Status operator()(bool& (*get)(CrawlConfig&)) const {
    if (text != "true" && text != "false") return WrongValue("true or false");
    get(config) = text == "true";
    return absl::OkStatus();
  }
  absl::Status operator()(int64_t& (*get)(CrawlConfig&)) const {
    int64_t v = 0;
    if (!absl::SimpleAtoi(text, &v)) return WrongValue("an integer");
    if (absl::Status s = CheckRange(key, static_cast<double>(v), where);
        !s.ok())
      return s;
    get(config) = v;
    return absl::OkStatus();
  }
  absl::Status operator()(double& (*get)(CrawlConfig&)) const {
    double v = 0;
    if (!absl::SimpleAtod(text, &v) || !std::isfinite(v))
      return WrongValue("a number");
    if (absl::Status s = CheckRange(key, v, where); !s.ok()) return s;
    get(config) = v;
    return absl::OkStatus();
  }
  absl::Status operator()(std::string& (*get)(CrawlConfig&)) const {
    if (absl::Status s = CheckChoice(key, text, where); !s.ok()) return s;
    get(config) = text;
    return absl::OkStatus();
  }
  absl::Status operator()(
      std::vector<std::string>& (*get)(CrawlConfig&)) const {
    get(config) = absl::StrSplit(text, ',', absl::SkipEmpty());
    return absl::OkStatus();
  }
  absl::Status operator()(const EnumField& field) const {
    return Prefixed(field.set(config, text), where);
  }
};

}  // namespace

absl::Status ApplyConfigToml(std::string_view toml_text,
                             std::string_view source, CrawlConfig& config) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(source), ":", at.line, ":", at.column,
                     ": TOML syntax error: ", std::string(e.description())));
  }
  for (const auto& [table_name, table_node] : root) {
    const toml::table* table = table_node.as_table();
    if (table == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(source), ": key '", std::string(table_name.str()),
          "': settings belong in a table such as [crawl]"));
    }
    for (const auto& [name, node] : *table) {
      std::string path = absl::StrCat(std::string(table_name.str()), ".",
                                      std::string(name.str()));
      const ConfigKey* key = FindConfigKeyByPath(path);
      if (key == nullptr && IsRetiredConfigKey(path)) continue;
      if (key == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(std::string(source), ": unknown key '", path,
                         "' (see config/default.toml)"));
      }
      std::string where =
          absl::StrCat(std::string(source), ": key '", path, "'");
      if (absl::Status s =
              std::visit(TomlSetter{*key, node, config, where}, key->field);
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyConfigFile(const std::string& path, CrawlConfig& config) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open config file"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ApplyConfigToml(text.str(), path, config);
}

namespace {

// Stores `text` into `key` (`where` prefixes errors): a list key gets `text`
// as its items with no splitting when `items` is set, else the text parsed
// with the key's type and bounds.
absl::Status SetFromText(const ConfigKey& key, const std::string& text,
                         const std::string& where, CrawlConfig& config) {
  return std::visit(TextSetter{key, text, config, where}, key.field);
}

using ListField = std::vector<std::string>& (*)(CrawlConfig&);

}  // namespace

absl::Status ApplyFlagOverrides(
    const absl::flat_hash_map<std::string, std::string>& flag_values,
    CrawlConfig& config,
    const absl::flat_hash_map<std::string, std::vector<std::string>>&
        repeated) {
  for (const ConfigKey& key : ConfigKeys()) {
    if (key.flag.empty()) continue;
    const std::string flag(key.flag);
    if (const ListField* list = std::get_if<ListField>(&key.field);
        list != nullptr && repeated.contains(flag)) {
      (*list)(config) = repeated.at(flag);  // One item per --flag, unsplit.
      continue;
    }
    auto given = flag_values.find(flag);
    if (given == flag_values.end()) continue;
    std::string where = absl::StrCat("--", flag);
    std::string value = given->second;
    if (key.flag_negates) {
      // The flag parser normalises booleans to "true"/"false".
      value = value == "true" ? "false" : value == "false" ? "true" : value;
    }
    if (absl::Status s = SetFromText(key, value, where, config); !s.ok())
      return s;
  }
  return absl::OkStatus();
}

absl::Status ApplySetOverrides(const std::vector<std::string>& assignments,
                               CrawlConfig& config) {
  std::vector<const ConfigKey*> lists_started;
  for (const std::string& assignment : assignments) {
    const size_t eq = assignment.find('=');
    const std::string path = assignment.substr(0, eq);
    const ConfigKey* key = FindConfigKeyByPath(path);
    if (eq == std::string::npos || key == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--set ", assignment,
                       key == nullptr ? ": unknown key '" + path + "'"
                                      : ": expected SECTION.KEY=VALUE",
                       " (sieve help crawl lists every key)"));
    }
    std::string value = assignment.substr(eq + 1);
    const std::string where = absl::StrCat("--set ", path);
    if (const ListField* list = std::get_if<ListField>(&key->field)) {
      // Each --set of a list key adds one item; the first replaces the list.
      if (std::find(lists_started.begin(), lists_started.end(), key) ==
          lists_started.end()) {
        lists_started.push_back(key);
        (*list)(config).clear();
      }
      if (!value.empty()) (*list)(config).push_back(std::move(value));
      continue;
    }
    if (std::holds_alternative<bool& (*)(CrawlConfig&)>(key->field)) {
      if (value == "1" || value == "yes") value = "true";
      if (value == "0" || value == "no") value = "false";
    }
    if (absl::Status s = SetFromText(*key, value, where, config); !s.ok())
      return s;
  }
  return absl::OkStatus();
}

}  // namespace sieve
