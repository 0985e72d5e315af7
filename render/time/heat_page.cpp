#include "render/time/heat_page.h"

#include <array>
#include <string_view>

#include "common/check.h"
#include "render/page/page_text.h"
#include "render/time/heat_data.h"
#include "templates/templates.h"

namespace hearth::heat {
namespace {

// The page's script, in this order, one function scope (templates/heatmap.js says what each
// part does): later parts use the names earlier ones declare.
constexpr std::array<std::string_view, 12> kHeatScripts = {
    "heatmap_data.js",   "heatmap_text.js",  "heatmap_counts.js", "heatmap_state.js",
    "heatmap_grid.js",   "heatmap_tree.js",  "heatmap_layout.js", "heatmap_flame.js",
    "heatmap_moment.js", "heatmap_input.js", "time_link.js",      "heatmap_link.js",
};

// templates/flame.js as the function runFlameScript(document, window, JSON) (heatmap_flame.js runs
// it once per graph with scoped ones, templates/FLAME_DOM.md), then the heatmap's scripts.
std::string heat_script() {
  std::string s = "(function () {\n\"use strict\";\n";
  s += "function runFlameScript(document, window, JSON) {\n";
  s += page::script_text("flame.js");
  s += "}\n";
  for (std::string_view name : kHeatScripts) s += page::script_text(name);
  s += page::script_text("heatmap.js");
  s += "})();\n";
  return s;
}

}  // namespace

std::string heatmap_page(const timed_samples::Samples& samples, const Layout& layout,
                         const PageOptions& o) {
  std::string data;
  append_page_data(&data, samples, layout, {.title = o.title, .source = o.source});
  const std::string title = page::html_escape(o.title);
  return page::fill_page("heatmap.html", {{"{{TITLE}}", title},
                                          {"{{CSS}}", templates::get("heatmap.css")},
                                          {"{{HEADING}}", title},
                                          {"{{FLAME_CSS}}", page::script_text("flame.css")},
                                          {"{{DATA}}", data},
                                          {"{{SCRIPT}}", heat_script()}});
}

}  // namespace hearth::heat
