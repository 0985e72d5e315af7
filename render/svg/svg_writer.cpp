#include "render/svg/svg_writer.h"

#include <vector>

#include "common/atomic_file.h"
#include "common/check.h"
#include "render/scene/color.h"
#include "render/scene/format.h"
#include "render/svg/frame_data.h"
#include "render/svg/xml.h"
#include "templates/templates.h"

namespace hearth::svg {
namespace {

using scene::format_px;

void attr(std::string* out, std::string_view name, std::string_view value) {
  out->push_back(' ');
  out->append(name);
  out->append("=\"");
  append_escaped(out, value);
  out->push_back('"');
}

void write_text(std::string* out, const scene::Text& t, double default_size) {
  out->append("<text");
  if (!t.id.empty()) attr(out, "id", t.id);
  if (!t.css_class.empty()) attr(out, "class", t.css_class);
  attr(out, "x", format_px(t.x));
  attr(out, "y", format_px(t.y));
  if (t.anchor == scene::Anchor::kMiddle) attr(out, "text-anchor", "middle");
  if (t.anchor == scene::Anchor::kEnd) attr(out, "text-anchor", "end");
  if (t.size != default_size) {
    attr(out, "font-size", format_px(t.size));
    // The base rule `text{font-size:…}` beats a presentation attribute: a text without a class
    // of its own (the chart styles size theirs by class) carries its size inline too.
    if (t.css_class.empty() && t.id.empty())
      attr(out, "style", "font-size:" + format_px(t.size) + "px");
  }
  if (t.bold) attr(out, "font-weight", "bold");
  if (t.color != scene::Rgb{0, 0, 0}) attr(out, "fill", scene::to_hex(t.color));
  out->push_back('>');
  append_escaped(out, t.text);
  out->append("</text>\n");
}

// <g [class] [attrs]><title>…</title><rect …/>[<text …>label</text>]</g>
void write_rect(std::string* out, const scene::Rect& r) {
  out->append("<g");
  if (!r.css_class.empty()) attr(out, "class", r.css_class);
  for (const auto& [k, v] : r.attrs) attr(out, k, v);
  out->push_back('>');
  if (!r.title.empty()) {
    out->append("<title>");
    append_escaped(out, r.title);
    out->append("</title>");
  }
  out->append("<rect x=\"");
  out->append(format_px(r.x));
  out->append("\" y=\"");
  out->append(format_px(r.y));
  out->append("\" width=\"");
  out->append(format_px(scene::round_px(r.x + r.w) - scene::round_px(r.x)));
  out->append("\" height=\"");
  out->append(format_px(r.h));
  out->append("\" fill=\"");
  out->append(scene::to_hex(r.fill));
  if (r.stroke_width > 0) {
    out->append("\" stroke=\"");
    out->append(scene::to_hex(r.stroke));
    out->append("\" stroke-width=\"");
    out->append(format_px(r.stroke_width));
  }
  if (r.hover_only) out->append("\" fill-opacity=\"0");
  out->append("\"/>");
  if (!r.label.empty()) {
    out->append("<text x=\"");
    out->append(format_px(r.label_x));
    out->append("\" y=\"");
    out->append(format_px(r.label_y));
    out->append("\">");
    append_escaped(out, r.label);
    out->append("</text>");
  }
  out->append("</g>\n");
}

// <g [class]><title>…</title><polyline points="x,y …" …/></g>
void write_polyline(std::string* out, const scene::Polyline& p) {
  out->append("<g");
  if (!p.css_class.empty()) attr(out, "class", p.css_class);
  out->push_back('>');
  if (!p.title.empty()) {
    out->append("<title>");
    append_escaped(out, p.title);
    out->append("</title>");
  }
  out->append("<polyline points=\"");
  for (size_t i = 0; i < p.points.size(); ++i) {
    if (i > 0) out->push_back(' ');
    out->append(format_px(p.points[i].first));
    out->push_back(',');
    out->append(format_px(p.points[i].second));
  }
  out->append("\" fill=\"none\" stroke=\"");
  out->append(scene::to_hex(p.color));
  out->append("\" stroke-width=\"");
  out->append(format_px(p.width));
  out->append("\" stroke-linejoin=\"round\"/></g>\n");
}

std::string comment_safe(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-' && !out.empty() && out.back() == '-') out.push_back(' ');
    out.push_back(c);
  }
  if (!out.empty() && out.back() == '-') out.push_back(' ');
  return out;
}

std::vector<std::string> kinds(const std::string& kind) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= kind.size()) {
    size_t blank = kind.find(' ', start);
    if (blank == std::string::npos) blank = kind.size();
    if (blank > start) out.push_back(kind.substr(start, blank - start));
    start = blank + 1;
  }
  return out;
}

}  // namespace

std::string to_svg(const scene::Scene& s) {
  std::string out;
  size_t rects = 0;
  for (const scene::Layer& l : s.layers) rects += l.rects.size();
  out.reserve(4096 + rects * 160);
  std::string w = format_px(s.width), h = format_px(s.height);
  out.append("<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\"");
  attr(&out, "width", w);
  attr(&out, "height", h);
  attr(&out, "viewBox", "0 0 " + w + " " + h);
  out.append(" xmlns=\"http://www.w3.org/2000/svg\"");
  attr(&out, "class", "hearth " + s.kind);
  for (const auto& [k, v] : s.data) attr(&out, "data-" + k, v);
  out.append(">\n");
  if (!s.notes.empty()) {
    out.append("<!-- NOTES: ");
    append_escaped(&out, comment_safe(s.notes));
    out.append(" -->\n");
  }
  out.append("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">");
  out.append("<stop stop-color=\"" + scene::to_hex(s.background_top) + "\" offset=\"5%\"/>");
  out.append("<stop stop-color=\"" + scene::to_hex(s.background_bottom) + "\" offset=\"95%\"/>");
  out.append("</linearGradient></defs>\n<style>\ntext{font-family:");
  append_escaped(&out, s.font_family);
  out.append(";font-size:" + format_px(s.font_size) + "px}\n.hide{display:none}\n");
  // KIND may name several styles and scripts, space-separated ("chart metrics"): each is
  // embedded, in order.
  for (const std::string& k : kinds(s.kind)) out.append(templates::get(k + ".css"));
  out.append("</style>\n");
  out.append("<rect id=\"bg\" x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h +
             "\" fill=\"url(#background)\"/>\n");
  for (const scene::Text& t : s.texts) write_text(&out, t, s.font_size);
  for (const scene::Layer& l : s.layers) {
    double lazy = 0;
    if (l.as_data && !l.rects.empty()) {
      HEARTH_CHECK(!l.id.empty());
      out.append("<metadata");
      attr(&out, "id", l.id + "-data");
      out.push_back('>');
      append_frame_data(&out, l);
      out.append("</metadata>\n");
      lazy = lazy_width(l);
    }
    out.append("<g");
    if (!l.id.empty()) attr(&out, "id", l.id);
    out.append(">\n");
    for (const scene::Rect& r : l.rects) {
      if (written_as_element(r, lazy)) write_rect(&out, r);
    }
    for (const scene::Polyline& p : l.lines) write_polyline(&out, p);
    out.append("</g>\n");
  }
  for (const std::string& k : kinds(s.kind)) {
    std::string_view js = templates::get(k + ".js");
    HEARTH_CHECK(js.find("]]>") == std::string_view::npos);
    out.append("<script type=\"text/ecmascript\"><![CDATA[\n");
    out.append(js);
    out.append("\n]]></script>\n");
  }
  out.append("</svg>\n");
  return out;
}

Result<void> write_svg(const scene::Scene& scene, const std::string& path) {
  return write_file_atomically(path, to_svg(scene));
}

}  // namespace hearth::svg
