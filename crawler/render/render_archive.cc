#include "crawler/render/render_archive.h"

#include "nlohmann/json.hpp"

namespace sieve {

std::string RenderUrn(const std::string& page_url) {
  return "urn:sieve:render:" + page_url;
}

WarcResource RenderResource(const std::string& page_url,
                            const RenderResult& result, absl::Time date) {
  nlohmann::ordered_json json;
  json["url"] = page_url;
  json["final_url"] = result.final_url;
  json["timed_out"] = result.timed_out;
  json["elapsed_ms"] = absl::ToDoubleMilliseconds(result.elapsed);
  nlohmann::ordered_json requests = nlohmann::ordered_json::array();
  for (const RenderedRequest& request : result.requests) {
    nlohmann::ordered_json one;
    one["url"] = request.url;
    one["method"] = request.method;
    one["type"] = request.resource_type;
    one["fate"] = RequestFateName(request.fate);
    if (!request.detail.empty()) one["detail"] = request.detail;
    requests.push_back(std::move(one));
  }
  json["requests"] = std::move(requests);
  json["dom"] = result.dom;
  return WarcResource{
      .target_uri = RenderUrn(page_url),
      .date = date,
      .content_type = "application/json",
      // Pages are not always valid UTF-8: ill-formed bytes become U+FFFD.
      .block =
          json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace sieve
