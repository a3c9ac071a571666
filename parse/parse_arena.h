// Memory for one thread's HTML parses, reused page after page, so that gumbo's
// many small allocations (every node, attribute and string of the tree) cost a
// pointer bump instead of a malloc/free pair each.
//
// Surprises first:
//  * Not thread-safe: one ParseArena per parser thread, passed to every
//    ExtractLinks call of that thread (parse/link_extractor.h). A call given
//    no arena uses one kept per thread (thread_local), created on the
//    thread's first parse and freed when the thread exits.
//  * Nothing is freed while a page is parsed: gumbo grows its buffers by
//    allocate-copy-free, so the arena holds the old copies until the page is
//    done (bounded by the final sizes: the copies halve each time).
//  * Under AddressSanitizer every block comes from malloc, as before the
//    arena existed, so the fuzzers still see overflows.
//
// How it works: one range of address space of Options::max_bytes is
// reserved (mmap, no memory committed until touched); allocation bumps a
// pointer through it; freeing is a no-op except for the last block handed
// out, which is given back. A page that needs more than max_bytes gets the
// rest from malloc, each block on a list freed when the page is done, so
// hostile pages still parse and cannot grow the arena. After a page, memory
// touched beyond Options::keep_bytes is returned to the kernel
// (madvise(MADV_DONTNEED)), so a thread keeps at most keep_bytes resident
// between pages.
//
// Cost: allocation is a compare and an add; the reset after a page is
// O(1) plus one madvise when the page went past keep_bytes, plus one free per
// block that overflowed to malloc.
//
// Example:
//   sieve::ParseArena arena;  // one per parser thread
//   for (const Page& page : pages) {
//     sieve::ExtractedLinks links = sieve::ExtractLinks(
//         page.body, page.url, page.content_type, "", options, &arena);
//   }
#ifndef SIEVE_PARSE_PARSE_ARENA_H_
#define SIEVE_PARSE_PARSE_ARENA_H_

#include <cstddef>

namespace sieve {

class ParseArena {
 public:
  struct Options {
    // Address space reserved for bump allocation; a page needing more gets
    // the excess from malloc. A 100 KB page takes about 1 MiB (gumbo's tree
    // is about 10x the HTML). Default: 64 MiB (virtual; resident memory is
    // what pages touch, trimmed to keep_bytes after each page).
    size_t max_bytes = size_t{64} << 20;

    // Resident memory kept between pages. Pages whose tree is larger fault
    // the excess in again (on openjdk-17-doc, whose largest trees take 18 MiB
    // in the arena, 4 MiB cost 15 % more CPU than 16). Default: 16 MiB.
    size_t keep_bytes = size_t{16} << 20;

    // Every block from malloc (the behaviour before the arena). Default:
    // true under AddressSanitizer, false otherwise.
    bool use_malloc = kSanitized;
  };

#if defined(__SANITIZE_ADDRESS__)
  static constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  static constexpr bool kSanitized = true;
#else
  static constexpr bool kSanitized = false;
#endif
#else
  static constexpr bool kSanitized = false;
#endif

  ParseArena() : ParseArena(Options{}) {}
  explicit ParseArena(const Options& options);
  ~ParseArena();
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;

  // Gives out `size` bytes aligned as malloc's. Never returns nullptr (aborts
  // when malloc itself fails, as gumbo cannot handle it either).
  void* Allocate(size_t size);

  // Gives back a block from Allocate; may be a no-op until Reset.
  void Deallocate(void* ptr);

  // Frees every block of the page; the memory is reused by the next page.
  void Reset();

  // Bytes bump-allocated since the last Reset, and bytes taken from malloc
  // (past max_bytes, or every block with use_malloc) and not yet freed.
  size_t arena_bytes() const { return static_cast<size_t>(top_ - begin_); }
  size_t malloc_bytes() const { return malloc_bytes_; }

  // Bytes the last page held at its end (arena and malloc), as measured by
  // Reset; a guide for choosing keep_bytes.
  size_t last_page_bytes() const { return last_page_bytes_; }

  // True if bump allocation is in use (false with use_malloc, or if the
  // address space could not be reserved).
  bool bumping() const { return begin_ != nullptr; }

 private:
  struct Header {  // in front of every block taken from malloc
    Header* prev;
    Header* next;
    size_t size;
    size_t padding;  // keeps the block 16-byte aligned
  };

  void* MallocBlock(size_t size);
  void FreeBlock(void* ptr);

  Options options_;
  char* begin_ = nullptr;  // reserved range [begin_, end_)
  char* end_ = nullptr;
  char* top_ = nullptr;   // next free byte
  char* last_ = nullptr;  // start of the last block handed out
  char* high_ = nullptr;  // highest top_ since memory was last trimmed
  Header head_{&head_, &head_, 0, 0};  // circular list of malloc blocks
  size_t malloc_bytes_ = 0;
  size_t last_page_bytes_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_PARSE_PARSE_ARENA_H_
