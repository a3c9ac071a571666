#include "crawler/render/render_mode.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sieve {

std::span<const RenderMode> AllRenderModes() {
  static constexpr RenderMode kModes[] = {RenderMode::kOff, RenderMode::kAuto,
                                          RenderMode::kAlways};
  return kModes;
}

std::string_view RenderModeName(RenderMode mode) {
  switch (mode) {
    case RenderMode::kOff:
      return "off";
    case RenderMode::kAuto:
      return "auto";
    case RenderMode::kAlways:
      return "always";
  }
  return "unknown";
}

absl::StatusOr<RenderMode> ParseRenderMode(std::string_view name) {
  std::string names;
  for (RenderMode mode : AllRenderModes()) {
    if (name == RenderModeName(mode)) return mode;
    absl::StrAppend(&names, names.empty() ? "" : ", ",
                    std::string(RenderModeName(mode)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must be one of ", names, "; got \"", std::string(name), "\""));
}

}  // namespace sieve
