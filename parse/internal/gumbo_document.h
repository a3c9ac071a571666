// RAII for one gumbo parse. Private to sieve::parse.
//
// Every gumbo allocation goes through a ParseArena (parse/parse_arena.h): a
// pointer bump normally, malloc under AddressSanitizer or past the arena's
// cap. The destructor resets the arena, which frees the whole tree at once:
// gumbo_destroy_output() would free it recursively, and a page of a million
// nested unclosed <div>s would overflow the stack. Parse errors are not
// recorded (GumboOptions::max_errors = 0): nothing reads them, and recording
// them costs time and memory. Not thread-safe; one document per arena at a
// time.
#ifndef SIEVE_PARSE_INTERNAL_GUMBO_DOCUMENT_H_
#define SIEVE_PARSE_INTERNAL_GUMBO_DOCUMENT_H_

#include <gumbo.h>

#include <string_view>

#include "parse/parse_arena.h"

namespace sieve::html_internal {

class GumboDocument {
 public:
  // Parses `utf8` (invalid UTF-8 is replaced by gumbo) with memory from
  // `arena`. `utf8` and `arena` must outlive this object: gumbo's nodes point
  // into both.
  GumboDocument(std::string_view utf8, ParseArena* arena);
  ~GumboDocument();
  GumboDocument(const GumboDocument&) = delete;
  GumboDocument& operator=(const GumboDocument&) = delete;

  // The document node, or nullptr if gumbo gave no output.
  const GumboNode* document() const {
    return output_ ? output_->document : nullptr;
  }

 private:
  ParseArena* arena_;
  GumboOutput* output_ = nullptr;
};

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_INTERNAL_GUMBO_DOCUMENT_H_
