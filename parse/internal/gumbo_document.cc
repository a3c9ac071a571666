#include "parse/internal/gumbo_document.h"

#include <cstddef>
#include <cstdlib>

namespace sieve::html_internal {

void* GumboDocument::Allocate(void* self, size_t size) {
  static_assert(sizeof(Header) % alignof(std::max_align_t) == 0,
                "the header must keep malloc's alignment");
  auto* doc = static_cast<GumboDocument*>(self);
  auto* header = static_cast<Header*>(std::malloc(sizeof(Header) + size));
  if (header == nullptr)
    std::abort();  // gumbo does not check for allocation failure either
  header->prev = &doc->head_;
  header->next = doc->head_.next;
  doc->head_.next->prev = header;
  doc->head_.next = header;
  return header + 1;
}

void GumboDocument::Deallocate(void* /*self*/, void* ptr) {
  if (ptr == nullptr) return;
  Header* header = static_cast<Header*>(ptr) - 1;
  header->prev->next = header->next;
  header->next->prev = header->prev;
  std::free(header);
}

GumboDocument::GumboDocument(std::string_view utf8) {
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &GumboDocument::Allocate;
  options.deallocator = &GumboDocument::Deallocate;
  options.userdata = this;
  options.max_errors =
      0;  // we never read parse errors; recording them costs time and memory
  output_ = gumbo_parse_with_options(&options, utf8.data(), utf8.size());
}

GumboDocument::~GumboDocument() {
  // Frees every block gumbo still holds, the whole tree included, without
  // recursion.
  Header* block = head_.next;
  while (block != &head_) {
    Header* next = block->next;
    std::free(block);
    block = next;
  }
}

}  // namespace sieve::html_internal
