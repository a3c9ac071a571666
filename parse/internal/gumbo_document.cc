#include "parse/internal/gumbo_document.h"

namespace sieve::html_internal {
namespace {

void* Allocate(void* arena, size_t size) {
  return static_cast<ParseArena*>(arena)->Allocate(size);
}

void Deallocate(void* arena, void* ptr) {
  static_cast<ParseArena*>(arena)->Deallocate(ptr);
}

}  // namespace

GumboDocument::GumboDocument(std::string_view utf8, ParseArena* arena)
    : arena_(arena) {
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Allocate;
  options.deallocator = &Deallocate;
  options.userdata = arena_;
  options.max_errors = 0;  // nothing reads parse errors
  output_ = gumbo_parse_with_options(&options, utf8.data(), utf8.size());
}

// Frees every block gumbo still holds, the whole tree included, without
// recursion.
GumboDocument::~GumboDocument() { arena_->Reset(); }

}  // namespace sieve::html_internal
