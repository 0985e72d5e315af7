#include "render/timeline/timeline_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "common/digits.h"
#include "render/charts/chart_style.h"
#include "render/timeline/time_text.h"

namespace hearth::timeline {
namespace {

constexpr double kLeft = 190;          // px: lane labels
constexpr double kRight = 16;          // px
constexpr double kTop = 50;            // px: title, subtitle
constexpr double kMergedH = 48;        // px: the all-threads lane
constexpr double kKeptH = 16;          // px: the intervals / slots band
constexpr double kLegendH = 44;        // px
constexpr double kLanesHeight = 1000;  // px, about, for every lane together
// Activity counts this many times its time when a column's colour is chosen.
constexpr double kActivityWeight = 4;
// Stacking order of the all-threads lane, bottom up: activity first, sleep on top.
constexpr int kStackOrder[kClasses] = {0, 1, 3, 4, 5, 2};

scene::Text text_at(double x, double y, std::string s, double size,
                    scene::Anchor a = scene::Anchor::kStart) {
  scene::Text t;
  t.x = x, t.y = y, t.text = std::move(s), t.size = size, t.anchor = a;
  return t;
}

scene::Rgb class_color(int cls) {
  return charts::state_color(static_cast<charts::State>(cls));
}

scene::Rect rect_at(double x, double y, double w, double h, scene::Rgb fill) {
  scene::Rect r;
  r.x = x, r.y = y, r.w = w, r.h = h, r.fill = fill;
  return r;
}

// The colour class of a column holding TIMES over COVER ns of possible thread time; -1: empty.
int column_class(const ClassTimes& times, double cover) {
  double total = 0;
  for (double t : times) total += t;
  if (!(total >= 0.25 * cover)) return -1;
  int best = 0;
  double best_w = -1;
  for (int k = 0; k < kClasses; ++k) {
    const bool active = k == 0 || k == 1 || k == 3 || k == 4;
    const double w = times[k] * (active ? kActivityWeight : 1);
    if (w > best_w) best_w = w, best = k;
  }
  return best;
}

// One row of the picture: a lane, a pool of lanes, or a process's name.
struct Row {
  std::vector<uint32_t> lanes;  // empty: a process header
  std::string label;
  std::string title;  // the hover text's start
};

std::string lane_label(const Lane& l) {
  const std::string tid = std::to_string(l.tid);
  return l.name == "tid " + tid ? l.name : l.name + " " + tid;
}

std::string process_label(const Process& p, size_t threads) {
  std::string s = p.pid == 0 ? std::string("process not known")
                             : (p.name.empty() ? "pid " + std::to_string(p.pid)
                                               : p.name + " (pid " + std::to_string(p.pid) + ")");
  return s + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// The slots of LANES (one lane, or a pool's summed) in [FROM, TO) as stacked bars: each state's
// share of the slot, bottom up in kStackOrder, in rows [Y, Y + H).
template <typename XOf>
void draw_slots(const Model& m, const std::vector<uint32_t>& lanes, uint64_t from, uint64_t to,
                XOf x_of, double y, double h, scene::Layer* out) {
  std::map<uint64_t, ClassTimes> by_slot;
  for (uint32_t i : lanes) {
    const Lane& l = m.lanes[i];
    for (size_t k = l.slot_first; k < l.slot_first + l.slot_count; ++k) {
      const sched_intervals::Slot& s = m.slots->slots[k];
      if (s.slot_start_ns + m.slot_ns <= from || s.slot_start_ns >= to) continue;
      ClassTimes& t = by_slot[s.slot_start_ns];
      const uint64_t v[kClasses] = {s.on_cpu_ns,  s.runnable_ns, s.sleeping_ns,
                                    s.blocked_ns, s.stopped_ns,  s.other_ns};
      for (int c = 0; c < kClasses; ++c) t[c] += static_cast<double>(v[c]);
    }
  }
  const double whole = static_cast<double>(m.slot_ns) * static_cast<double>(lanes.size());
  for (const auto& [start, t] : by_slot) {
    const double x0 = x_of(start), x1 = x_of(std::min(start + m.slot_ns, m.whole_from_ns));
    if (x1 - x0 < 0.5) continue;
    // Whole 0.5 px steps from the bottom, so the parts always fill what the slot had.
    double cum = 0;
    double bottom = y + h;
    for (int k : kStackOrder) {
      if (t[k] <= 0) continue;
      cum += t[k] / whole;
      const double top = y + h - std::round(std::min(1.0, cum) * h * 2) / 2;
      if (bottom - top > 0)
        out->rects.push_back(rect_at(x0, top, x1 - x0, bottom - top, class_color(k)));
      bottom = top;
    }
  }
}

}  // namespace

uint64_t start_real_ns(const Model& m) {
  if (m.samples == nullptr || !m.samples_aligned || m.samples->real_ns == 0) return 0;
  const int64_t offset = static_cast<int64_t>(m.start_ns) - static_cast<int64_t>(m.samples_mono_ns);
  return static_cast<uint64_t>(static_cast<int64_t>(m.samples->real_ns) + offset);
}

scene::Scene layout_timeline(const Model& m, const PictureOptions& o) {
  const uint64_t from = o.from_ns != 0 ? o.from_ns : m.start_ns;
  const uint64_t to = o.to_ns != 0 ? o.to_ns : std::max(m.end_ns, from + 1);
  const double span = static_cast<double>(to - from);
  const double plot_w = std::max(100.0, std::floor(o.width - kLeft - kRight));
  const size_t columns = static_cast<size_t>(plot_w);
  const double col_ns = span / static_cast<double>(columns);
  const double fs = 12;

  // Rows: processes (named when there are several), pools or lanes.
  std::vector<Row> rows;
  const bool headers = m.processes.size() > 1;
  for (const Process& p : m.processes) {
    size_t threads = 0;
    for (const Group& g : p.groups) threads += g.lanes.size();
    if (headers) {
      rows.push_back({.lanes = {},
                      .label = process_label(p, threads),
                      .title = p.title.empty() ? std::string()
                                               : p.title + " (pid " + std::to_string(p.pid) + ")"});
    }
    for (const Group& g : p.groups) {
      if (o.group_pools && g.lanes.size() > 1) {
        rows.push_back({.lanes = g.lanes,
                        .label = g.name + " \xc3\x97" + std::to_string(g.lanes.size()),
                        .title = g.name + " (" + std::to_string(g.lanes.size()) + " threads)"});
        continue;
      }
      for (uint32_t i : g.lanes) {
        const Lane& l = m.lanes[i];
        // A process's one thread named as the process: its title in full in the hover.
        const bool titled = !p.title.empty() && l.tid == p.pid && l.name == p.name;
        rows.push_back(
            {.lanes = {i},
             .label = lane_label(l),
             .title = (titled ? p.title : l.name) + " (tid " + std::to_string(l.tid) + ")"});
      }
    }
  }
  const double lane_h =
      std::clamp(std::floor(kLanesHeight / std::max<size_t>(1, rows.size())), 6.0, 16.0);
  const double gap = lane_h >= 10 ? 2 : 1;
  const double label_fs = std::min(11.0, lane_h - 2);
  const uint64_t real = start_real_ns(m);
  const double axis_h = real != 0 ? 34 : 22;
  const bool slots_shown = m.whole_from_ns > m.window_start_ns && m.slots != nullptr;

  scene::Scene s;
  s.kind = "timelanes";
  s.width = kLeft + plot_w + kRight;
  s.background_top = s.background_bottom = {0xff, 0xff, 0xff};
  const double top = kTop + 16 * static_cast<double>(o.notes.size());
  const double kept_y = top + axis_h;
  const double merged_y = kept_y + (slots_shown ? kKeptH + 4 : 0);
  const double lanes_y = merged_y + kMergedH + 10;
  s.height = lanes_y + static_cast<double>(rows.size()) * lane_h + 8 + kLegendH;

  scene::Text title = text_at(s.width / 2, 22, o.title, fs + 5, scene::Anchor::kMiddle);
  title.id = "title";
  s.texts.push_back(title);
  std::string sub = o.subtitle;
  if (sub.empty()) {
    // What the range holds.
    size_t intervals = 0, ticks = 0;
    for (const Lane& l : m.lanes) {
      const auto* first = m.intervals->intervals.data() + l.first;
      const auto* last = first + l.count;
      const auto* a = std::upper_bound(first, last, from,
                                       [](uint64_t t, const auto& r) { return t < r.end_ns; });
      const auto* b = std::lower_bound(first, last, to,
                                       [](const auto& r, uint64_t t) { return r.start_ns < t; });
      intervals += static_cast<size_t>(std::max<ptrdiff_t>(0, b - a));
      for (const Tick& t : l.ticks) ticks += t.time_ns >= from && t.time_ns <= to;
    }
    sub = with_thousands(m.lanes.size()) + (m.lanes.size() == 1 ? " thread" : " threads") +
          " over " + duration_text(to - from) + "; " + with_thousands(intervals) +
          " scheduler intervals";
    if (ticks > 0) sub += ", " + with_thousands(ticks) + " stack samples";
    if (m.left_out > 0) sub += "; " + with_thousands(m.left_out) + " threads left out";
  }
  s.texts.push_back(text_at(s.width / 2, 40, sub, fs, scene::Anchor::kMiddle));
  for (size_t i = 0; i < o.notes.size(); ++i) {
    scene::Text t = text_at(s.width / 2, kTop + 4 + 16 * static_cast<double>(i), o.notes[i], fs - 1,
                            scene::Anchor::kMiddle);
    t.color = {0xb0, 0x00, 0x20};
    t.css_class = "warn";
    s.texts.push_back(std::move(t));
  }

  // ---- the axis ----
  scene::Layer axis;
  axis.id = "axis";
  const double axis_line = top + axis_h - 2;
  axis.rects.push_back(rect_at(kLeft, axis_line, plot_w, 1, {0x88, 0x88, 0x88}));
  const uint64_t step = tick_step(to - from, plot_w, 90);
  // Ticks at whole steps from time 0 (the origin), which may be after the range's start.
  const auto signed_ns = [&m](uint64_t t) {
    return static_cast<int64_t>(t) - static_cast<int64_t>(m.origin_ns);
  };
  const auto istep = static_cast<int64_t>(step);
  int64_t first_tick = signed_ns(from) / istep * istep;
  if (first_tick < signed_ns(from)) first_tick += istep;
  for (int64_t t = first_tick; t <= signed_ns(to); t += istep) {
    const double x = kLeft + static_cast<double>(t - signed_ns(from)) / col_ns;
    axis.rects.push_back(rect_at(x, axis_line - 6, 1, 6, {0x88, 0x88, 0x88}));
    // Labels right of their tick, left out where they would run past the picture.
    const std::string secs = seconds_text(t, step);
    const std::string wall =
        real != 0
            ? wall_clock_text(static_cast<uint64_t>(static_cast<int64_t>(real) + t +
                                                    signed_ns(m.origin_ns) - signed_ns(m.start_ns)),
                              step)
            : std::string();
    const double room = s.width - x - 4;
    if (static_cast<double>(secs.size()) * (fs - 2) * 0.62 < room)
      s.texts.push_back(text_at(x + 3, top + 12, secs, fs - 2));
    if (real != 0 && static_cast<double>(wall.size()) * (fs - 3) * 0.62 < room)
      s.texts.push_back(text_at(x + 3, top + 25, wall, fs - 3));
  }
  s.texts.push_back(text_at(kLeft - 6, top + 12, "seconds", fs - 2, scene::Anchor::kEnd));
  if (real != 0) {
    s.texts.push_back(
        text_at(kLeft - 6, top + 25, "wall clock (UTC)", fs - 3, scene::Anchor::kEnd));
  }
  s.layers.push_back(std::move(axis));

  auto x_of = [&](uint64_t t) {
    t = std::clamp(t, from, to);
    return kLeft + static_cast<double>(t - from) / col_ns;
  };

  // ---- which part is whole intervals, which is slots ----
  scene::Layer kept;
  kept.id = "kept";
  if (slots_shown) {
    const double xs = x_of(m.window_start_ns), xw = x_of(m.whole_from_ns),
                 xe = x_of(m.window_end_ns);
    // Slots from before the tracer (hearth watch's /proc reads before its trigger) first.
    const double xu = m.untraced_until_ns > m.window_start_ns ? x_of(m.untraced_until_ns) : xs;
    // One band from X0 to X1 (none when empty), its label drawn where it fits.
    auto band = [&](double x0, double x1, scene::Rgb colour, std::string hover, std::string label) {
      if (!(x1 > x0)) return;
      scene::Rect r = rect_at(x0, kept_y, x1 - x0, kKeptH - 2, colour);
      r.title = std::move(hover);
      if (x1 - x0 > 90) {
        r.label = std::move(label);
        r.label_x = x0 + 3;
        r.label_y = kept_y + 11;
      }
      kept.rects.push_back(std::move(r));
    };
    band(xs, xu, {0xe4, 0xe4, 0xe4},
         "before the tracer: each thread's time per state per " + duration_text(m.slot_ns) +
             " slot, from /proc read every " + duration_text(m.untraced_resolution_ns) +
             " (approximate)",
         "/proc every " + duration_text(m.untraced_resolution_ns) + " (state shares)");
    band(xu, xw, {0xd0, 0xd0, 0xd0},
         "slots of " + duration_text(m.slot_ns) + ": each thread's time per state per slot",
         "slots of " + duration_text(m.slot_ns) + " (state shares)");
    band(xw, xe, {0xa8, 0xd0, 0xa8}, "whole intervals: every switch, preemptor and waker",
         "whole intervals");
    s.texts.push_back(text_at(kLeft - 6, kept_y + 10, "kept", fs - 2, scene::Anchor::kEnd));
  }

  // ---- the all-threads lane: threads per state, stacked (2 px columns) ----
  scene::Layer merged;
  merged.id = "merged";
  const size_t mcols = (columns + 1) / 2;
  std::vector<ClassTimes> sum(mcols, ClassTimes{});
  double most = 0;
  for (const Lane& l : m.lanes) {
    std::vector<ClassTimes> t = column_times(m, l, from, to, mcols);
    for (size_t c = 0; c < mcols; ++c)
      for (int k = 0; k < kClasses; ++k) sum[c][k] += t[c][k];
  }
  const double mcol_ns = span / static_cast<double>(mcols);
  for (ClassTimes& c : sum) {
    double total = 0;
    for (double& v : c) total += (v /= mcol_ns);
    most = std::max(most, total);
  }
  const double scale_n = std::max(1.0, std::ceil(most - 1e-9));
  const double unit = (kMergedH - 2) / scale_n;
  merged.rects.push_back(rect_at(kLeft, merged_y, plot_w, kMergedH, {0xf4, 0xf4, 0xf4}));
  {
    // Heights per class in whole 0.5 px steps, so equal columns merge.
    auto heights = [&](size_t c) {
      std::array<int, kClasses> h{};
      for (int k = 0; k < kClasses; ++k) h[k] = static_cast<int>(std::lround(sum[c][k] * unit * 2));
      return h;
    };
    size_t c = 0;
    while (c < mcols) {
      const auto h = heights(c);
      size_t e = c + 1;
      while (e < mcols && heights(e) == h) ++e;
      double y = merged_y + kMergedH;
      const double x = kLeft + static_cast<double>(c) * 2;
      const double w = std::min(static_cast<double>(e - c) * 2, kLeft + plot_w - x);
      for (int k : kStackOrder) {
        if (h[k] == 0) continue;
        const double hh = h[k] / 2.0;
        y -= hh;
        merged.rects.push_back(rect_at(x, y, w, hh, class_color(k)));
      }
      c = e;
    }
  }
  s.texts.push_back(text_at(kLeft - 6, merged_y + 14, "all threads", fs - 1, scene::Anchor::kEnd));
  s.texts.push_back(
      text_at(kLeft - 6, merged_y + 27, "(threads per state,", fs - 3, scene::Anchor::kEnd));
  s.texts.push_back(text_at(kLeft - 6, merged_y + 38,
                            "up to " + with_thousands(static_cast<uint64_t>(scale_n)) + ")", fs - 3,
                            scene::Anchor::kEnd));

  // ---- the lanes ----
  scene::Layer lanes;
  lanes.id = "lanes";
  scene::Layer hover;
  hover.id = "hover";
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    const double y = lanes_y + static_cast<double>(r) * lane_h;
    const double h = lane_h - gap;
    if (row.lanes.empty()) {
      scene::Text t =
          text_at(8, y + h - 1, row.label, std::min(12.0, lane_h), scene::Anchor::kStart);
      t.bold = true;
      s.texts.push_back(std::move(t));
      if (!row.title.empty()) {  // the process's title in full
        scene::Rect head = rect_at(0, y, kLeft + plot_w, lane_h, {0, 0, 0});
        head.hover_only = true;
        head.title = row.title;
        hover.rects.push_back(std::move(head));
      }
      continue;
    }
    if (label_fs >= 6) {
      s.texts.push_back(
          text_at(kLeft - 6, y + h - std::max(1.0, (h - label_fs) / 2) - 1,
                  charts::elide(row.label, static_cast<size_t>((kLeft - 14) / (label_fs * 0.6))),
                  label_fs, scene::Anchor::kEnd));
    }
    std::vector<ClassTimes> times(columns, ClassTimes{});
    uint64_t ticks = 0;
    std::vector<bool> ticked(columns, false);
    for (uint32_t i : row.lanes) {
      const Lane& l = m.lanes[i];
      std::vector<ClassTimes> t = column_times(m, l, from, to, columns);
      for (size_t c = 0; c < columns; ++c)
        for (int k = 0; k < kClasses; ++k) times[c][k] += t[c][k];
      for (const Tick& tk : l.ticks) {
        if (tk.time_ns < from || tk.time_ns > to) continue;
        ++ticks;
        ticked[std::min(columns - 1, static_cast<size_t>(static_cast<double>(tk.time_ns - from) /
                                                         col_ns))] = true;
      }
    }
    const double cover = col_ns * static_cast<double>(row.lanes.size());
    ClassTimes total{};
    // Columns before whole_from hold slots: drawn below, a stacked bar per slot.
    const size_t slot_cols =
        slots_shown
            ? std::min(columns, static_cast<size_t>(std::max(0.0, x_of(m.whole_from_ns) - kLeft)))
            : 0;
    auto class_at = [&](size_t col) {
      return col < slot_cols ? -1 : column_class(times[col], cover);
    };
    size_t c = 0;
    while (c < columns) {
      for (int k = 0; k < kClasses; ++k) total[k] += times[c][k];
      const int cls = class_at(c);
      size_t e = c + 1;
      while (e < columns && class_at(e) == cls && (e != slot_cols)) {
        for (int k = 0; k < kClasses; ++k) total[k] += times[e][k];
        ++e;
      }
      if (cls >= 0) {
        lanes.rects.push_back(rect_at(kLeft + static_cast<double>(c), y, static_cast<double>(e - c),
                                      h, class_color(cls)));
      }
      c = e;
    }
    if (slot_cols > 0) draw_slots(m, row.lanes, from, to, x_of, y, h, &lanes);
    if (h >= 6) {
      for (size_t a = 0; a < columns;) {
        if (!ticked[a]) {
          ++a;
          continue;
        }
        size_t b = a + 1;
        while (b < columns && ticked[b]) ++b;
        scene::Rect t = rect_at(kLeft + static_cast<double>(a), y, static_cast<double>(b - a),
                                std::max(2.0, std::floor(h / 4)), {0x22, 0x22, 0x22});
        t.css_class = "tick";
        lanes.rects.push_back(std::move(t));
        a = b;
      }
    }
    // The row's hover target: its name and times in the range.
    std::string hover_title = row.title + ":";
    double all = 0;
    for (double v : total) all += v;
    bool any = false;
    for (int k = 0; k < kClasses; ++k) {
      if (total[k] <= 0) continue;
      hover_title += std::string(any ? "," : "") + " " + class_name(k) + " " +
                     charts::format_ns(total[k]) + " (" + charts::format_pct(total[k], all) + ")";
      any = true;
    }
    if (!any) hover_title += " no scheduler data here";
    if (ticks > 0)
      hover_title += "; " + with_thousands(ticks) + (ticks == 1 ? " sample" : " samples");
    scene::Rect t = rect_at(0, y, kLeft + plot_w, lane_h, {0, 0, 0});
    t.hover_only = true;
    t.title = std::move(hover_title);
    hover.rects.push_back(std::move(t));
  }
  if (slots_shown && m.whole_from_ns > from && m.whole_from_ns < to) {
    lanes.rects.push_back(rect_at(x_of(m.whole_from_ns), merged_y, 1,
                                  lanes_y - merged_y + static_cast<double>(rows.size()) * lane_h,
                                  {0x55, 0x55, 0x55}));
  }
  s.layers.push_back(std::move(kept));
  s.layers.push_back(std::move(merged));
  s.layers.push_back(std::move(lanes));

  // ---- legend and details line ----
  scene::Layer legend;
  legend.id = "legend";
  const double ly = lanes_y + static_cast<double>(rows.size()) * lane_h + 14;
  double lx = kLeft;
  for (int k = 0; k < kClasses; ++k) {
    legend.rects.push_back(rect_at(lx, ly, 12, 12, class_color(k)));
    std::string name = class_name(k);
    s.texts.push_back(text_at(lx + 16, ly + 10, name, fs - 1));
    lx += 16 + static_cast<double>(name.size()) * (fs - 1) * 0.62 + 14;
  }
  scene::Rect tick = rect_at(lx, ly, 12, 3, {0x22, 0x22, 0x22});
  tick.css_class = "tick";
  legend.rects.push_back(std::move(tick));
  s.texts.push_back(text_at(lx + 16, ly + 10, "stack sample", fs - 1));
  lx += 16 + 12 * (fs - 1) * 0.62 + 14;
  s.texts.push_back(
      text_at(lx, ly + 10, "a pixel: its main state, activity counted 4\xc3\x97", fs - 2));
  scene::Text details = text_at(kLeft, ly + 28, " ", fs - 1);
  details.id = "details";
  s.texts.push_back(details);
  s.layers.push_back(std::move(legend));
  s.layers.push_back(std::move(hover));
  return s;
}

}  // namespace hearth::timeline
