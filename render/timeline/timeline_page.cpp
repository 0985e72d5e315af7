#include "render/timeline/timeline_page.h"

#include "common/check.h"
#include "render/page/page_text.h"
#include "templates/templates.h"

namespace hearth::timeline {
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
  fill("{{SCRIPT}}", page::script_text("timeline.js"));
  return html;
}

}  // namespace hearth::timeline
