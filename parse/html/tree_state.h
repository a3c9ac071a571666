// The few facts of the HTML tree builder (HTML Standard §13.2.6) that change
// which elements a page has or how the rest of it is tokenized, without a
// tree. TreeState sits between a Tokenizer and an ElementSink: it receives
// every tag, passes on the start tags the tree builder would insert as
// elements, in order, and sets the tokenizer's state as the tree builder
// would:
//
// - RCDATA after <title>, <textarea>; RAWTEXT after <style>, <xmp>,
//   <iframe>, <noembed>, <noframes>; script data after <script>; PLAINTEXT
//   after <plaintext>. <noscript> is an ordinary element (scripting off, as
//   gumbo parses).
// - Foreign content: inside <svg> and <math> the same names are ordinary
//   elements, CDATA sections are allowed, and the HTML "break-out" tags
//   (<p>, <div>, <b>, <table>, ...) close the foreign elements. The HTML
//   integration points (<foreignObject>, <desc>, <title> in SVG;
//   <annotation-xml encoding=text/html>; <mi> <mo> <mn> <ms> <mtext>) hold HTML
//   again. Foreign attributes are adjusted as the tree builder does:
//   xlink:href is the attribute "href" in the xlink namespace.
// - Start tags the tree builder ignores are not passed on: inside <select>
//   (except in a <template> in it)
//   every tag but <option>, <optgroup>, <hr>, <script>, <template> (and
//   <input>, <keygen>, <textarea>, a table tag which close the select first);
//   <frame> outside a frameset; anything but frames inside a frameset. A
//   <frameset> counts while "frameset-ok" holds (no non-whitespace text, no
//   <img>, <table>, <li>, ... yet: TreeState turns the tokenizer's text on
//   until then), and removes the body parsed so far (ElementSink::DiscardBody).
//
// Not modelled (they change no link the differential test over Debian's
// documentation finds; docs/parse_speed.md lists them): the adoption agency's
// clones of formatting elements (an <a> reopened after a misnested block), and
// foster parenting, which moves elements before a table in tree order.
//
// Cost: a few comparisons per tag; memory: the stack of open foreign
// elements (and the HTML elements inside their integration points).
#ifndef SIEVE_PARSE_HTML_TREE_STATE_H_
#define SIEVE_PARSE_HTML_TREE_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "parse/html/tokenizer.h"

namespace sieve::html {

enum class Namespace : uint8_t { kHtml, kSvg, kMathMl };

// Receives the elements the tree builder would insert, in document order.
class ElementSink {
 public:
  virtual ~ElementSink() = default;
  // `tag` as the tokenizer gave it; in foreign content (ns != kHtml) an
  // attribute "xlink:href" is named "href" by the tree builder.
  virtual void Element(const Tag& tag, Namespace ns) = 0;
  // The body's first element or text comes next (at most once).
  virtual void BodyStarts() {}
  // A <frameset> replaces the body: the elements given since BodyStarts()
  // are not in the document.
  virtual void DiscardBody() {}
};

class TreeState : public TokenSink {
 public:
  // `tokenizer` and `out` must outlive this object.
  TreeState(Tokenizer* tokenizer, ElementSink* out);

  void StartTag(const Tag& tag) override;
  void EndTag(const Tag& tag) override;
  void Characters(std::string_view text) override;

 public:
  // An element on the stack (public for tree_state.cc's helpers only).
  struct Open {
    Namespace ns;
    std::string name;
    bool html_integration_point;  // HTML content inside a foreign element
  };

 private:
  bool InForeignContent(const Tag& tag) const;
  void HtmlStartTag(const Tag& tag);
  void ForeignStartTag(const Tag& tag);
  void SelectStartTag(const Tag& tag);
  void UpdateCdata();

  Tokenizer* tokenizer_;
  ElementSink* out_;
  // Open foreign elements and the HTML elements inside their integration
  // points, innermost last; empty in HTML content.
  std::vector<Open> stack_;
  bool in_select_ = false;
  std::vector<bool> template_was_in_select_;  // one per open <template>
  void StartBody();
  void NotFramesetOk();

  // "frameset-ok": no body content yet. While it holds, the tokenizer's text
  // is on, as text outside raw text elements starts the body.
  bool frameset_ok_ = true;
  bool body_started_ = false;
  bool in_raw_text_ = false;  // in an element TreeState set a text state for
  bool in_frameset_ = false;
};

}  // namespace sieve::html

#endif  // SIEVE_PARSE_HTML_TREE_STATE_H_
