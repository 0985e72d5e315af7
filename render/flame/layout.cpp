#include "render/flame/layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "render/flame/names.h"
#include "render/profile/filters.h"
#include "render/profile/folded_writer.h"
#include "render/scene/format.h"

namespace hearth::flame {
namespace {

using profile::FrameTree;
using profile::kNone;
using profile::kRoot;
using profile::NodeId;

constexpr double kXPad = 10;
constexpr double kFramePad = 1;

// flamegraph.pl sorts whole lines, so siblings compare as NAME followed by ';'.
bool sibling_less(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0;
  if (a.size() == b.size()) return false;
  if (a.size() < b.size())
    return static_cast<unsigned char>(';') < static_cast<unsigned char>(b[n]);
  return static_cast<unsigned char>(a[n]) < static_cast<unsigned char>(';');
}

struct Placed {
  NodeId node;
  double start;  // counts from the left edge
  int depth;
};

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", whole > 0 ? 100 * part / whole : 0.0);
  return buf;
}

// Counts of the frames to keep: wide enough, and within the frame budget.
double keep_threshold(const FrameTree& tree, double min_count, size_t max_frames, size_t* pruned) {
  std::vector<double> widths;
  size_t wide = 0;
  for (size_t i = 0; i < tree.size(); ++i)
    wide += tree.node(static_cast<NodeId>(i)).total >= min_count;
  *pruned = tree.size() - wide;
  if (max_frames == 0 || wide <= max_frames) return min_count;
  widths.reserve(wide);
  for (size_t i = 0; i < tree.size(); ++i) {
    double t = tree.node(static_cast<NodeId>(i)).total;
    if (t >= min_count) widths.push_back(t);
  }
  std::nth_element(widths.begin(), widths.begin() + static_cast<long>(max_frames), widths.end(),
                   std::greater<>());
  // Keep frames strictly wider than the first one over budget (ties go together).
  double cut = std::nextafter(widths[max_frames], INFINITY);
  size_t kept = 0;
  for (double w : widths) kept += w >= cut;
  *pruned = tree.size() - kept;
  return cut;
}

}  // namespace

scene::Scene layout_flame(const FrameTree& tree, const FlameOptions& o, FlameStats* stats) {
  FlameStats local;
  FlameStats& st = stats ? *stats : local;
  st = {};

  double time_max = tree.total();
  if (o.total > time_max) time_max = o.total;
  double width_per_time = (o.width - 2 * kXPad) / time_max;
  double min_count =
      o.min_width_percent ? time_max * o.min_width / 100 : o.min_width / width_per_time;
  double threshold = keep_threshold(tree, min_count, o.max_frames, &st.pruned);
  st.min_width_px = threshold * width_per_time;

  // Place the kept frames, depth-first, siblings left to right.
  std::vector<Placed> placed;
  std::vector<Placed> todo{{kRoot, 0, 0}};
  std::vector<NodeId> kids;
  while (!todo.empty()) {
    Placed p = todo.back();
    todo.pop_back();
    placed.push_back(p);
    st.max_depth = std::max(st.max_depth, p.depth);
    kids.clear();
    for (NodeId c = tree.node(p.node).first_child; c != kNone; c = tree.node(c).next_sibling) {
      kids.push_back(c);
    }
    if (tree.merge() == profile::Merge::kAll) {
      std::sort(kids.begin(), kids.end(), [&](NodeId a, NodeId b) {
        return sibling_less(tree.name(tree.node(a).name), tree.name(tree.node(b).name));
      });
    }
    double offset = p.start + tree.node(p.node).self;  // self time sits left of the children
    size_t mark = todo.size();
    for (NodeId c : kids) {
      double t = tree.node(c).total;
      if (t >= threshold && t > 0) todo.push_back({c, offset, p.depth + 1});
      offset += t;
    }
    std::reverse(todo.begin() + static_cast<long>(mark), todo.end());
  }
  st.frames = placed.size();

  double max_abs_delta = 1;
  if (tree.differential()) {
    for (const Placed& p : placed) {
      max_abs_delta =
          std::max(max_abs_delta, std::fabs(tree.node(p.node).self - tree.base_self(p.node)));
    }
  }

  const double fs = o.font_size;
  const double ypad1 = fs * 3, ypad2 = fs * 2 + 10, ypad3 = fs * 2;
  double graph_height = (st.max_depth + 1) * o.frame_height + ypad1 + ypad2;
  if (!o.subtitle.empty()) graph_height += ypad3;

  scene::Scene s;
  s.kind = "flame";
  s.width = o.width;
  // Verdana (flamegraph.pl's default) is missing on most Linux hosts: fall back to a font of
  // similar width, so labels cut for 0.59 em per character still fit.
  s.font_family = o.font_type;
  if (s.font_family.find(',') == std::string::npos) s.font_family += ", DejaVu Sans, sans-serif";
  s.font_size = fs;
  s.notes = o.notes;
  scene::background_colors(o.bg_colors, o.palette, &s.background_top, &s.background_bottom);
  char num[64];
  auto fmt = [&](double v) {
    std::snprintf(num, sizeof num, "%g", v);
    return std::string(num);
  };
  s.data = {{"xpad", fmt(kXPad)},
            {"fontsize", fmt(fs)},
            {"fontwidth", fmt(o.font_width)},
            {"frameheight", fmt(o.frame_height)},
            {"inverted", o.inverted ? "1" : "0"},
            {"countname", o.count_name},
            {"nametype", o.name_type},
            {"total", profile::format_count(time_max * o.factor)}};

  std::string title = o.title;
  if (title.empty())
    title = o.inverted ? "Icicle Graph" : o.flamechart ? "Flame Chart" : "Flame Graph";
  auto text = [&](double x, double y, std::string t, std::string id, scene::Anchor a) {
    scene::Text tx;
    tx.x = x, tx.y = y, tx.text = std::move(t), tx.id = std::move(id), tx.anchor = a, tx.size = fs;
    return tx;
  };
  scene::Text title_text =
      text(std::floor(o.width / 2), fs * 2, title, "title", scene::Anchor::kMiddle);
  title_text.size = fs + 5;
  s.texts.push_back(title_text);
  if (!o.subtitle.empty()) {
    s.texts.push_back(
        text(std::floor(o.width / 2), fs * 4, o.subtitle, "subtitle", scene::Anchor::kMiddle));
  }
  s.texts.push_back(text(kXPad, graph_height - ypad2 / 2, " ", "details", scene::Anchor::kStart));
  scene::Text unzoom = text(kXPad, fs * 2, "Reset Zoom", "unzoom", scene::Anchor::kStart);
  unzoom.css_class = "hide";
  unzoom.hidden = true;
  s.texts.push_back(unzoom);
  // Search and its case toggle are controls for the script: not part of a static picture.
  scene::Text search =
      text(o.width - kXPad - 100, fs * 2, "Search", "search", scene::Anchor::kStart);
  search.hidden = true;
  s.texts.push_back(search);
  scene::Text ignorecase =
      text(o.width - kXPad - 16, fs * 2, "ic", "ignorecase", scene::Anchor::kStart);
  ignorecase.hidden = true;
  s.texts.push_back(ignorecase);
  s.texts.push_back(
      text(o.width - kXPad - 100, graph_height - ypad2 / 2, " ", "matched", scene::Anchor::kStart));

  scene::Layer frames;
  frames.id = "frames";
  frames.rects.reserve(placed.size());
  std::vector<size_t> thread_frames;  // indexes into frames.rects
  for (const Placed& p : placed) {
    const profile::Node& n = tree.node(p.node);
    double count = p.node == kRoot ? time_max : n.total;
    double x1 = kXPad + p.start * width_per_time;
    double x2 = kXPad + (p.start + count) * width_per_time;
    double y1, y2;
    if (!o.inverted) {
      y1 = graph_height - ypad2 - (p.depth + 1) * o.frame_height + kFramePad;
      y2 = graph_height - ypad2 - p.depth * o.frame_height;
    } else {
      y1 = ypad1 + p.depth * o.frame_height;
      y2 = ypad1 + (p.depth + 1) * o.frame_height - kFramePad;
    }
    std::string_view raw = tree.name(n.name);
    std::string_view name = strip_annotation(raw);
    std::string samples = with_thousands(count * o.factor);
    scene::Rect r;
    r.x = x1, r.y = y1, r.w = x2 - x1, r.h = y2 - y1;
    if (p.node == kRoot) {
      r.title = "all (" + samples + " " + o.count_name + ", 100%)";
    } else {
      // Percentages use the rounded count, as flamegraph.pl does.
      std::string pct = percent(std::nearbyint(count * o.factor), time_max * o.factor);
      r.title = std::string(name) + " (" + samples + " " + o.count_name + ", " + pct + "%";
      if (tree.differential()) {
        double d = n.self - tree.base_self(p.node);
        if (o.negate) d = -d;
        if (d == 0) d = 0;  // no "-0.00%"
        std::string dp = percent(d * o.factor, time_max * o.factor);
        r.title += "; " + std::string(d > 0 ? "+" : "") + dp + "%";
      }
      r.title += ")";
    }
    bool thread = p.depth == 1 && profile::is_thread_root(raw);
    if (thread) {
      r.css_class = "t";
      r.fill = scene::thread_color(profile::thread_name(raw));
      thread_frames.push_back(frames.rects.size());
    } else if (tree.differential()) {
      double d = n.self - tree.base_self(p.node);
      r.fill = scene::delta_color(o.negate ? -d : d, max_abs_delta);
    } else {
      r.fill = scene::frame_color(o.palette, raw, o.hash);
    }
    r.label = fit_label(name, scene::round_px(x2) - scene::round_px(x1), fs, o.font_width);
    r.label_x = x1 + 3;
    r.label_y = 3 + (y1 + y2) / 2;
    if (o.decorate) o.decorate(p.node, &r);
    frames.rects.push_back(std::move(r));
  }
  s.layers.push_back(std::move(frames));
  st.threads = thread_frames.size();

  // Thread legend below the graph: widest threads first; a click zooms to the thread.
  double height = graph_height;
  if (!thread_frames.empty()) {
    const auto& fr = s.layers[0].rects;
    std::stable_sort(thread_frames.begin(), thread_frames.end(),
                     [&](size_t a, size_t b) { return fr[a].w > fr[b].w; });
    constexpr size_t kMaxEntries = 100;
    scene::Layer legend;
    legend.id = "threads";
    double x = kXPad, y = graph_height;
    double row = o.frame_height + 4;
    for (size_t i = 0; i < thread_frames.size() && i < kMaxEntries; ++i) {
      const scene::Rect& f = fr[thread_frames[i]];
      const std::string& t = f.title;
      std::string label = std::string(profile::thread_name(t.substr(0, t.rfind(" ("))));
      double pct_count = f.w / (o.width - 2 * kXPad) * 100;
      std::snprintf(num, sizeof num, " %.1f%%", pct_count);
      label += num;
      double w = (code_points(label) + 1) * fs * o.font_width + 6;
      if (x + w > o.width - kXPad && x > kXPad) {
        x = kXPad;
        y += row;
      }
      scene::Rect e;
      e.x = x, e.y = y, e.w = w, e.h = o.frame_height - kFramePad;
      e.fill = f.fill;
      e.label = label;
      e.label_x = x + 3;
      e.label_y = y + e.h / 2 + 3;
      e.title = t;
      e.attrs.push_back({"data-x", scene::format_px(f.x)});
      legend.rects.push_back(std::move(e));
      x += w + 6;
    }
    height = y + row + 4;
    s.layers.push_back(std::move(legend));
  }
  s.height = height;
  return s;
}

}  // namespace hearth::flame
