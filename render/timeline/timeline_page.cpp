#include "render/timeline/timeline_page.h"

#include "common/check.h"
#include "render/page/page_text.h"
#include "templates/templates.h"

namespace hearth::timeline {
namespace {

// The page's script: these files, in this order, inside one function (they share its names;
// templates/timeline_decode.js says more), which runs in a task of its own: the task that parses
// the page (the data before the script, megabytes) ends before the script starts reading it.
constexpr std::string_view kScripts[] = {
    "timeline_decode.js", "timeline_columns.js", "timeline_samples.js", "timeline_text.js",
    "timeline_lanes.js",  "timeline_draw.js",    "timeline_hover.js",   "timeline_input.js",
    "timeline_url.js",    "time_link.js",        "timeline_link.js",    "timeline_start.js"};

std::string timeline_script() {
  std::string s = "setTimeout(function () {\n\"use strict\";\n";
  for (std::string_view name : kScripts) {
    s.append(page::script_text(name));
    s.push_back('\n');
  }
  s.append("}, 0);");
  return s;
}

}  // namespace

std::string timeline_page(const Model& model, const Names& names, const DataOptions& o) {
  std::string data;
  append_page_data(&data, model, names, o);
  const std::string title = page::html_escape(o.title);
  return page::fill_page("timeline.html", {{"{{TITLE}}", title},
                                           {"{{CSS}}", templates::get("timeline.css")},
                                           {"{{HEADING}}", title},
                                           {"{{DATA}}", data},
                                           {"{{SCRIPT}}", timeline_script()}});
}

}  // namespace hearth::timeline
