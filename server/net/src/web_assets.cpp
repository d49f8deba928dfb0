#include "web_assets.h"

#include <span>

namespace inarow::server {

// One file of web/, written into web_assets_data.cpp by cmake/embed_files.cmake.
struct EmbeddedFile {
  std::string_view name;  // relative to web/, e.g. "app.js"
  std::string_view bytes;
};
std::span<const EmbeddedFile> embedded_web_files();

namespace {

std::string_view content_type_of(std::string_view name) {
  const auto dot = name.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : name.substr(dot + 1);
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "ico") return "image/x-icon";
  if (ext == "json" || ext == "webmanifest") return "application/json";
  return "application/octet-stream";
}

std::optional<WebAsset> file(std::string_view name) {
  for (const EmbeddedFile& f : embedded_web_files()) {
    if (f.name == name) return WebAsset{content_type_of(name), f.bytes};
  }
  return std::nullopt;
}

}  // namespace

std::optional<WebAsset> find_web_asset(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/" || path == "/index.html") return file("index.html");
  constexpr std::string_view kPlay = "/play/";
  if (path.starts_with(kPlay) && path.size() > kPlay.size() &&
      path.find('/', kPlay.size()) == std::string_view::npos) {
    return file("index.html");  // a private-game link: the page reads the code from the path
  }
  constexpr std::string_view kAssets = "/assets/";
  if (path.starts_with(kAssets)) {
    const std::string_view name = path.substr(kAssets.size());
    if (name.empty() || name == "index.html" || name.find("..") != std::string_view::npos) {
      return std::nullopt;
    }
    return file(name);
  }
  return std::nullopt;
}

}  // namespace inarow::server
