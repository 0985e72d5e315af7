#include "render/charts/metrics_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "render/charts/chart_style.h"
#include "render/scene/format.h"

namespace hearth::charts {
namespace {

constexpr double kGap = 14;           // px between panels
constexpr double kPanelHeight = 210;  // px, without the legend
constexpr scene::Rgb kPlotGrid{0xe2, 0xe2, 0xe2};
constexpr scene::Rgb kFrame{0xd0, 0xd0, 0xd0};

size_t chars_for(double px, double size) {
  return px <= 0 ? 0 : static_cast<size_t>(px / (size * kGlyphWidth));
}

scene::Rect rect(double x, double y, double w, double h, scene::Rgb fill, std::string title = {}) {
  scene::Rect r;
  r.x = x, r.y = y, r.w = std::max(0.0, w), r.h = std::max(0.0, h), r.fill = fill;
  r.title = std::move(title);
  return r;
}

scene::Rgb event_color(const std::string& kind) {
  if (kind == "replaced") return {0x9a, 0x74, 0xc9};
  if (kind == "stale" || kind == "error") return {0xd9, 0x4f, 0x4f};
  if (kind == "alive") return {0x5a, 0xb1, 0x5a};
  if (kind == "skipped") return {0xf0, 0x9a, 0x36};
  return {0x88, 0x88, 0x88};  // gone, and kinds this hearth does not know
}

std::string series_label(const Panel& p, const PanelLine& l) {
  return l.instance.empty() ? p.title : p.title + " [" + l.instance + "]";
}

// "12 s" on the time axis of a SPAN: in the unit time_ticks would use.
std::string time_label(double t_ns) {
  return t_ns <= 0 ? std::string("0 s") : format_ns(t_ns);
}

std::string panel_tooltip(const Panel& p) {
  std::string t = p.title;
  if (!p.help.empty()) t += ": " + p.help;
  t += " (" + p.semantics;
  if (!p.pcp_units.empty()) t += ", " + p.pcp_units;
  if (p.rate) t += ", shown as a rate";
  t += "; " + p.file + ")";
  return t;
}

// "2024-05-01 12:00:00 UTC" for a CLOCK_REALTIME time.
std::string utc_text(uint64_t ns) {
  std::time_t secs = static_cast<std::time_t>(ns / 1000000000u);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

class PanelDrawer {
 public:
  PanelDrawer(const PanelSet& set, const std::string& id, scene::Scene* s, bool show_file)
      : set_(set), id_(id), s_(s), show_file_(show_file) {}
  void draw(const Panel& p, size_t index, const PanelGeometry& g);
  size_t lines() const { return lines_; }

 private:
  double x_of(const PanelGeometry& g, double t_ns) const {
    return g.plot_x + (set_.span_ns > 0 ? t_ns / set_.span_ns * g.plot_w : g.plot_w / 2);
  }
  void draw_values(const Panel& p, const PanelGeometry& g, const std::string& pid);
  void draw_strings(const Panel& p, const PanelGeometry& g, const std::string& pid);
  void draw_time_axis(const PanelGeometry& g, scene::Layer* grid);

  const PanelSet& set_;
  std::string id_;
  scene::Scene* s_;
  bool show_file_;
  size_t lines_ = 0;
};

void PanelDrawer::draw_time_axis(const PanelGeometry& g, scene::Layer* grid) {
  int max_ticks = std::clamp(static_cast<int>(g.plot_w / 70), 2, 8);
  for (const Tick& t : time_ticks(set_.span_ns, max_ticks)) {
    double x = set_.span_ns > 0 ? x_of(g, t.ns) : g.plot_x;
    grid->rects.push_back(rect(x - 0.5, g.plot_y, 1, g.plot_h, kPlotGrid));
    std::string label = t.ns == 0 ? "0" : t.label;
    s_->texts.push_back(text(x, g.plot_y + g.plot_h + 12, label, 10, scene::Anchor::kMiddle));
    if (set_.span_ns <= 0) break;
  }
}

void PanelDrawer::draw_values(const Panel& p, const PanelGeometry& g, const std::string& pid) {
  scene::Layer grid{pid + "-grid", {}, {}};
  double lo = p.min, hi = p.max;
  if (p.empty) lo = 0, hi = 1;
  // Rates, bytes and counts usually start at 0: include it unless the values sit far from it.
  if (lo > 0 && lo < hi * 0.6) lo = 0;
  std::vector<double> ticks =
      value_ticks(lo, hi, p.unit, std::max(2, static_cast<int>(g.plot_h / 34)));
  double y0 = ticks.front(), y1 = ticks.back();
  if (!(y1 > y0)) y1 = y0 + 1;
  auto y_of = [&](double v) { return g.plot_y + g.plot_h - (v - y0) / (y1 - y0) * g.plot_h; };
  for (double t : ticks) {
    double y = y_of(t);
    grid.rects.push_back(rect(g.plot_x, y - 0.5, g.plot_w, 1, kPlotGrid));
    scene::Text lbl = text(g.plot_x - 4, y + 3.5, format_value(t, p.unit), 10, scene::Anchor::kEnd);
    lbl.css_class = "tick";
    s_->texts.push_back(std::move(lbl));
  }
  draw_time_axis(g, &grid);
  s_->layers.push_back(std::move(grid));

  scene::Layer lines{pid + "-lines", {}, {}};
  // Values at each time, for the hover columns: time -> "inst: value" parts.
  std::map<double, std::string> at;
  size_t total_points = 0;
  for (const PanelLine& l : p.lines) {
    for (const auto& run : l.runs) total_points += run.size();
  }
  const bool dots = total_points <= 60;
  for (const PanelLine& l : p.lines) {
    scene::Rgb color = cpu_color(static_cast<int>(l.color));
    size_t n = 0;
    for (const auto& run : l.runs) n += run.size();
    std::string title = series_label(p, l) + ": " + std::to_string(n) + " values";
    if (l.runs.size() > 1)
      title += " in " + std::to_string(l.runs.size()) + " runs (gaps: no value)";
    if (l.resets > 0) {
      title += "; the counter went down " + std::to_string(l.resets) + "x (reset; not drawn)";
    }
    for (const auto& run : l.runs) {
      scene::Polyline line;
      line.color = color;
      line.title = title;
      line.css_class = "ln i" + std::to_string(l.color);
      for (size_t i = 0; i < run.size(); ++i) {
        double x = x_of(g, run[i].t_ns), y = y_of(run[i].v);
        if (p.kind == PanelKind::kSteps && i > 0)
          line.points.emplace_back(x, line.points.back().second);
        line.points.emplace_back(x, y);
        std::string& a = at[run[i].t_ns];
        a += a.empty() ? "" : " \xc2\xb7 ";
        a += (l.instance.empty() ? std::string() : l.instance + " ") +
             format_value(run[i].v, p.unit);
        if (dots || run.size() == 1) {
          scene::Rect d = rect(x - 1.5, y - 1.5, 3, 3, color,
                               series_label(p, l) + " at " + time_label(run[i].t_ns) + ": " +
                                   format_value(run[i].v, p.unit));
          lines.rects.push_back(std::move(d));
        }
      }
      if (line.points.size() >= 2) {
        lines.lines.push_back(std::move(line));
        ++lines_;
      }
    }
  }

  // Hover columns: one per time (at most one per 3 px), spanning the plot's height.
  scene::Layer hover{pid + "-hover", {}, {}};
  std::vector<std::pair<double, std::string>> cols(at.begin(), at.end());
  double last_x = -1e9;
  std::vector<std::pair<double, std::string>> kept;
  for (auto& c : cols) {
    double x = x_of(g, c.first);
    if (x - last_x < 3 && !kept.empty()) continue;
    kept.push_back(std::move(c));
    last_x = x;
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    double x = x_of(g, kept[i].first);
    double left = i == 0 ? g.plot_x : (x + x_of(g, kept[i - 1].first)) / 2;
    double right =
        i + 1 == kept.size() ? g.plot_x + g.plot_w : (x + x_of(g, kept[i + 1].first)) / 2;
    scene::Rect r = rect(left, g.plot_y, right - left, g.plot_h, {0x80, 0x80, 0x80},
                         p.title + " at " + time_label(kept[i].first) + ": " + kept[i].second);
    r.hover_only = true;
    hover.rects.push_back(std::move(r));
  }
  // Under the lines: a line's own tooltip wins where the pointer is on it.
  s_->layers.push_back(std::move(hover));
  s_->layers.push_back(std::move(lines));
}

void PanelDrawer::draw_strings(const Panel& p, const PanelGeometry& g, const std::string& pid) {
  scene::Layer grid{pid + "-grid", {}, {}};
  draw_time_axis(g, &grid);
  size_t lanes = std::max<size_t>(1, p.lines.size());
  double lane_h = std::min(22.0, g.plot_h / static_cast<double>(lanes));
  for (size_t i = 0; i < p.lines.size() && lane_h >= 6; ++i) {
    double y = g.plot_y + lane_h * static_cast<double>(i);
    grid.rects.push_back(rect(g.plot_x, y + lane_h - 0.5, g.plot_w, 1, kPlotGrid));
    if (!p.lines[i].instance.empty()) {
      scene::Text lbl = text(g.plot_x - 4, y + lane_h / 2 + 3.5,
                             elide(p.lines[i].instance, chars_for(g.plot_x - g.x - 6, 10)), 10,
                             scene::Anchor::kEnd);
      lbl.css_class = "tick";
      s_->texts.push_back(std::move(lbl));
    }
  }
  s_->layers.push_back(std::move(grid));
  scene::Layer marks{pid + "-lines", {}, {}};
  for (size_t i = 0; i < p.changes.size() && lane_h >= 6; ++i) {
    const StringChange& c = p.changes[i];
    const PanelLine& l = p.lines[c.line];
    double x = x_of(g, c.t_ns), y = g.plot_y + lane_h * static_cast<double>(c.line);
    marks.rects.push_back(
        rect(x - 1, y + 2, 2, lane_h - 4, cpu_color(static_cast<int>(l.color)),
             series_label(p, l) + " at " + time_label(c.t_ns) + ": \"" + c.value + "\""));
    // The value, up to the next change in its lane.
    double next = g.plot_x + g.plot_w;
    for (size_t k = i + 1; k < p.changes.size(); ++k) {
      if (p.changes[k].line == c.line) {
        next = x_of(g, p.changes[k].t_ns);
        break;
      }
    }
    size_t room = chars_for(next - x - 6, 10);
    if (room >= 2 && lane_h >= 12) {
      s_->texts.push_back(text(x + 3, y + lane_h / 2 + 3.5, elide(c.value, room), 10));
    }
  }
  s_->layers.push_back(std::move(marks));
}

void PanelDrawer::draw(const Panel& p, size_t index, const PanelGeometry& g) {
  const std::string pid = id_ + "-p" + std::to_string(index);
  // Texts are painted before layers: the frame is an outline (four thin rects) and a
  // transparent hover target carrying the metric's help, never a fill over the texts.
  scene::Layer frame{pid + "-frame", {}, {}};
  scene::Rect box = rect(g.x, g.y, g.w, g.h, kFrame, panel_tooltip(p));
  box.hover_only = true;
  // The plot area, for the time view's link (templates/metrics.js).
  box.attrs.emplace_back("data-plot",
                         scene::format_px(g.plot_x) + " " + scene::format_px(g.plot_y) + " " +
                             scene::format_px(g.plot_w) + " " + scene::format_px(g.plot_h));
  frame.rects.push_back(std::move(box));
  for (auto [x, y, w, h] :
       {std::array{g.x, g.y, g.w, 1.0}, std::array{g.x, g.y + g.h - 1, g.w, 1.0},
        std::array{g.x, g.y, 1.0, g.h}, std::array{g.x + g.w - 1, g.y, 1.0, g.h}}) {
    frame.rects.push_back(rect(x, y, w, h, kFrame));
  }
  s_->layers.push_back(std::move(frame));

  std::string units = p.pcp_units.empty() ? std::string("no unit") : p.pcp_units;
  double units_w = static_cast<double>(char_count(units)) * 10 * kGlyphWidth;
  std::string title = show_file_ ? p.file + " \xc2\xb7 " + p.title : p.title;
  scene::Text t = text(g.x + 8, g.y + 16, elide(title, chars_for(g.w - 24 - units_w, 12)), 12);
  t.bold = true;
  s_->texts.push_back(std::move(t));
  scene::Text u = text(g.x + g.w - 8, g.y + 16, units, 10, scene::Anchor::kEnd);
  u.color = kSubtle;
  u.css_class = "sub";
  s_->texts.push_back(std::move(u));

  if (p.kind == PanelKind::kStrings) {
    draw_strings(p, g, pid);
  } else {
    draw_values(p, g, pid);
  }
  if (p.empty) {
    s_->texts.push_back(text(g.plot_x + g.plot_w / 2, g.plot_y + g.plot_h / 2, "(no values)", 11,
                             scene::Anchor::kMiddle));
  }

  scene::Layer events{pid + "-events", {}, {}};
  for (const PanelEvent& e : p.events) {
    double x = x_of(g, e.t_ns);
    events.rects.push_back(rect(x - 1, g.plot_y, 2, g.plot_h, event_color(e.kind),
                                time_label(e.t_ns) + ": " + e.kind +
                                    (e.detail.empty() ? std::string() : " (" + e.detail + ")")));
  }
  s_->layers.push_back(std::move(events));

  // Legend: one swatch per instance, wrapped under the time axis; cut with "+N more".
  scene::Layer legend{pid + "-legend", {}, {}};
  if (p.lines.size() > 1 || (p.lines.size() == 1 && !p.lines[0].instance.empty())) {
    double lx = g.plot_x, ly = g.plot_y + g.plot_h + 20;
    for (size_t i = 0; i < p.lines.size(); ++i) {
      const PanelLine& l = p.lines[i];
      std::string name = elide(l.instance.empty() ? "(none)" : l.instance, 24);
      double w = 13 + static_cast<double>(char_count(name)) * 10 * kGlyphWidth + 10;
      if (lx + w > g.x + g.w - 4 && lx > g.plot_x) {
        lx = g.plot_x, ly += 14;
        if (ly + 10 > g.y + g.h) {
          s_->texts.push_back(text(lx, ly - 14 + 9, "", 10));
          s_->texts.back().text = "+" + std::to_string(p.lines.size() - i) + " more";
          break;
        }
      }
      legend.rects.push_back(rect(lx, ly, 9, 9, cpu_color(static_cast<int>(l.color)), l.instance));
      legend.rects.back().css_class = "i" + std::to_string(l.color);
      s_->texts.push_back(text(lx + 13, ly + 8.5, name, 10));
      lx += w;
    }
  }
  s_->layers.push_back(std::move(legend));
}

}  // namespace

std::string metrics_title(const std::vector<series::SeriesFile>& files) {
  std::vector<std::string> names;
  for (const series::SeriesFile& f : files) {
    for (const series::SeriesInfo& s : f.series) {
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    }
  }
  std::string t = "Metrics";
  for (size_t i = 0; i < names.size() && i < 4; ++i) t += (i == 0 ? ": " : ", ") + names[i];
  if (names.size() > 4) t += ", \xe2\x80\xa6";
  return t;
}

std::vector<PanelGeometry> draw_metrics(const PanelSet& set, const std::string& title, int index,
                                        scene::Scene* s, double* y, MetricsStats* stats) {
  const std::string id = "s" + std::to_string(index);
  const double width = s->width, top = *y;
  const size_t first_text = s->texts.size();
  scene::Text t = text(kPad, top + 20, title, 15);
  t.bold = true;
  t.id = id + "-title";
  s->texts.push_back(std::move(t));

  std::string sub =
      std::to_string(set.panels.size()) + " of " + std::to_string(set.metrics) + " metrics";
  if (set.filtered_out > 0)
    sub += " (" + std::to_string(set.filtered_out) + " left out by --metrics)";
  sub += " \xc2\xb7 " + format_ns(set.span_ns);
  for (const std::string& c : set.clocks) {
    if (c == "realtime") {
      sub += " from " + utc_text(set.start_ns);
    } else if (!c.empty()) {
      sub += " \xc2\xb7 clock " + c;
    }
  }
  sub += " \xc2\xb7 counters as rates per second";
  scene::Text st = text(kPad, top + 37, sub, 11);
  st.color = kSubtle;
  st.css_class = "sub";
  s->texts.push_back(std::move(st));
  scene::Text details = text(kPad, top + 53, " ", 11);
  details.id = id + "-details";
  details.css_class = "details";
  s->texts.push_back(std::move(details));

  bool show_file = false;
  for (const Panel& p : set.panels) show_file = show_file || p.file != set.panels.front().file;
  int cols = std::clamp(static_cast<int>((width - 2 * kPad + kGap) / (360 + kGap)), 1, 4);
  double pw = (width - 2 * kPad - (cols - 1) * kGap) / cols;
  // Legend rows: as many as the panel with the most instances needs, at most 3.
  size_t most = 0;
  for (const Panel& p : set.panels) most = std::max(most, p.lines.size());
  double legend_h =
      most <= 1 ? 0 : std::min(3.0, std::ceil(static_cast<double>(most) * 90 / (pw - 60))) * 14 + 6;
  double ph = kPanelHeight + legend_h;

  PanelDrawer drawer(set, id, s, show_file);
  std::vector<PanelGeometry> out;
  double row_y = top + 64;
  for (size_t i = 0; i < set.panels.size(); ++i) {
    size_t col = i % static_cast<size_t>(cols), row = i / static_cast<size_t>(cols);
    PanelGeometry g;
    g.x = kPad + static_cast<double>(col) * (pw + kGap);
    g.y = row_y + static_cast<double>(row) * (ph + kGap);
    g.w = pw, g.h = ph;
    g.plot_x = g.x + 62, g.plot_y = g.y + 26;
    g.plot_w = std::max(10.0, g.w - 62 - 12);
    g.plot_h = kPanelHeight - 26 - 24;
    drawer.draw(set.panels[i], i, g);
    out.push_back(g);
  }
  size_t rows = (set.panels.size() + static_cast<size_t>(cols) - 1) / static_cast<size_t>(cols);
  double bottom = row_y + static_cast<double>(rows) * (ph + kGap);
  if (set.panels.empty()) {
    s->texts.push_back(text(kPad, row_y + 14, "(no metrics to chart)", 11));
    bottom = row_y + 20;
  }
  std::vector<std::string> foot;
  if (set.metrics > set.panels.size()) {
    foot.push_back("showing the first " + std::to_string(set.panels.size()) + " of " +
                   std::to_string(set.metrics) +
                   " metrics: choose with --metrics REGEX, or raise --max-panels");
  }
  for (size_t i = 0; i < set.notes.size() && i < 5; ++i) foot.push_back(set.notes[i]);
  if (set.notes.size() > 5)
    foot.push_back("+" + std::to_string(set.notes.size() - 5) + " more events");
  for (const std::string& f : foot) {
    scene::Text ft = text(kPad, bottom + 12, elide(f, chars_for(width - 2 * kPad, 11)), 11);
    ft.color = kSubtle;
    ft.css_class = "sub";
    s->texts.push_back(std::move(ft));
    bottom += 16;
  }
  add_size_classes(s, first_text);
  *y = bottom + 10;
  if (stats) {
    stats->panels = set.panels.size();
    stats->metrics = set.metrics;
    stats->filtered_out = set.filtered_out;
    stats->lines = drawer.lines();
  }
  return out;
}

scene::Scene layout_metrics(const std::vector<series::SeriesFile>& files, const MetricsOptions& o,
                            MetricsStats* stats) {
  scene::Scene s;
  s.kind = "chart time_link metrics";
  s.width = o.width;
  s.font_size = 11;
  s.background_top = s.background_bottom = {0xfb, 0xfb, 0xfb};
  PanelSet set = build_panels(files, o.panels);
  std::string title = o.title.empty() ? metrics_title(files) : o.title;
  scene::Text t = text(std::floor(o.width / 2), 26, title, 17, scene::Anchor::kMiddle);
  t.bold = true;
  t.id = "title";
  s.texts.push_back(std::move(t));
  double y = 40;
  draw_metrics(set, "Time series", 0, &s, &y, stats);
  // The time axis, for the time view's link (templates/metrics.js): x = plot_x + (time -
  // t0-ns) / span-ns * plot_w, time on the inputs' clock (CLOCK_REALTIME ns when "realtime").
  std::string clocks;
  for (const std::string& c : set.clocks) clocks += (clocks.empty() ? "" : " ") + c;
  s.data = {{"sections", "1"},
            {"t0-ns", std::to_string(set.start_ns)},
            {"span-ns", std::to_string(std::llround(set.span_ns))},
            {"clock", clocks}};
  s.height = std::ceil(y);
  return s;
}

}  // namespace hearth::charts
