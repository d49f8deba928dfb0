// The browser client (web/ in the source tree), embedded in the binary at
// build time so the server serves it with no files at run time.
#pragma once

#include <optional>
#include <string_view>

namespace inarow::server {

struct WebAsset {
  std::string_view content_type;
  std::string_view body;
};

// The page for a GET target: "/" (with any query, e.g. "?join=CODE" or
// "?watch=<matchId>") and "/play/<code>" give index.html, "/assets/<file>"
// the file from web/. Anything else is not ours: nullopt.
std::optional<WebAsset> find_web_asset(std::string_view target);

}  // namespace inarow::server
