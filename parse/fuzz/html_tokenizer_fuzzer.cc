// Fuzzes parse/html's Tokenizer, alone and under TreeState. The first byte
// picks the initial state (low 3 bits), whether text is decoded (bit 3) and
// whether CDATA sections are allowed (bit 4); the rest is the page. Every tag
// name must start with a lower-case letter and hold no upper-case ASCII, and
// a start tag's attribute names must be distinct and lower-case.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "parse/html/tokenizer.h"
#include "parse/html/tree_state.h"

namespace {

using sieve::html::Tag;

void Check(bool ok) {
  if (!ok) std::abort();
}

bool NoUpper(std::string_view s) {
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') return false;
  }
  return true;
}

void CheckTag(const Tag& tag) {
  Check(!tag.name.empty() && tag.name[0] >= 'a' && tag.name[0] <= 'z');
  Check(NoUpper(tag.name));
  std::set<std::string_view> names;
  for (const auto& a : tag.attributes) {
    Check(NoUpper(a.name));
    Check(names.insert(a.name).second);
  }
}

class Checker : public sieve::html::TokenSink {
 public:
  void StartTag(const Tag& tag) override { CheckTag(tag); }
  void EndTag(const Tag& tag) override {
    CheckTag(tag);
    Check(tag.attributes.empty());
  }
  void Characters(std::string_view text) override { Check(!text.empty()); }
};

class Elements : public sieve::html::ElementSink {
 public:
  void Element(const Tag& tag, sieve::html::Namespace) override {
    CheckTag(tag);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  const std::string_view html(reinterpret_cast<const char*>(data + 1),
                              size - 1);
  constexpr sieve::html::State kStates[] = {
      sieve::html::State::kData,      sieve::html::State::kRcdata,
      sieve::html::State::kRawtext,   sieve::html::State::kScriptData,
      sieve::html::State::kPlaintext, sieve::html::State::kCdataSection};
  Checker checker;
  sieve::html::Tokenizer tokenizer(
      html, &checker, sieve::html::Tokenizer::Options{(flags & 8) != 0});
  tokenizer.set_state(kStates[(flags & 7) % 6]);
  tokenizer.set_cdata_allowed((flags & 16) != 0);
  tokenizer.set_last_start_tag("title");
  tokenizer.Run();

  Elements elements;
  sieve::html::Tokenizer links(html, nullptr,
                               sieve::html::Tokenizer::Options{false});
  sieve::html::TreeState tree(&links, &elements);
  links.set_sink(&tree);
  links.Run();
  return 0;
}
