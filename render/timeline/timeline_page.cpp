#include "render/timeline/timeline_page.h"

#include "common/check.h"
#include "render/page/page_text.h"
#include "templates/templates.h"

namespace hearth::timeline {
namespace {

// The page's script: these files, in this order, inside one function (they share its names;
// templates/timeline_decode.js says more).
constexpr std::string_view kScripts[] = {
    "timeline_decode.js", "timeline_columns.js", "timeline_samples.js", "timeline_text.js",
    "timeline_lanes.js",  "timeline_draw.js",    "timeline_hover.js",   "timeline_input.js",
    "timeline_url.js",    "time_link.js",        "timeline_link.js",    "timeline_start.js"};

std::string timeline_script() {
  std::string s = "(function () {\n\"use strict\";\n";
  for (std::string_view name : kScripts) {
    s.append(page::script_text(name));
    s.push_back('\n');
  }
  s.append("})();");
  return s;
}

}  // namespace

std::string timeline_page(const Model& model, const Names& names, const DataOptions& o) {
  std::string data;
  append_page_data(&data, model, names, o);
  std::string html(templates::get("timeline.html"));
  // The keys in page order, each looked for after the previous value: a value (a thread name
  // in the data) that holds a key is never filled.
  size_t pos = 0;
  auto fill = [&html, &pos](std::string_view key, std::string_view value) {
    const size_t at = html.find(key, pos);
    HEARTH_CHECK(at != std::string::npos);
    html.replace(at, key.size(), value);
    pos = at + value.size();
  };
  fill("{{TITLE}}", page::html_escape(o.title));
  fill("{{CSS}}", templates::get("timeline.css"));
  fill("{{HEADING}}", page::html_escape(o.title));
  fill("{{DATA}}", data);
  fill("{{SCRIPT}}", timeline_script());
  return html;
}

}  // namespace hearth::timeline
