// The tree builder's rules that TreeState follows, each with its section of
// the HTML Standard (§13.2.6).
#include "parse/html/tree_state.h"

#include <string_view>

#include "absl/strings/ascii.h"

namespace sieve::html {
namespace {

bool OneOf(std::string_view name,
           std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// §13.2.6.4.7 "in body" (and "in head") and §13.2.6.2 "generic raw text /
// RCDATA element parsing algorithm": the tokenizer state after a start tag.
bool TextStateAfter(std::string_view name, State* state) {
  static constexpr struct {
    std::string_view name;
    State state;
  } kTextElements[] = {
      {"title", State::kRcdata},        {"textarea", State::kRcdata},
      {"style", State::kRawtext},       {"xmp", State::kRawtext},
      {"iframe", State::kRawtext},      {"noembed", State::kRawtext},
      {"noframes", State::kRawtext},    {"script", State::kScriptData},
      {"plaintext", State::kPlaintext},
  };
  for (const auto& element : kTextElements) {
    if (element.name == name) {
      *state = element.state;
      return true;
    }
  }
  return false;
}

// §13.1.2 void elements: never open, so never on the stack.
bool IsVoid(std::string_view name) {
  return OneOf(name, {"area", "base", "basefont", "bgsound", "br", "col",
                      "embed", "frame", "hr", "img", "input", "keygen", "link",
                      "meta", "param", "source", "track", "wbr"});
}

// §13.2.6.5 "in foreign content": start tags that leave foreign content.
bool BreaksOut(const Tag& tag) {
  if (tag.name == "font") {
    return tag.Find("color") || tag.Find("face") || tag.Find("size");
  }
  return OneOf(
      tag.name,
      {"b",      "big",    "blockquote", "body",    "br",    "center", "code",
       "dd",     "div",    "dl",         "dt",      "em",    "embed",  "h1",
       "h2",     "h3",     "h4",         "h5",      "h6",    "head",   "hr",
       "i",      "img",    "li",         "listing", "menu",  "meta",   "nobr",
       "ol",     "p",      "pre",        "ruby",    "s",     "small",  "span",
       "strong", "strike", "sub",        "sup",     "table", "tt",     "u",
       "ul",     "var"});
}

// Elements of the head (§13.2.6.4.4 "in head"): any other element, like
// non-whitespace text, starts the body.
bool InHead(std::string_view name) {
  return OneOf(
      name, {"html", "head", "base", "basefont", "bgsound", "link", "meta",
             "noframes", "script", "style", "template", "title", "noscript"});
}

// §13.2.6.4.7 "in body": the start tags that set frameset-ok to "not ok"
// (an <input> unless type=hidden, checked by the caller).
bool EndsFramesetOk(std::string_view name) {
  return OneOf(
      name, {"applet",  "marquee", "object", "area",     "br",     "embed",
             "img",     "image",   "keygen", "wbr",      "hr",     "pre",
             "listing", "li",      "dd",     "dt",       "button", "table",
             "xmp",     "iframe",  "select", "textarea", "body",   "template"});
}

bool EqualsAsciiCaseless(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(a[i])) != lower[i]) {
      return false;
    }
  }
  return true;
}

bool IsMathTextIntegrationPoint(std::string_view name) {
  return OneOf(name, {"mi", "mo", "mn", "ms", "mtext"});
}

// Foreign elements in the "special" category (§13.2.4.2).
bool IsSpecial(const TreeState::Open& open) {
  return open.ns == Namespace::kSvg
             ? OneOf(open.name, {"foreignobject", "desc", "title"})
             : OneOf(open.name,
                     {"mi", "mo", "mn", "ms", "mtext", "annotation-xml"});
}

}  // namespace

TreeState::TreeState(Tokenizer* tokenizer, ElementSink* out)
    : tokenizer_(tokenizer), out_(out) {
  tokenizer_->set_text(true);
}

void TreeState::StartBody() {
  body_started_ = true;
  out_->BodyStarts();
}

void TreeState::NotFramesetOk() {
  if (!body_started_) StartBody();
  frameset_ok_ = false;
  tokenizer_->set_text(false);
}

// §13.2.6.4.7 "in body": a character other than whitespace or NUL sets
// frameset-ok to "not ok"; text of raw text elements is not body content.
void TreeState::Characters(std::string_view text) {
  if (!frameset_ok_ || in_raw_text_ || in_frameset_) return;
  for (char c : text) {
    if (c != '\t' && c != '\n' && c != '\f' && c != '\r' && c != ' ' &&
        c != '\0') {
      NotFramesetOk();  // and the body starts
      return;
    }
  }
}

// §13.2.6 "tree construction dispatcher": HTML rules unless the adjusted
// current node is a foreign element that is not an integration point for
// this tag.
bool TreeState::InForeignContent(const Tag& tag) const {
  if (stack_.empty()) return false;
  const Open& current = stack_.back();
  if (current.ns == Namespace::kHtml || current.html_integration_point) {
    return false;
  }
  if (current.ns == Namespace::kMathMl) {
    if (IsMathTextIntegrationPoint(current.name) && tag.name != "mglyph" &&
        tag.name != "malignmark") {
      return false;
    }
    if (current.name == "annotation-xml" && tag.name == "svg") return false;
  }
  return true;
}

void TreeState::StartTag(const Tag& tag) {
  if (InForeignContent(tag)) {
    ForeignStartTag(tag);
  } else if (in_select_ && stack_.empty()) {
    SelectStartTag(tag);
  } else {
    HtmlStartTag(tag);
  }
  UpdateCdata();
}

void TreeState::HtmlStartTag(const Tag& tag) {
  if (in_frameset_) {  // §13.2.6.4.20 "in frameset", "after frameset"
    if (tag.name == "frame") out_->Element(tag, Namespace::kHtml);
    if (tag.name == "noframes") tokenizer_->set_state(State::kRawtext);
    return;
  }
  if (frameset_ok_ && stack_.empty()) {
    if (!body_started_ && !InHead(tag.name) && tag.name != "frameset") {
      StartBody();
    }
    const std::string_view* type = tag.Find("type");
    if (EndsFramesetOk(tag.name) ||
        (tag.name == "input" &&
         !(type && EqualsAsciiCaseless(*type, "hidden")))) {
      NotFramesetOk();
    }
  }
  if (tag.name == "svg" || tag.name == "math") {
    const Namespace ns =
        tag.name == "svg" ? Namespace::kSvg : Namespace::kMathMl;
    out_->Element(tag, ns);
    if (!tag.self_closing) stack_.push_back({ns, std::string(tag.name), false});
    return;
  }
  if (tag.name == "frame") return;  // ignored "in body"
  if (tag.name == "frameset") {
    if (frameset_ok_ && stack_.empty()) {
      // The body so far is removed from the document.
      if (body_started_) out_->DiscardBody();
      in_frameset_ = true;
      NotFramesetOk();
    }
    return;
  }
  if (tag.name == "select" && stack_.empty()) in_select_ = true;
  if (tag.name == "template" && stack_.empty()) {
    // §13.2.6.4.18 "in template": its contents are parsed in body mode, then
    // the mode before it comes back.
    template_was_in_select_.push_back(in_select_);
    in_select_ = false;
  }
  out_->Element(tag, Namespace::kHtml);
  State state;
  if (TextStateAfter(tag.name, &state)) {
    tokenizer_->set_state(state);
    in_raw_text_ = true;
    tokenizer_->set_text(false);  // raw text is not body content
  }
  if (!stack_.empty() && tag.name == "a") {
    // §13.2.6.4.7 "in body", an "a" start tag with an "a" still open: the
    // adoption agency closes it (when no special element is inside it).
    for (size_t i = stack_.size(); i > 0; --i) {
      if (stack_[i - 1].ns != Namespace::kHtml) break;
      if (stack_[i - 1].name == "a") {
        stack_.resize(i - 1);
        break;
      }
    }
  }
  if (!stack_.empty() && !IsVoid(tag.name)) {
    stack_.push_back({Namespace::kHtml, std::string(tag.name), false});
  }
}

// §13.2.6.5 "in foreign content", any other start tag and the break-out tags.
void TreeState::ForeignStartTag(const Tag& tag) {
  if (BreaksOut(tag)) {
    do {
      stack_.pop_back();
    } while (!stack_.empty() && InForeignContent(tag));
    StartTag(tag);
    return;
  }
  const Namespace ns = stack_.back().ns;
  out_->Element(tag, ns);
  if (tag.self_closing) return;
  bool integration_point = false;
  if (ns == Namespace::kSvg) {
    integration_point = OneOf(tag.name, {"foreignobject", "desc", "title"});
  } else if (tag.name == "annotation-xml") {
    const std::string_view* encoding = tag.Find("encoding");
    integration_point =
        encoding && (EqualsAsciiCaseless(*encoding, "text/html") ||
                     EqualsAsciiCaseless(*encoding, "application/xhtml+xml"));
  }
  stack_.push_back({ns, std::string(tag.name), integration_point});
}

// §13.2.6.4.16 "in select": the tags it does not ignore.
void TreeState::SelectStartTag(const Tag& tag) {
  if (OneOf(tag.name, {"option", "optgroup", "hr"})) {
    out_->Element(tag, Namespace::kHtml);
  } else if (tag.name == "select") {
    in_select_ = false;  // as </select>
  } else if (OneOf(tag.name, {"input", "keygen", "textarea"})) {
    in_select_ = false;
    HtmlStartTag(tag);
  } else if (tag.name == "script" || tag.name == "template") {
    HtmlStartTag(tag);
  }
}

void TreeState::EndTag(const Tag& tag) {
  if (in_raw_text_ && frameset_ok_ && !in_frameset_) tokenizer_->set_text(true);
  in_raw_text_ = false;
  if (stack_.empty()) {
    if (tag.name == "template" && !template_was_in_select_.empty()) {
      in_select_ = template_was_in_select_.back();
      template_was_in_select_.pop_back();
    } else if (tag.name == "select") {
      in_select_ = false;
    }
    return;
  }
  // §13.2.6.5 "any other end tag" in foreign content: close the innermost
  // foreign element of that name; at the first HTML element, the HTML rules
  // (§13.2.6.4.7 "any other end tag") from the current node instead: close the
  // innermost HTML element of that name unless a special element (here: an
  // integration point) comes first.
  if (stack_.back().ns != Namespace::kHtml) {
    for (size_t i = stack_.size(); i > 0; --i) {
      if (stack_[i - 1].ns == Namespace::kHtml) break;
      if (stack_[i - 1].name == tag.name) {
        stack_.resize(i - 1);
        UpdateCdata();
        return;
      }
    }
  }
  for (size_t i = stack_.size(); i > 0; --i) {
    const Open& open = stack_[i - 1];
    if (open.ns == Namespace::kHtml && open.name == tag.name) {
      stack_.resize(i - 1);
      break;
    }
    if (open.ns != Namespace::kHtml && IsSpecial(open)) break;
  }
  UpdateCdata();
}

// §13.2.5.42 "markup declaration open": CDATA sections only when the
// adjusted current node is not an HTML element.
void TreeState::UpdateCdata() {
  tokenizer_->set_cdata_allowed(!stack_.empty() &&
                                stack_.back().ns != Namespace::kHtml);
}

}  // namespace sieve::html
