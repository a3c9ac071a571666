// crawler/render/render_mode.h: which pages the crawl renders in headless
// Chromium (render.mode, --render), with their names in config files and
// flags.
//
// Example:
//   absl::StatusOr<sieve::RenderMode> mode = sieve::ParseRenderMode("auto");
//   if (mode.ok()) config.render.mode = *mode;  // RenderModeName: "auto"
#ifndef SIEVE_CRAWLER_RENDER_RENDER_MODE_H_
#define SIEVE_CRAWLER_RENDER_RENDER_MODE_H_

#include <span>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve {

enum class RenderMode {
  kOff,     // Never: the bytes the server sent are all the crawl reads.
  kAuto,    // HTML pages with the signs of a script-built page
            // (crawler/render/render_signs.h); off, with a message, when no
            // browser can run.
  kAlways,  // Every HTML page; no browser is an error at start.
};

// Every mode, in the order help texts list them.
std::span<const RenderMode> AllRenderModes();

// "off", "auto", "always".
std::string_view RenderModeName(RenderMode mode);

// Inverse of RenderModeName. InvalidArgument otherwise, with the message
// `must be one of off, auto, always; got "x"`.
absl::StatusOr<RenderMode> ParseRenderMode(std::string_view name);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_RENDER_RENDER_MODE_H_
