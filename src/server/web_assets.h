// The files of the web status page (src/server/web/), compiled into the binary so that serving
// it needs no file, CDN or download at run time. The build generates their definitions
// (cmake/EmbedWebAssets.cmake writes web_assets_data.cpp from the files' bytes), so the page is
// edited as ordinary HTML, CSS and JavaScript.
#pragma once

#include <span>
#include <string_view>

namespace rowbridge::server {

struct WebAsset {
  std::string_view name;          // file name, e.g. "index.html", "app.js"
  std::string_view content_type;  // from the extension, e.g. "text/javascript; charset=utf-8"
  std::string_view body;
};

// Every embedded file, sorted by name; the views stay valid for the whole program.
std::span<const WebAsset> WebAssets();

}  // namespace rowbridge::server
