#include "render/flame/layout.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>
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
// From this many frames on, two threads make their rects.
constexpr size_t kFramesForTwoThreads = 8192;

// The CPUs this process may run on.
unsigned layout_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<unsigned>(CPU_COUNT(&set));
}
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

// printf's "%.2f" (to_chars is exact as printf is, and rounds the same way).
std::string percent(double part, double whole) {
  char buf[512];  // DBL_MAX written out in full fits
  auto r = std::to_chars(buf, buf + sizeof buf, whole > 0 ? 100 * part / whole : 0.0,
                         std::chars_format::fixed, 2);
  return std::string(buf, r.ptr);
}

// The frames to draw: those at least MIN_COUNT wide, and, when there are more than
// MAX_FRAMES of them ("all" included), the MAX_FRAMES widest. Frames as wide as the narrowest
// one that fits the budget are kept by depth, shallowest first, so what is drawn stays one
// tree: a frame is never wider than its parent, nor shallower (a long recursion is a chain of
// frames of one width).
struct Keep {
  double min_count = 0;           // narrower frames are left out
  double tie = -1;                // frames exactly this wide are drawn only when tie_kept says
  std::vector<NodeId> tie_kept;   // the frames of width `tie` that are drawn, sorted
  bool max_frames_cut = false;    // the budget, not MIN_COUNT, set the cut
  size_t deep = 0;                // frames of width `tie` left out
  int deep_below = 0;             // ... all of them deeper than this
};

Keep frames_to_keep(const FrameTree& tree, double min_count, size_t max_frames) {
  Keep k;
  k.min_count = min_count;
  if (max_frames == 0) return k;
  auto width = [&](NodeId i) { return tree.total(i).value; };
  auto eligible = [&](double w) { return w > 0 && w >= min_count; };
  // One pass over the tree finds the frames wide enough to be drawn, in id order, with their
  // widths; past a few times the budget only their widths are kept (8 bytes a frame, not 16),
  // and a second pass finds the frames of the widest.
  struct Wide {
    double w;
    NodeId id;
  };
  std::vector<Wide> wide;
  std::vector<double> widths;
  const size_t id_cap = std::max<size_t>(size_t{4} * max_frames, size_t{1} << 16);
  for (size_t i = 1; i < tree.size(); ++i) {
    const double w = width(static_cast<NodeId>(i));
    if (!eligible(w)) continue;
    if (widths.empty() && wide.size() < id_cap) {
      wide.push_back({w, static_cast<NodeId>(i)});
      continue;
    }
    if (widths.empty()) {
      // Address space for all that may come: only the pages written are memory.
      widths.reserve(wide.size() + (tree.size() - i));
      for (const Wide& f : wide) widths.push_back(f.w);
      wide = {};
    }
    widths.push_back(w);
  }
  const size_t eligible_count = widths.empty() ? wide.size() : widths.size();
  if (eligible_count + 1 <= max_frames) return k;  // "all" is always drawn
  k.max_frames_cut = true;
  size_t budget = max_frames - 1;  // besides "all"
  if (budget == 0) {
    k.min_count = INFINITY;
    return k;
  }
  // The frames at least w_cut wide (the BUDGET widest and those as wide as the last of them),
  // in id order.
  double w_cut;
  if (widths.empty()) {
    auto cut = wide.begin() + static_cast<long>(budget - 1);
    std::nth_element(wide.begin(), cut, wide.end(),
                     [](const Wide& a, const Wide& b) { return a.w > b.w; });
    w_cut = cut->w;
    wide.erase(std::partition(cut + 1, wide.end(), [&](const Wide& f) { return f.w >= w_cut; }),
               wide.end());
    std::sort(wide.begin(), wide.end(), [](const Wide& a, const Wide& b) { return a.id < b.id; });
  } else {
    auto cut = widths.begin() + static_cast<long>(budget - 1);
    std::nth_element(widths.begin(), cut, widths.end(), std::greater<>());
    w_cut = *cut;
    widths = {};
    for (size_t i = 1; i < tree.size(); ++i) {
      const double w = width(static_cast<NodeId>(i));
      if (eligible(w) && w >= w_cut) wide.push_back({w, static_cast<NodeId>(i)});
    }
  }
  // Their depths: a parent comes before its children and is at least as wide as each (counts
  // being positive), so a parent's depth is found among the frames before it. A frame whose
  // parent is not among them (only where some count is negative) is not reached from the root,
  // and is drawn nowhere: depth 0.
  const size_t n = wide.size();
  size_t room = budget;
  std::vector<uint32_t> depth(n);
  // The frames of width w_cut, shallowest first (then in input order): the first ROOM stay.
  std::vector<std::pair<uint32_t, NodeId>> tied;
  for (size_t j = 0; j < n; ++j) {
    const NodeId parent = tree.node(wide[j].id).parent;
    uint32_t d = 1;
    if (parent != kRoot) {
      auto it = std::lower_bound(wide.begin(), wide.begin() + static_cast<long>(j), parent,
                                 [](const Wide& f, NodeId id) { return f.id < id; });
      const size_t at = static_cast<size_t>(it - wide.begin());
      d = at < j && it->id == parent && depth[at] != 0 ? depth[at] + 1 : 0;
    }
    depth[j] = d;
    if (wide[j].w != w_cut) {
      --room;
    } else if (d != 0) {
      tied.push_back({d, wide[j].id});
    }
  }
  std::sort(tied.begin(), tied.end());
  room = std::min(room, tied.size());  // fewer only where frames were not reached (above)
  k.min_count = w_cut;
  k.tie = w_cut;
  for (size_t j = 0; j < room; ++j) k.tie_kept.push_back(tied[j].second);
  std::sort(k.tie_kept.begin(), k.tie_kept.end());
  k.deep = tied.size() - room;
  if (k.deep > 0) k.deep_below = static_cast<int>(tied[room].first) - 1;
  return k;
}

}  // namespace

scene::Scene layout_flame(const FrameTree& tree, const FlameOptions& o, FlameStats* stats) {
  FlameStats local;
  FlameStats& st = stats ? *stats : local;
  st = {};

  const profile::Count tree_total = tree.total();
  double time_max = tree_total.value;
  if (o.total > time_max) time_max = o.total;
  double width_per_time = (o.width - 2 * kXPad) / time_max;
  double min_count =
      o.min_width_percent ? time_max * o.min_width / 100 : o.min_width / width_per_time;
  const Keep keep = frames_to_keep(tree, min_count, o.max_frames);
  st.min_width_px = keep.min_count * width_per_time;
  st.max_frames_cut = keep.max_frames_cut;
  st.deep = keep.deep;
  st.deep_below = keep.deep_below;

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
    double offset = p.start + tree.self(p.node).value;  // self time sits left of the children
    size_t mark = todo.size();
    for (NodeId c : kids) {
      double t = tree.total(c).value;
      if (t > 0 && t >= keep.min_count && (t != keep.tie ||
                                           std::binary_search(keep.tie_kept.begin(),
                                                              keep.tie_kept.end(), c))) {
        todo.push_back({c, offset, p.depth + 1});
      }
      offset += t;
    }
    std::reverse(todo.begin() + static_cast<long>(mark), todo.end());
  }
  st.frames = placed.size();
  st.pruned = tree.size() - placed.size();
  st.narrow = st.pruned - st.deep;

  double max_abs_delta = 1;
  if (tree.differential()) {
    for (const Placed& p : placed) {
      max_abs_delta = std::max(max_abs_delta,
                               std::fabs(tree.self(p.node).value - tree.base_self(p.node).value));
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
            {"total", !tree_total.fractional && time_max == tree_total.value && o.factor == 1
                          ? profile::format_count(tree_total)
                          : profile::format_count(time_max * o.factor)}};

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
  frames.as_data = true;
  frames.lazy_px = o.lazy_px;
  frames.lazy_after = o.lazy_after;
  // Each frame's rect is made from its own figures alone: with many frames, a second thread
  // makes the second half (as the reader does: when the process may run on two CPUs), unless
  // a caller's decorate() must see them in order.
  frames.rects.resize(placed.size());
  std::vector<uint8_t> is_thread(placed.size());
  auto make_rect = [&](size_t i) {
    const Placed& p = placed[i];
    const profile::Node& n = tree.node(p.node);
    const profile::Count total = tree.total(p.node);
    double count = p.node == kRoot ? time_max : total.value;
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
    std::string samples = p.node == kRoot && time_max != tree_total.value
                              ? with_thousands(time_max * o.factor)
                              : with_thousands(total, o.factor);
    scene::Rect& r = frames.rects[i];
    r.x = x1, r.y = y1, r.w = x2 - x1, r.h = y2 - y1;
    if (p.node == kRoot) {
      r.title = "all (" + samples + " " + o.count_name + ", 100%)";
    } else {
      // Percentages use the rounded count, as flamegraph.pl does.
      std::string pct = percent(std::nearbyint(count * o.factor), time_max * o.factor);
      r.title = std::string(name) + " (" + samples + " " + o.count_name + ", " + pct + "%";
      if (tree.differential()) {
        double d = tree.self(p.node).value - tree.base_self(p.node).value;
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
      is_thread[i] = 1;
    } else if (tree.differential()) {
      double d = tree.self(p.node).value - tree.base_self(p.node).value;
      r.fill = scene::delta_color(o.negate ? -d : d, max_abs_delta);
    } else {
      r.fill = scene::frame_color(o.palette, raw, o.hash);
    }
    r.label = fit_label(name, scene::round_px(x2) - scene::round_px(x1), fs, o.font_width);
    r.label_x = x1 + 3;
    r.label_y = 3 + (y1 + y2) / 2;
    if (o.decorate) o.decorate(p.node, &r);
  };
  const size_t n_frames = placed.size();
  size_t first_end = n_frames;
  std::thread worker;
  std::exception_ptr worker_failed;
  if (n_frames >= kFramesForTwoThreads && !o.decorate && layout_cpus() >= 2) {
    try {
      worker = std::thread([&, from = n_frames / 2] {
        try {
          for (size_t i = from; i < n_frames; ++i) make_rect(i);
        } catch (...) {
          worker_failed = std::current_exception();
        }
      });
      first_end = n_frames / 2;
    } catch (const std::system_error&) {
      // No thread to be had: this one makes them all.
    }
  }
  std::exception_ptr first_failed;
  try {
    for (size_t i = 0; i < first_end; ++i) make_rect(i);
  } catch (...) {
    first_failed = std::current_exception();
  }
  if (worker.joinable()) worker.join();
  if (first_failed) std::rethrow_exception(first_failed);
  if (worker_failed) std::rethrow_exception(worker_failed);
  std::vector<size_t> thread_frames;  // indexes into frames.rects
  for (size_t i = 0; i < n_frames; ++i) {
    if (is_thread[i]) thread_frames.push_back(i);
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
