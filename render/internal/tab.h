// render/internal/tab.h: the render of one page in a new tab of a browser
// context (the steps are in render/browser.h's file comment).
#ifndef SIEVE_RENDER_INTERNAL_TAB_H_
#define SIEVE_RENDER_INTERNAL_TAB_H_

#include <string>

#include "absl/status/statusor.h"
#include "render/devtools_client.h"
#include "render/render_types.h"

namespace sieve::render_internal {

// Opens a tab in `context_id`, renders `page` in it, closes it.
absl::StatusOr<RenderResult> RenderInNewTab(DevToolsClient& client,
                                            const std::string& context_id,
                                            const PageToRender& page,
                                            RenderHandler& handler,
                                            const RenderOptions& options);

}  // namespace sieve::render_internal

#endif  // SIEVE_RENDER_INTERNAL_TAB_H_
