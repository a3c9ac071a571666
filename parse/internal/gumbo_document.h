// RAII for one gumbo parse. Private to sieve::parse.
//
// gumbo_destroy_output() frees the tree recursively, so a page of a million
// nested unclosed <div>s would overflow the stack while being freed. Instead
// every gumbo allocation goes through a tracking allocator owned by this
// object: each block carries a small header linking it into a list, and the
// destructor frees the list in a loop. Memory use equals malloc's plus 16 bytes
// per allocation. Not thread-safe; one document per thread.
#ifndef SIEVE_PARSE_INTERNAL_GUMBO_DOCUMENT_H_
#define SIEVE_PARSE_INTERNAL_GUMBO_DOCUMENT_H_

#include <gumbo.h>

#include <string_view>

namespace sieve::html_internal {

class GumboDocument {
 public:
  // Parses `utf8` (invalid UTF-8 is replaced by gumbo). `utf8` must outlive
  // this object: gumbo's nodes point into it.
  explicit GumboDocument(std::string_view utf8);
  ~GumboDocument();
  GumboDocument(const GumboDocument&) = delete;
  GumboDocument& operator=(const GumboDocument&) = delete;

  // The document node, or nullptr if gumbo ran out of memory.
  const GumboNode* document() const {
    return output_ ? output_->document : nullptr;
  }

 private:
  struct Header {
    Header* prev;
    Header* next;
  };
  static void* Allocate(void* self, size_t size);
  static void Deallocate(void* self, void* ptr);

  Header head_{&head_, &head_};  // circular list of live blocks
  GumboOutput* output_ = nullptr;
};

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_INTERNAL_GUMBO_DOCUMENT_H_
