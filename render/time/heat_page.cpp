#include "render/time/heat_page.h"

#include "common/check.h"
#include "render/time/heat_data.h"
#include "templates/templates.h"

namespace hearth::heat {
namespace {

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// TEXT as the content of a <script> element: it must not close it.
std::string_view script_text(std::string_view name) {
  std::string_view text = templates::get(name);
  HEARTH_CHECK(text.find("</script") == std::string_view::npos &&
               text.find("</SCRIPT") == std::string_view::npos);
  return text;
}

}  // namespace

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
  fill("{{TITLE}}", html_escape(o.title));
  fill("{{CSS}}", templates::get("heatmap.css"));
  fill("{{HEADING}}", html_escape(o.title));
  fill("{{FLAME_CSS}}", script_text("flame.css"));
  fill("{{FLAME_JS}}", script_text("flame.js"));
  fill("{{DATA}}", data);
  fill("{{SCRIPT}}", script_text("heatmap.js"));
  return html;
}

}  // namespace hearth::heat
