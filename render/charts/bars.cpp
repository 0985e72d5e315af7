#include "render/charts/bars.h"

#include <algorithm>
#include <cmath>

#include "render/charts/chart_style.h"
#include "render/scene/format.h"

namespace hearth::charts {
namespace {

constexpr scene::Rgb kWarn{0xc0, 0x20, 0x20};
constexpr scene::Rgb kBarGrid{0xd8, 0xd8, 0xd8};

// "X W" as the SVG writer would write the rect: rounded edges, so both views line up.
std::string geometry_attr(double x, double w) {
  double l = scene::round_px(x), r = scene::round_px(x + w);
  return scene::format_px(l) + " " + scene::format_px(r - l);
}

double text_width(std::string_view s, double size) {
  return static_cast<double>(char_count(s)) * size * kGlyphWidth;
}

struct Axis {
  std::vector<double> x;  // px
  std::vector<std::string> labels;
};

Axis percent_axis(double x0, double width) {
  Axis a;
  for (int k = 0; k <= 4; ++k) {
    a.x.push_back(x0 + width * k / 4);
    a.labels.push_back(std::to_string(k * 25) + "%");
  }
  return a;
}

Axis time_axis(double x0, double width, double full_ns) {
  Axis a;
  int max_ticks = std::clamp(static_cast<int>(width / 90), 2, 10);
  for (const Tick& t : time_ticks(full_ns, max_ticks)) {
    a.x.push_back(x0 + width * t.ns / full_ns);
    a.labels.push_back(t.label);
  }
  return a;
}

}  // namespace

SectionGeometry draw_section(const Section& sec, int index, scene::Scene* s, double* y) {
  const std::string id = "s" + std::to_string(index);
  const double width = s->width;
  const double top = *y;
  const bool two_views = sec.views == Views::kPercentAndTime;
  const double full_ns = sec.full_ns > 0 ? sec.full_ns : 1;
  bool notes =
      std::any_of(sec.bars.begin(), sec.bars.end(), [](const Bar& b) { return !b.note.empty(); });
  SectionGeometry g;
  double label_w = std::clamp(width * 0.18, 110.0, 240.0);
  g.bars_x = kPad + label_w + 8;
  g.bars_width = std::max(10.0, width - kPad - 14 - (notes ? 150 : 0) - g.bars_x);
  size_t n = sec.bars.size();
  g.pitch = n == 0 ? 22 : std::clamp(std::floor(560.0 / static_cast<double>(n)), 10.0, 22.0);
  g.bar_height = g.pitch - std::max(2.0, std::round(g.pitch * 0.2));
  const double label_size = std::clamp(std::floor(g.pitch - 4), 8.0, 12.0);  // whole px
  const size_t first_text = s->texts.size();

  scene::Text title = text(kPad, top + 20, sec.title, 15);
  title.bold = true;
  title.id = id + "-title";
  s->texts.push_back(std::move(title));
  if (two_views) {
    scene::Text toggle = text(width - kPad, top + 20, "show ms", 12, scene::Anchor::kEnd);
    toggle.id = id + "-toggle";
    toggle.css_class = "toggle hide";
    toggle.hidden = true;
    s->texts.push_back(std::move(toggle));
  }
  scene::Text sub = text(kPad, top + 37, sec.subtitle, 11);
  sub.color = sec.warn ? kWarn : kSubtle;
  sub.css_class = sec.warn ? "sub warn" : "sub";
  s->texts.push_back(std::move(sub));
  scene::Text details = text(kPad, top + 53, " ", 11);
  details.id = id + "-details";
  details.css_class = "details";
  s->texts.push_back(std::move(details));

  // Legend: swatches with their names, wrapped.
  scene::Layer legend{id + "-legend", {}};
  double lx = kPad, ly = top + 62;
  for (const LegendEntry& e : sec.legend) {
    double w = 15 + text_width(e.label, 11) + 16;
    if (lx + w > width - kPad && lx > kPad) lx = kPad, ly += 17;
    scene::Rect r;
    r.x = lx, r.y = ly, r.w = 11, r.h = 11, r.fill = e.fill, r.title = e.label;
    legend.rects.push_back(std::move(r));
    s->texts.push_back(text(lx + 15, ly + 9.5, e.label, 11));
    lx += w;
  }
  const double bars_top = sec.legend.empty() ? top + 62 : ly + 17 + 6;
  const double bars_bottom = bars_top + static_cast<double>(n) * g.pitch;
  const double ticks_y = bars_bottom + 12;

  // Axis: grid lines under the bars, labels below them.
  scene::Layer grid{id + "-grid", {}};
  Axis time = time_axis(g.bars_x, g.bars_width, full_ns);
  Axis pct = two_views ? percent_axis(g.bars_x, g.bars_width) : time;
  if (n > 0) {
    size_t lines = std::max(pct.x.size(), time.x.size());
    for (size_t i = 0; i < lines; ++i) {
      scene::Rect r;
      r.y = bars_top - 3, r.h = bars_bottom - bars_top + 3, r.fill = kBarGrid;
      r.x = i < pct.x.size() ? pct.x[i] - 0.5 : g.bars_x;
      r.w = i < pct.x.size() ? 1 : 0;
      if (two_views) {
        r.attrs.push_back({"data-ms", i < time.x.size() ? geometry_attr(time.x[i] - 0.5, 1)
                                                        : geometry_attr(g.bars_x, 0)});
      }
      grid.rects.push_back(std::move(r));
    }
    for (int view = 0; view < (two_views ? 2 : 1); ++view) {
      const Axis& a = view == 0 ? pct : time;
      for (size_t i = 0; i < a.x.size(); ++i) {
        scene::Text t = text(a.x[i], ticks_y, a.labels[i], 10, scene::Anchor::kMiddle);
        if (two_views) {
          t.css_class = id + (view == 0 ? " pct" : " ms hide");
          t.hidden = view == 1;
        }
        s->texts.push_back(std::move(t));
      }
    }
  } else {
    s->texts.push_back(text(g.bars_x, bars_top + 14, "(nothing recorded)", 11));
  }

  // One transparent hover target per anchored bar, under the bars: the label and bar's whole
  // row, the link target chart.js highlights (interactive backends only).
  scene::Layer rows{id + "-rows", {}};
  scene::Layer bars{id + "-bars", {}};
  const double fs = s->font_size;
  for (size_t i = 0; i < n; ++i) {
    const Bar& b = sec.bars[i];
    const double yb = bars_top + static_cast<double>(i) * g.pitch;
    if (!b.anchor.empty()) {
      scene::Rect row;
      row.x = kPad, row.w = width - 2 * kPad;
      row.y = yb - (g.pitch - g.bar_height) / 2, row.h = g.pitch;
      row.title = b.label;
      row.css_class = "row";
      // Unique in the picture: a thread charted again (a second recording) is "sN-thread-42".
      bool taken = false;
      for (const scene::Layer& l : s->layers)
        for (const scene::Rect& r : l.rects)
          for (const auto& [k, v] : r.attrs) taken |= k == "id" && v == b.anchor;
      row.attrs.push_back({"id", taken ? id + "-" + b.anchor : b.anchor});
      row.hover_only = true;
      rows.rects.push_back(std::move(row));
    }
    auto max_chars = static_cast<size_t>(label_w / (label_size * kGlyphWidth));
    scene::Text lbl = text(g.bars_x - 6, yb + g.bar_height / 2 + label_size * 0.35,
                           elide(b.label, max_chars), label_size, scene::Anchor::kEnd);
    lbl.css_class = "lbl";
    s->texts.push_back(std::move(lbl));
    double total = 0;
    for (const Segment& seg : b.segments) total += std::max(0.0, seg.value);
    double cum = 0;
    for (const Segment& seg : b.segments) {
      if (!(seg.value > 0)) continue;
      double xt = g.bars_x + cum / full_ns * g.bars_width, wt = seg.value / full_ns * g.bars_width;
      double xp = g.bars_x + cum / total * g.bars_width, wp = seg.value / total * g.bars_width;
      cum += seg.value;
      if (std::max(wt, two_views ? wp : 0.0) < 0.05) continue;  // invisible in every view
      scene::Rect r;
      r.x = two_views ? xp : xt, r.w = two_views ? wp : wt;
      r.y = yb, r.h = g.bar_height, r.fill = seg.fill, r.title = seg.title;
      r.css_class = seg.css_class;
      if (two_views) r.attrs.push_back({"data-ms", geometry_attr(xt, wt)});
      double room = two_views ? std::min(wp, wt) : wt;
      if (!seg.label.empty() && g.bar_height >= 12 && text_width(seg.label, fs) + 6 <= room) {
        r.label = seg.label;
        r.label_x = r.x + 3;
        r.label_y = yb + g.bar_height / 2 + fs * 0.35;
      }
      bars.rects.push_back(std::move(r));
    }
    if (!b.note.empty()) {
      double end = g.bars_x + (two_views ? g.bars_width : cum / full_ns * g.bars_width);
      scene::Text note =
          text(end + 6, yb + g.bar_height / 2 + label_size * 0.35, b.note, label_size);
      note.css_class = "note";
      s->texts.push_back(std::move(note));
    }
  }
  if (!rows.rects.empty()) s->layers.push_back(std::move(rows));
  s->layers.push_back(std::move(grid));
  s->layers.push_back(std::move(bars));
  s->layers.push_back(std::move(legend));

  double bottom = n > 0 ? ticks_y : bars_top + 14;
  if (!sec.footnote.empty()) {
    scene::Text foot = text(kPad, bottom + 18, sec.footnote, 11);
    foot.color = kSubtle;
    foot.css_class = "sub";
    s->texts.push_back(std::move(foot));
    bottom += 18;
  }
  add_size_classes(s, first_text);
  *y = bottom + 22;
  return g;
}

}  // namespace hearth::charts
