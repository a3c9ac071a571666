#include "parse/internal/sitemap_xml.h"

#include <array>
#include <string>
#include <utility>

namespace sieve::parse_internal {
namespace {

// Expat joins namespace URI and local name with this byte.
constexpr XML_Char kNsSeparator = ' ';
constexpr size_t kMaxLastmodBytes = 64;

// The sitemaps.org namespace and Google's two older ones, still seen.
constexpr std::array<std::string_view, 3> kSitemapNamespaces = {
    "http://www.sitemaps.org/schemas/sitemap/0.9",
    "http://www.google.com/schemas/sitemap/0.84",
    "http://www.google.com/schemas/sitemap/0.9",
};

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

// Splits expat's "uri local" (or "local") into the two parts.
std::pair<std::string_view, std::string_view> SplitName(std::string_view name) {
  const size_t sep = name.rfind(kNsSeparator);
  if (sep == std::string_view::npos) return {"", name};
  return {name.substr(0, sep), name.substr(sep + 1)};
}

}  // namespace

bool AddSitemapEntry(SitemapResult* result, std::string url,
                     std::string lastmod) {
  const bool web = StartsWithIgnoreCase(url, "http://") ||
                   StartsWithIgnoreCase(url, "https://");
  if (!web || url.size() > kSitemapMaxUrlBytes ||
      url.find_first_of(" \t\r\n") != std::string::npos) {
    ++result->skipped_entries;
    return true;
  }
  if (static_cast<int64_t>(result->entries.size()) >= kSitemapMaxUrls) {
    result->error = SitemapError::kTooManyUrls;
    result->error_message =
        "sitemap lists more than 50000 URLs; the first 50000 kept";
    return false;
  }
  result->entries.push_back({std::move(url), std::move(lastmod)});
  return true;
}

SitemapXmlReader::SitemapXmlReader(SitemapResult* result,
                                   const SitemapParseOptions& options)
    : result_(result),
      options_(options),
      parser_(XML_ParserCreateNS(nullptr, kNsSeparator)) {
  if (parser_ == nullptr) {
    Stop(SitemapError::kMalformedXml, "XML_ParserCreateNS failed");
    return;
  }
  XML_SetUserData(parser_, this);
  XML_SetElementHandler(parser_, &OnStart, &OnEnd);
  XML_SetCharacterDataHandler(parser_, &OnText);
  XML_SetStartDoctypeDeclHandler(parser_, &OnDoctype);
  XML_SetEntityDeclHandler(parser_, &OnEntityDecl);
  // Never read an external DTD or parameter entity (the default, made
  // explicit).
  XML_SetParamEntityParsing(parser_, XML_PARAM_ENTITY_PARSING_NEVER);
}

SitemapXmlReader::~SitemapXmlReader() {
  if (parser_ != nullptr) XML_ParserFree(parser_);
}

bool SitemapXmlReader::Feed(std::string_view bytes, bool last) {
  if (stopped_) return false;
  const XML_Status status = XML_Parse(
      parser_, bytes.data(), static_cast<int>(bytes.size()), last ? 1 : 0);
  if (stopped_) return false;
  if (status == XML_STATUS_ERROR) {
    const XML_Error code = XML_GetErrorCode(parser_);
    Stop(SitemapError::kMalformedXml,
         std::string("not well-formed XML at line ") +
             std::to_string(XML_GetCurrentLineNumber(parser_)) + ": " +
             XML_ErrorString(code));
    return false;
  }
  if (last && result_->kind == SitemapKind::kUnknown) {
    Stop(SitemapError::kNotASitemap, "no root element");
  }
  return !stopped_;
}

void SitemapXmlReader::Stop(SitemapError error, std::string message) {
  if (stopped_) return;
  stopped_ = true;
  if (result_->error == SitemapError::kNone) {
    result_->error = error;
    result_->error_message = std::move(message);
  }
  if (parser_ != nullptr) XML_StopParser(parser_, XML_FALSE);
}

bool SitemapXmlReader::InSitemapNamespace(std::string_view ns) const {
  return ns == root_namespace_;
}

void SitemapXmlReader::OnStart(void* self, const XML_Char* name,
                               const XML_Char** /*atts*/) {
  static_cast<SitemapXmlReader*>(self)->Start(name);
}

void SitemapXmlReader::OnEnd(void* self, const XML_Char* /*name*/) {
  static_cast<SitemapXmlReader*>(self)->End();
}

void SitemapXmlReader::OnText(void* self, const XML_Char* text, int length) {
  auto* r = static_cast<SitemapXmlReader*>(self);
  if (r->field_ == Field::kNone || r->overflow_) return;
  std::string_view s(text, static_cast<size_t>(length));
  if (r->text_.empty()) {
    while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  }
  const size_t cap =
      r->field_ == Field::kLoc ? kSitemapMaxUrlBytes + 64 : kMaxLastmodBytes;
  if (r->text_.size() + s.size() > cap) {
    r->overflow_ = true;
    return;
  }
  r->text_.append(s);
}

void SitemapXmlReader::OnDoctype(void* self, const XML_Char* name,
                                 const XML_Char* /*sysid*/,
                                 const XML_Char* /*pubid*/,
                                 int /*has_internal_subset*/) {
  auto* r = static_cast<SitemapXmlReader*>(self);
  if (StartsWithIgnoreCase(name, "html")) {
    r->Stop(SitemapError::kNotASitemap,
            "HTML (<!DOCTYPE html>), not a sitemap");
  } else {
    r->Stop(SitemapError::kDoctype,
            "DOCTYPE declarations are refused in sitemaps");
  }
}

void SitemapXmlReader::OnEntityDecl(void* self, const XML_Char* /*name*/,
                                    int /*is_param*/, const XML_Char* /*value*/,
                                    int /*value_length*/,
                                    const XML_Char* /*base*/,
                                    const XML_Char* /*system_id*/,
                                    const XML_Char* /*public_id*/,
                                    const XML_Char* /*notation*/) {
  static_cast<SitemapXmlReader*>(self)->Stop(
      SitemapError::kDoctype, "entity declarations are refused in sitemaps");
}

void SitemapXmlReader::Start(std::string_view name) {
  ++depth_;
  const auto [ns, local] = SplitName(name);
  if (depth_ == 1) {
    if (local == "urlset") {
      result_->kind = SitemapKind::kUrlSet;
    } else if (local == "sitemapindex") {
      result_->kind = SitemapKind::kIndex;
    } else {
      Stop(SitemapError::kNotASitemap,
           "root element <" + std::string(local) +
               "> is not <urlset> or <sitemapindex>");
      return;
    }
    bool known = options_.accept_any_namespace;
    for (std::string_view k : kSitemapNamespaces) known = known || ns == k;
    if (!known) {
      result_->kind = SitemapKind::kUnknown;
      Stop(SitemapError::kWrongNamespace,
           "root element in namespace \"" + std::string(ns) +
               "\", not http://www.sitemaps.org/schemas/sitemap/0.9");
      return;
    }
    root_namespace_ = std::string(ns);
    return;
  }
  if (depth_ == 2) {
    const std::string_view entry =
        result_->kind == SitemapKind::kIndex ? "sitemap" : "url";
    in_entry_ = InSitemapNamespace(ns) && local == entry;
    has_loc_ = false;
    loc_.clear();
    lastmod_.clear();
    return;
  }
  if (depth_ == 3 && in_entry_ && InSitemapNamespace(ns)) {
    if (local == "loc") {
      field_ = Field::kLoc;
    } else if (local == "lastmod") {
      field_ = Field::kLastmod;
    }
    text_.clear();
    overflow_ = false;
  }
}

void SitemapXmlReader::End() {
  if (depth_ == 3 && field_ != Field::kNone) {
    while (!text_.empty() && IsBlank(text_.back())) text_.pop_back();
    if (field_ == Field::kLoc) {
      has_loc_ = true;
      // An overlong <loc> is kept as a marker that AddSitemapEntry skips.
      loc_ = overflow_ ? std::string(kSitemapMaxUrlBytes + 1, 'x') : text_;
    } else if (!overflow_) {
      lastmod_ = text_;
    }
    field_ = Field::kNone;
  } else if (depth_ == 2 && in_entry_) {
    in_entry_ = false;
    if (!has_loc_) {
      Stop(SitemapError::kMissingLoc,
           "<" +
               std::string(result_->kind == SitemapKind::kIndex ? "sitemap"
                                                                : "url") +
               "> without <loc> at line " +
               std::to_string(XML_GetCurrentLineNumber(parser_)));
      --depth_;
      return;
    }
    if (!AddSitemapEntry(result_, std::move(loc_), std::move(lastmod_))) {
      stopped_ = true;
      XML_StopParser(parser_, XML_FALSE);
    }
  }
  --depth_;
}

}  // namespace sieve::parse_internal
