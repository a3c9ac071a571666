// A WHATWG HTML tokenizer (HTML Standard §13.2.5) for link extraction: start
// and end tags with their attributes, comments, DOCTYPEs and (optionally)
// text, from a page already decoded to UTF-8 and held whole in memory.
//
// The tokenizer is the standard's state machine, with its parse-error
// recoveries (those that change tokens; the errors themselves are not
// reported), the preprocessing of the input stream (CR and CR LF become LF)
// and character references decoded exactly (the full named table,
// parse/html/named_entities.inc). It never builds a tree: the tree builder's
// only influence on tokenizing, the state set after a start tag (RCDATA for
// <title>, RAWTEXT for <style>, ...) and whether CDATA sections are allowed,
// comes from the TokenSink, which calls set_state() / set_cdata_allowed()
// from StartTag (parse/html/tree_state.h does that for link extraction).
//
// Invalid UTF-8 is passed through byte for byte (unless
// Options::gumbo_input): every byte the standard gives a meaning to is ASCII,
// so a UTF-8 sequence is never split.
//
// Cost: text is skipped with memchr when Options::text is false; tag names
// and attributes are copied (lower-cased, references decoded) into buffers
// that are reused from tag to tag, so a page costs no allocation per token
// once the buffers have grown. Not thread-safe; one page per Tokenizer.
//
// Example:
//   class Printer : public sieve::html::TokenSink {
//     void StartTag(const sieve::html::Tag& tag) override {
//       for (const auto& a : tag.attributes) ... a.name, a.value
//     }
//   };
//   Printer printer;
//   sieve::html::Tokenizer(page_utf8, &printer).Run();
#ifndef SIEVE_PARSE_HTML_TOKENIZER_H_
#define SIEVE_PARSE_HTML_TOKENIZER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::html {

// The states a tokenizer may be put in from outside (by the tree builder or a
// test's initial state).
enum class State : uint8_t {
  kData,
  kRcdata,
  kRawtext,
  kScriptData,
  kPlaintext,
  kCdataSection,
};

struct Attribute {
  std::string_view name;   // lower-cased
  std::string_view value;  // character references decoded
};

// A start or end tag. The views live until the sink's call returns.
struct Tag {
  std::string_view name;  // lower-cased
  // Start tags only, in source order; of duplicate names the first is kept.
  std::span<const Attribute> attributes;
  bool self_closing = false;

  // The value of attribute `name` (lower-case), or nullptr.
  const std::string_view* Find(std::string_view attribute_name) const;
};

struct Doctype {
  std::string_view name;
  std::string_view public_id;
  std::string_view system_id;
  bool has_name = false;
  bool has_public_id = false;
  bool has_system_id = false;
  bool force_quirks = false;
};

// Receives tokens in document order. Adjacent text may come in several
// Characters calls.
class TokenSink {
 public:
  virtual ~TokenSink() = default;
  virtual void StartTag(const Tag& tag) = 0;
  virtual void EndTag(const Tag& tag) = 0;
  virtual void Characters(std::string_view /*utf8*/) {}
  virtual void Comment(std::string_view /*utf8*/) {}
  virtual void DoctypeToken(const Doctype& /*doctype*/) {}
};

class Tokenizer {
 public:
  struct Options {
    // Whether text (character tokens) is decoded and passed to
    // TokenSink::Characters. Default: true. Link extraction turns it off and
    // text is skipped at memchr speed.
    bool text = true;
    // Whether attribute values are read as gumbo 0.10.1 reads its input:
    // invalid UTF-8, controls other than whitespace and noncharacters in the
    // page's own bytes become U+FFFD (the standard keeps the last two; what
    // character references produce is kept either way). Default: false (the
    // standard). Link extraction sets it so both parsers give the same URLs.
    bool gumbo_input = false;
  };

  // `input` (UTF-8) and `sink` must outlive the Tokenizer.
  Tokenizer(std::string_view input, TokenSink* sink);
  Tokenizer(std::string_view input, TokenSink* sink, Options options);

  // Tokenizes the whole input, ending with the end of file.
  void Run();

  // The sink, if it could not be given to the constructor (a TreeState needs
  // the Tokenizer first). REQUIRES: before Run().
  void set_sink(TokenSink* sink) { sink_ = sink; }

  // Turns Options::text on or off from here on (TreeState reads the text
  // before the body only).
  void set_text(bool text) { options_.text = text; }
  // For the sink, from StartTag (or before Run): the state to continue in.
  // After a start tag the tokenizer continues in kData unless told otherwise.
  void set_state(State state);
  // Whether "<![CDATA[" opens a CDATA section (the adjusted current node is
  // not an HTML element) rather than a bogus comment. Default: false.
  void set_cdata_allowed(bool allowed) { cdata_allowed_ = allowed; }
  // The "last start tag" for RCDATA/RAWTEXT/script end tags (tests start in
  // those states with one given). Lower-case.
  void set_last_start_tag(std::string_view name) {
    last_start_tag_.assign(name);
  }

 private:
  enum class S : uint8_t;
  struct AttrRange {
    uint32_t name_begin, name_end, value_begin, value_end;
    bool duplicate;
  };

  static constexpr int kEof = -1;  // Peek's "no more input"

  // The next input character (CR LF -> LF), or kEof. Inline: the state
  // machine (tokenizer_states.cc) calls it for most bytes of a tag.
  int Peek() const {
    if (pos_ >= in_.size()) return kEof;
    const int c = static_cast<unsigned char>(in_[pos_]);
    return c == '\r' ? '\n' : c;
  }
  void Consume() {
    if (pos_ >= in_.size()) return;
    if (in_[pos_] == '\r' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '\n') {
      ++pos_;
    }
    ++pos_;
  }
  void AppendText(std::string_view utf8);
  void AppendTextNormalized(size_t begin, size_t end);
  void FlushText();
  void ConsumeCharRef(bool in_attribute, std::string* out);
  void StartTagToken(bool end);
  void StartAttribute();
  void EndAttributeName();
  void EmitTag();
  void EmitComment();
  void EmitDoctype();
  bool AppropriateEndTag() const;
  bool MatchAsciiCaseless(std::string_view word) const;
  void AppendChar(std::string* out, int c);
  // Appends in_[begin, end) to the current attribute value, CR LF and CR as
  // LF, as Options::gumbo_input says.
  void AppendRawValue(size_t begin, size_t end);
  // The DOCTYPE and CDATA states (tokenizer_doctype.cc); false at the end.
  bool RunDoctypeOrCdata(int c);

  std::string_view in_;
  size_t pos_ = 0;
  TokenSink* sink_;
  Options options_;
  S state_;
  S return_state_;
  bool cdata_allowed_ = false;
  std::string last_start_tag_;

  std::string text_;  // pending character tokens
  // The tag being built.
  bool tag_is_end_ = false;
  bool self_closing_ = false;
  std::string tag_name_;
  std::string attr_buffer_;  // names and values of attrs_
  std::vector<AttrRange> attrs_;
  std::vector<Attribute> attr_views_;
  size_t text_end_tag_start_ = 0;  // where "</" began in RCDATA and kin
  std::string temp_;  // the "temporary buffer" of script double escapes
  // The comment or DOCTYPE being built.
  std::string comment_;
  std::string doctype_name_, public_id_, system_id_;
  bool has_name_ = false, has_public_ = false, has_system_ = false;
  bool force_quirks_ = false;
};

}  // namespace sieve::html

#endif  // SIEVE_PARSE_HTML_TOKENIZER_H_
