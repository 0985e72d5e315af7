#include "render/timeline/timeline_page.h"

#include "common/check.h"
#include "templates/templates.h"

namespace hearth::timeline {
namespace {

std::string html_text(std::string_view s) {
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

// Template NAME as the content of a <script> element: it must not close it.
std::string_view script_text(std::string_view name) {
  std::string_view text = templates::get(name);
  HEARTH_CHECK(text.find("</script") == std::string_view::npos &&
               text.find("</SCRIPT") == std::string_view::npos);
  return text;
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
  fill("{{TITLE}}", html_text(o.title));
  fill("{{CSS}}", templates::get("timeline.css"));
  fill("{{HEADING}}", html_text(o.title));
  fill("{{DATA}}", data);
  fill("{{SCRIPT}}", script_text("timeline.js"));
  return html;
}

}  // namespace hearth::timeline
