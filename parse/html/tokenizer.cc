// The tokenizer's state machine, HTML Standard §13.2.5, one case per state in
// the standard's order; each case names its state as the standard does.
// Parse errors are not reported; only the recoveries that change tokens are
// implemented, which is all of them.
#include "parse/html/tokenizer.h"

#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "parse/html/internal/char_ref.h"
#include "parse/html/internal/states.h"

namespace sieve::html {
namespace {

char Lower(int c) {
  return static_cast<char>(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
}

}  // namespace

const std::string_view* Tag::Find(std::string_view attribute_name) const {
  for (const Attribute& attribute : attributes) {
    if (attribute.name == attribute_name) return &attribute.value;
  }
  return nullptr;
}

Tokenizer::Tokenizer(std::string_view input, TokenSink* sink)
    : Tokenizer(input, sink, Options()) {}

Tokenizer::Tokenizer(std::string_view input, TokenSink* sink, Options options)
    // memchr must not see a null pointer, even for no bytes.
    : in_(input.data() ? input : std::string_view("", 0)),
      sink_(sink),
      options_(options),
      state_(S::kData) {}

void Tokenizer::set_state(State state) {
  switch (state) {
    case State::kData:
      state_ = S::kData;
      break;
    case State::kRcdata:
      state_ = S::kRcdata;
      break;
    case State::kRawtext:
      state_ = S::kRawtext;
      break;
    case State::kScriptData:
      state_ = S::kScriptData;
      break;
    case State::kPlaintext:
      state_ = S::kPlaintext;
      break;
    case State::kCdataSection:
      state_ = S::kCdataSection;
      break;
  }
}

void Tokenizer::AppendText(std::string_view utf8) {
  if (options_.text) text_.append(utf8);
}

// in_[begin, end) as text, CR LF and CR as LF. A range never ends between a
// CR and its LF (ranges end before a character with a meaning, never an LF).
void Tokenizer::AppendTextNormalized(size_t begin, size_t end) {
  if (!options_.text) return;
  while (begin < end) {
    const void* cr = std::memchr(in_.data() + begin, '\r', end - begin);
    const size_t stop =
        cr ? static_cast<size_t>(static_cast<const char*>(cr) - in_.data())
           : end;
    text_.append(in_.data() + begin, stop - begin);
    if (stop == end) break;
    text_.push_back('\n');
    begin = stop + 1;
    if (begin < end && in_[begin] == '\n') ++begin;
  }
}

void Tokenizer::FlushText() {
  if (text_.empty()) return;
  sink_->Characters(text_);
  text_.clear();
}

void Tokenizer::ConsumeCharRef(bool in_attribute, std::string* out) {
  const size_t consumed = html_internal::ConsumeCharRef(
      in_.substr(pos_), in_attribute, out ? out : &text_);
  pos_ += consumed;
}

void Tokenizer::StartTagToken(bool end) {
  tag_is_end_ = end;
  self_closing_ = false;
  tag_name_.clear();
  attr_buffer_.clear();
  attrs_.clear();
}

void Tokenizer::StartAttribute() {
  const auto at = static_cast<uint32_t>(attr_buffer_.size());
  attrs_.push_back(AttrRange{at, at, at, at, false});
}

// Leaving the attribute name state: a name seen before in this tag makes the
// attribute a duplicate, dropped when the tag is emitted.
void Tokenizer::EndAttributeName() {
  AttrRange& last = attrs_.back();
  last.name_end = last.value_begin = last.value_end =
      static_cast<uint32_t>(attr_buffer_.size());
  const std::string_view name(attr_buffer_.data() + last.name_begin,
                              last.name_end - last.name_begin);
  auto name_of = [&](const AttrRange& a) {
    return std::string_view(attr_buffer_.data() + a.name_begin,
                            a.name_end - a.name_begin);
  };
  if (attrs_.size() <= 64) {
    for (size_t i = 0; i + 1 < attrs_.size(); ++i) {
      if (!attrs_[i].duplicate && name_of(attrs_[i]) == name) {
        last.duplicate = true;
        return;
      }
    }
    return;
  }
  // A tag with very many attributes (hostile input): a set keeps it linear.
  absl::flat_hash_set<std::string_view> seen;
  for (size_t i = 0; i + 1 < attrs_.size(); ++i) {
    if (!attrs_[i].duplicate) seen.insert(name_of(attrs_[i]));
  }
  last.duplicate = seen.contains(name);
}

void Tokenizer::EmitTag() {
  FlushText();
  state_ = S::kData;
  attr_views_.clear();
  Tag tag;
  tag.name = tag_name_;
  tag.self_closing = self_closing_;
  if (tag_is_end_) {
    sink_->EndTag(tag);
    return;
  }
  for (const AttrRange& a : attrs_) {
    if (a.duplicate) continue;
    attr_views_.push_back(
        Attribute{std::string_view(attr_buffer_.data() + a.name_begin,
                                   a.name_end - a.name_begin),
                  std::string_view(attr_buffer_.data() + a.value_begin,
                                   a.value_end - a.value_begin)});
  }
  tag.attributes = attr_views_;
  last_start_tag_ = tag_name_;
  sink_->StartTag(tag);
}

void Tokenizer::EmitComment() {
  FlushText();
  sink_->Comment(comment_);
}

void Tokenizer::EmitDoctype() {
  FlushText();
  Doctype doctype;
  doctype.name = doctype_name_;
  doctype.public_id = public_id_;
  doctype.system_id = system_id_;
  doctype.has_name = has_name_;
  doctype.has_public_id = has_public_;
  doctype.has_system_id = has_system_;
  doctype.force_quirks = force_quirks_;
  sink_->DoctypeToken(doctype);
}

bool Tokenizer::AppropriateEndTag() const {
  return tag_name_ == last_start_tag_;
}

bool Tokenizer::MatchAsciiCaseless(std::string_view word) const {
  if (in_.size() - pos_ < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (Lower(static_cast<unsigned char>(in_[pos_ + i])) != word[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace sieve::html
