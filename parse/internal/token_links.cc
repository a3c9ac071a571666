// Links from parse/html's tokens (HtmlParser::kTokenizer).
#include <optional>
#include <string>

#include "parse/html/tokenizer.h"
#include "parse/html/tree_state.h"
#include "parse/internal/collect_links.h"

namespace sieve::html_internal {
namespace {

// Each element the tree would insert, its attributes named as gumbo names
// them: in foreign content xlink:href is "href".
class LinkSink : public html::ElementSink {
 public:
  LinkSink(const LinkOptions& options, Collected* out)
      : options_(options), out_(out) {}

  void Element(const html::Tag& tag, html::Namespace ns) override {
    auto attribute =
        [&](std::string_view name) -> std::optional<std::string_view> {
      for (const html::Attribute& a : tag.attributes) {
        if (a.name == name || (ns != html::Namespace::kHtml && name == "href" &&
                               a.name == "xlink:href")) {
          return a.value;
        }
      }
      return std::nullopt;
    };
    VisitElement(tag.name, attribute, options_, out_);
    if (!options_.find_ids.empty() && !out_->found_id) {
      if (const std::string_view* id = tag.Find("id")) {
        NoteId(*id, options_, out_);
      }
    }
  }

  void BodyStarts() override {
    body_links_ = out_->links.size();
    head_base_ = out_->base_href;
    head_robots_ = out_->robots;
    head_found_id_ = out_->found_id;
  }

  void DiscardBody() override {
    out_->links.resize(body_links_);
    out_->base_href = head_base_;
    out_->robots = head_robots_;
    out_->found_id = head_found_id_;
  }

 private:
  const LinkOptions& options_;
  Collected* out_;
  // What the head alone gave, for DiscardBody.
  size_t body_links_ = 0;
  std::optional<std::string> head_base_;
  RobotsDirectives head_robots_;
  bool head_found_id_ = false;
};

}  // namespace

Collected CollectWithTokenizer(std::string_view utf8,
                               const LinkOptions& options) {
  Collected out;
  LinkSink links(options, &out);
  html::Tokenizer tokenizer(
      utf8, nullptr,
      html::Tokenizer::Options{.text = false, .gumbo_input = true});
  html::TreeState tree(&tokenizer, &links);
  tokenizer.set_sink(&tree);
  tokenizer.Run();
  return out;
}

}  // namespace sieve::html_internal
