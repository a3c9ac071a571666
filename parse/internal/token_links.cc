// Links from parse/html's tokens (HtmlParser::kTokenizer).
#include <optional>
#include <string>

#include "parse/html/tokenizer.h"
#include "parse/html/tree_state.h"
#include "parse/internal/collect_links.h"

namespace sieve::html_internal {
namespace {

// Each element the tree would insert, its attributes read as gumbo reads
// them: valid UTF-8, and in foreign content xlink:href named "href".
class LinkSink : public html::ElementSink {
 public:
  LinkSink(const LinkOptions& options, Collected* out)
      : options_(options), out_(out) {}

  void Element(const html::Tag& tag, html::Namespace ns) override {
    size_t used = 0;  // each value read keeps its own buffer until the next tag
    auto attribute =
        [&](std::string_view name) -> std::optional<std::string_view> {
      for (const html::Attribute& a : tag.attributes) {
        if (a.name == name || (ns != html::Namespace::kHtml && name == "href" &&
                               a.name == "xlink:href")) {
          return ValidUtf8(a.value, &buffers_[used++ % kBuffers]);
        }
      }
      return std::nullopt;
    };
    VisitElement(tag.name, attribute, options_, out_);
  }

 private:
  const LinkOptions& options_;
  Collected* out_;
  // VisitElement reads at most three attributes of one element.
  static constexpr size_t kBuffers = 4;
  std::string buffers_[kBuffers];
};

// The length of the valid UTF-8 sequence at the start of `s` (1-4), or 0 with
// *bad set to the length of its maximal invalid subpart (Encoding Standard
// §8.1.1 "UTF-8 decoder": an unexpected byte is not consumed).
size_t SequenceLength(std::string_view s, size_t* bad) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  size_t need;
  unsigned char lower = 0x80, upper = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lower = 0xA0;
    if (b0 == 0xED) upper = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lower = 0x90;
    if (b0 == 0xF4) upper = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  for (size_t i = 1; i <= need; ++i) {
    if (i >= s.size()) {
      *bad = i;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < lower || b > upper) {
      *bad = i;
      return 0;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  return need + 1;
}

}  // namespace

std::string_view ValidUtf8(std::string_view text, std::string* buffer) {
  size_t i = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  if (i == text.size()) return text;
  buffer->assign(text.substr(0, i));
  bool changed = false;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      buffer->push_back(text[i++]);
      continue;
    }
    size_t bad = 0;
    const size_t length = SequenceLength(text.substr(i), &bad);
    if (length > 0) {
      buffer->append(text.substr(i, length));
      i += length;
    } else {
      buffer->append("\xEF\xBF\xBD");
      i += bad;
      changed = true;
    }
  }
  return changed ? std::string_view(*buffer) : text;
}

Collected CollectWithTokenizer(std::string_view utf8,
                               const LinkOptions& options) {
  Collected out;
  LinkSink links(options, &out);
  html::Tokenizer tokenizer(utf8, nullptr, html::Tokenizer::Options{false});
  html::TreeState tree(&tokenizer, &links);
  tokenizer.set_sink(&tree);
  tokenizer.Run();
  return out;
}

}  // namespace sieve::html_internal
