#include "crawler/render/render_signs.h"

#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "parse/html/tokenizer.h"

namespace sieve {
namespace {

// The mount points of React (root), Vue (app), Next.js, Nuxt, Gatsby and
// SvelteKit's templates.
constexpr std::string_view kAppRootIds[] = {"app",    "root",      "__next",
                                            "__nuxt", "___gatsby", "svelte"};

bool IsAppRootId(std::string_view id) {
  for (std::string_view known : kAppRootIds) {
    if (id == known) return true;
  }
  return false;
}

bool IsWhitespace(std::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

class SignsSink : public html::TokenSink {
 public:
  explicit SignsSink(RenderSigns& signs) : signs_(signs) {}
  void set_tokenizer(html::Tokenizer* tokenizer) { tokenizer_ = tokenizer; }

  void StartTag(const html::Tag& tag) override {
    root_.clear();
    const std::string_view name = tag.name;
    if (name == "script") {
      signs_.scripts = true;
      tokenizer_->set_state(html::State::kScriptData);
    } else if (name == "style" || name == "xmp" || name == "iframe" ||
               name == "noembed" || name == "noframes") {
      tokenizer_->set_state(html::State::kRawtext);
    } else if (name == "title" || name == "textarea") {
      tokenizer_->set_state(html::State::kRcdata);
    }
    if (name == "noscript") ++noscript_;
    if (name == "template") ++hidden_;
    if (tag.self_closing) return;
    if (const std::string_view* id = tag.Find("id");
        id != nullptr && IsAppRootId(*id)) {
      root_ = std::string(name);
    }
    in_raw_ = name == "script" || name == "style" || name == "title" ||
              name == "textarea" || name == "xmp" || name == "iframe" ||
              name == "noembed" || name == "noframes";
  }

  void EndTag(const html::Tag& tag) override {
    if (!root_.empty() && tag.name == root_) signs_.empty_app_root = true;
    root_.clear();
    in_raw_ = false;
    if (tag.name == "noscript" && noscript_ > 0) --noscript_;
    if (tag.name == "template" && hidden_ > 0) --hidden_;
  }

  void Characters(std::string_view text) override {
    if (IsWhitespace(text)) return;
    root_.clear();
    if (in_raw_) return;
    if (noscript_ > 0) {
      if (absl::StrContains(absl::AsciiStrToLower(std::string(text)),
                            "javascript")) {
        signs_.noscript_asks_js = true;
      }
      return;
    }
    if (hidden_ > 0) return;
    for (char c : text) {
      if (!absl::ascii_isspace(static_cast<unsigned char>(c))) {
        ++signs_.text_chars;
      }
    }
  }

 private:
  RenderSigns& signs_;
  html::Tokenizer* tokenizer_ = nullptr;
  std::string root_;  // An app root just opened, nothing in it yet.
  bool in_raw_ = false;
  int noscript_ = 0;
  int hidden_ = 0;  // Inside <template>.
};

// Whether `html` holds "<script" in any case: every script start tag does.
// A hit inside a comment or an attribute only costs the full pass.
bool MayHaveScript(std::string_view html) {
  constexpr absl::string_view kTag = "script";
  for (size_t at = html.find('<'); at != std::string_view::npos;
       at = html.find('<', at + 1)) {
    if (html.size() - at - 1 < kTag.size()) return false;
    if (absl::EqualsIgnoreCase(
            absl::string_view(html.data() + at + 1, kTag.size()), kTag)) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> AppRootIds() {
  return {std::begin(kAppRootIds), std::end(kAppRootIds)};
}

bool ShouldRenderAuto(std::string_view html, int64_t links_found,
                      bool names_app_root) {
  // With kFewLinks links or more only an empty app root makes a page render
  // (LooksScriptBuilt): a page that names none is not read a second time.
  if (links_found >= kFewLinks && !names_app_root) return false;
  return LooksScriptBuilt(ReadRenderSigns(html), links_found);
}

RenderSigns ReadRenderSigns(std::string_view html) {
  RenderSigns signs;
  // A page without a script never qualifies (LooksScriptBuilt): a static
  // page costs this scan, not a second tokenizer pass.
  if (!MayHaveScript(html)) return signs;
  SignsSink sink(signs);
  html::Tokenizer tokenizer(html, &sink);
  sink.set_tokenizer(&tokenizer);
  tokenizer.Run();
  return signs;
}

bool LooksScriptBuilt(const RenderSigns& signs, int64_t links_found) {
  if (!signs.scripts) return false;
  if (signs.empty_app_root) return true;
  if (links_found == 0 && signs.text_chars < kLittleText) return true;
  // A <noscript> about JavaScript counts on a page with few links: Javadoc
  // writes "JavaScript is disabled on your browser." on every page, each
  // full of links.
  return signs.noscript_asks_js && links_found < kFewLinks;
}

}  // namespace sieve
