#include "render/time/heat_page.h"

#include "common/check.h"
#include "render/page/page_text.h"
#include "render/time/heat_data.h"
#include "templates/templates.h"

namespace hearth::heat {
std::string heatmap_page(const timed_samples::Samples& samples, const Layout& layout,
                         const PageOptions& o) {
  std::string data;
  append_page_data(&data, samples, layout, {.title = o.title, .source = o.source});
  std::string html(templates::get("heatmap.html"));
  // The keys in page order, each looked for after the previous value: a value (a frame name in
  // the data) that contains a key is never filled.
  size_t pos = 0;
  auto fill = [&html, &pos](std::string_view key, std::string_view value) {
    size_t at = html.find(key, pos);
    HEARTH_CHECK(at != std::string::npos);
    html.replace(at, key.size(), value);
    pos = at + value.size();
  };
  fill("{{TITLE}}", page::html_escape(o.title));
  fill("{{CSS}}", templates::get("heatmap.css"));
  fill("{{HEADING}}", page::html_escape(o.title));
  fill("{{FLAME_CSS}}", page::script_text("flame.css"));
  fill("{{FLAME_JS}}", page::script_text("flame.js"));
  fill("{{DATA}}", data);
  fill("{{SCRIPT}}", page::script_text("heatmap.js"));
  return html;
}

}  // namespace hearth::heat
