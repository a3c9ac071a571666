// parse/internal/sitemap_xml.h: the expat side of ParseSitemap (see
// parse/sitemap.h). Internal to sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_SITEMAP_XML_H_
#define SIEVE_PARSE_INTERNAL_SITEMAP_XML_H_

#include <expat.h>

#include <string>
#include <string_view>

#include "parse/sitemap.h"

namespace sieve::parse_internal {

// Adds `url` to result->entries when it is an absolute http(s) URL of at most
// kSitemapMaxUrlBytes (otherwise counts it in skipped_entries). Returns false,
// with error kTooManyUrls set, when the entry would be number kMaxUrls + 1.
bool AddSitemapEntry(SitemapResult* result, std::string url,
                     std::string lastmod);

// Streams XML through expat with namespace processing, DTDs refused, and
// collects <url>/<sitemap> entries into `result`. One reader per document.
class SitemapXmlReader {
 public:
  SitemapXmlReader(SitemapResult* result, const SitemapParseOptions& options);
  ~SitemapXmlReader();
  SitemapXmlReader(const SitemapXmlReader&) = delete;
  SitemapXmlReader& operator=(const SitemapXmlReader&) = delete;

  // Parses the next bytes; `last` marks the end of the document (then
  // unclosed elements are an error). Returns false once parsing stopped
  // (error set, or the URL limit reached); further calls do nothing.
  bool Feed(std::string_view bytes, bool last);

 private:
  static void OnStart(void* self, const XML_Char* name, const XML_Char** atts);
  static void OnEnd(void* self, const XML_Char* name);
  static void OnText(void* self, const XML_Char* text, int length);
  static void OnDoctype(void* self, const XML_Char* name, const XML_Char* sysid,
                        const XML_Char* pubid, int has_internal_subset);
  static void OnEntityDecl(void* self, const XML_Char* name, int is_param,
                           const XML_Char* value, int value_length,
                           const XML_Char* base, const XML_Char* system_id,
                           const XML_Char* public_id, const XML_Char* notation);

  void Start(std::string_view name);
  void End();
  void Stop(SitemapError error, std::string message);
  bool InSitemapNamespace(std::string_view ns) const;

  enum class Field { kNone, kLoc, kLastmod };

  SitemapResult* result_;
  const SitemapParseOptions& options_;
  XML_Parser parser_;
  bool stopped_ = false;
  int depth_ = 0;
  std::string root_namespace_;
  bool in_entry_ = false;
  bool has_loc_ = false;
  Field field_ = Field::kNone;
  bool overflow_ = false;
  std::string text_;
  std::string loc_;
  std::string lastmod_;
};

}  // namespace sieve::parse_internal

#endif  // SIEVE_PARSE_INTERNAL_SITEMAP_XML_H_
