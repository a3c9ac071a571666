// The two ways to collect a page's raw links: gumbo's tree (the reference) or
// parse/html's tokenizer with its tree-state shim. Both give the same
// Collected for the same UTF-8 text (tests/parse/html_differential_test.cc).
// Private to sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_COLLECT_LINKS_H_
#define SIEVE_PARSE_INTERNAL_COLLECT_LINKS_H_

#include <string>
#include <string_view>

#include "parse/internal/link_collector.h"
#include "parse/link_extractor.h"
#include "parse/parse_arena.h"

namespace sieve::html_internal {

// gumbo's tree into `arena` (reset on return), walked depth-first.
Collected CollectWithGumbo(std::string_view utf8, const LinkOptions& options,
                           ParseArena* arena);

// parse/html's tokenizer, text skipped, attribute values read as gumbo reads
// them (Tokenizer::Options::gumbo_input), with parse/html/tree_state.h.
Collected CollectWithTokenizer(std::string_view utf8,
                               const LinkOptions& options);

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_INTERNAL_COLLECT_LINKS_H_
