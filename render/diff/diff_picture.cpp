#include "render/diff/diff_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/check.h"
#include "common/utf8.h"
#include "render/flame/names.h"

namespace hearth::diff {
namespace {

using profile::FrameTree;
using profile::kRoot;
using profile::NodeId;

constexpr double kXPad = 10;  // as render/flame
constexpr scene::Rgb kNeutral{0xd2, 0xd2, 0xd2};
constexpr scene::Rgb kHot{0xd7, 0x26, 0x1e};
constexpr scene::Rgb kCold{0x1f, 0x5f, 0xc8};
constexpr scene::Rgb kAddedOutline{0x6a, 0x00, 0x9a};    // purple: only in NEW
constexpr scene::Rgb kRemovedOutline{0x00, 0x6d, 0x5b};  // teal: only in BASE
constexpr double kOutline = 1.5;                         // px

std::string pp_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", v);
  std::string s = buf;
  if (s == "-0.00" || s == "+0.00") s = "0.00";
  return s;
}

std::string pct_text(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", whole > 0 ? 100 * part / whole : 0.0);
  return buf;
}

// The tree with BASE's counts as the drawn ones (and NEW's as base): the same node and name ids.
FrameTree swapped(const FrameTree& t) {
  FrameTree s(profile::Merge::kAll);
  s.add_self(kRoot, {}, {});
  for (size_t k = 0; k < t.name_count(); ++k) {
    HEARTH_CHECK(s.intern(t.name(static_cast<profile::NameId>(k))) == k);
  }
  for (size_t i = 1; i < t.size(); ++i) {
    const profile::Node& n = t.node(static_cast<NodeId>(i));
    NodeId id = s.child(n.parent, n.name);
    HEARTH_CHECK(id == i);
    s.add_self(id, t.base_self(id), t.self(id));
  }
  s.finalize();
  return s;
}

// The tail of TEXT that fits in CHARS characters, with "…" in front when cut.
std::string fit_tail(std::string_view text, size_t chars) {
  size_t n = utf8::length(text);
  if (n <= chars) return std::string(text);
  if (chars < 2) return "";
  size_t skip = n - (chars - 1);
  size_t i = 0;
  for (size_t k = 0; k < skip; ++k) i += utf8::char_bytes(text, i);
  return "\u2026" + std::string(text.substr(i));
}

scene::Text label(double x, double y, std::string text, double size) {
  scene::Text t;
  t.x = x, t.y = y, t.text = std::move(text), t.size = size;
  return t;
}

}  // namespace

scene::Rgb diff_color(double pp, bool significant) {
  double a = std::fabs(pp);
  double t = std::min(1.0, std::log1p(a / 0.01) / std::log1p(10 / 0.01));
  if (!significant) t *= 0.35;
  const scene::Rgb& end = pp > 0 ? kHot : kCold;
  auto mix = [&](uint8_t from, uint8_t to) {
    return static_cast<uint8_t>(std::lround(from + (to - from) * t));
  };
  if (pp == 0 || t <= 0) return kNeutral;
  return {mix(kNeutral.r, end.r), mix(kNeutral.g, end.g), mix(kNeutral.b, end.b)};
}

scene::Scene layout_diff(const DiffModel& m, const PictureOptions& o, PictureStats* stats) {
  PictureStats local;
  PictureStats& st = stats ? *stats : local;
  st = {};
  FrameTree base_tree(profile::Merge::kAll);
  if (o.base_widths) base_tree = swapped(m.tree);
  const FrameTree& drawn = o.base_widths ? base_tree : m.tree;
  double drawn_total = drawn.total().value;

  flame::FlameOptions fo;
  fo.title = o.title.empty() ? "Differential Flame Graph" : o.title;
  fo.subtitle = "BASE " + o.base_name + " (" + flame::with_thousands(m.base_total) + " " +
                m.options.count_name + ") \u2192 NEW " + o.new_name + " (" +
                flame::with_thousands(m.new_total) + " " + m.options.count_name +
                "); widths: " + (o.base_widths ? "BASE" : "NEW") +
                "; colour: change of inclusive share, pp";
  fo.width = o.width;
  fo.bg_colors = "grey";
  fo.count_name = m.options.count_name;
  fo.max_frames = o.max_frames;
  fo.decorate = [&](NodeId id, scene::Rect* r) {
    const Item it = path_item(m, id);
    const Measure& in = it.inclusive;
    profile::Count n = drawn.total(id);
    std::string name =
        id == kRoot ? "all"
                    : std::string(flame::strip_annotation(m.tree.name(m.tree.node(id).name)));
    bool only_here = (o.base_widths ? in.next : in.base).value == 0;
    r->title = name + " (" + flame::with_thousands(n) + " " + m.options.count_name + ", " +
               pct_text(n.value, drawn_total) + "%; " + pp_text(in.pp) + " pp";
    if (only_here && id != kRoot) r->title += o.base_widths ? "; only in BASE" : "; only in NEW";
    r->title += ")";
    // Thread roots too: their slate blue would read as "shrank" here.
    r->fill = id == kRoot ? kNeutral : diff_color(in.pp, in.significant);
    if (only_here && id != kRoot) {
      r->stroke = o.base_widths ? kRemovedOutline : kAddedOutline;
      r->stroke_width = kOutline;
      r->css_class += r->css_class.empty() ? "only" : " only";
    }
  };
  scene::Scene s = flame::layout_flame(drawn, fo, &st.flame);
  s.data.push_back({"diff", o.base_widths ? "base" : "new"});

  const double fs = fo.font_size;
  const double char_w = fs * fo.font_width;
  double y = s.height + 2;

  // Colour key: a row of swatches with their values below.
  scene::Layer key;
  key.id = "diffkey";
  s.texts.push_back(label(kXPad, y + 11, "Inclusive share, NEW \u2212 BASE:", fs));
  double x = kXPad + 30 * char_w;
  const double steps[] = {-10, -1, -0.1, 0, 0.1, 1, 10};
  constexpr double kSwatch = 44;
  for (double v : steps) {
    scene::Rect r;
    r.x = x, r.y = y, r.w = kSwatch - 2, r.h = 14;
    r.fill = diff_color(v, true);
    r.title = (v == 0 ? std::string("0.00") : pp_text(v)) + " pp";
    key.rects.push_back(r);
    scene::Text t = label(x + (kSwatch - 2) / 2, y + 26,
                          v == 0 ? "0" : pp_text(v).substr(0, pp_text(v).find(".00")), fs - 2);
    t.anchor = scene::Anchor::kMiddle;
    s.texts.push_back(t);
    x += kSwatch;
  }
  x += 10;
  {
    scene::Rect muted;
    muted.x = x, muted.y = y, muted.w = kSwatch - 2, muted.h = 14;
    muted.fill = diff_color(1, false);
    muted.title = "+1.00 pp, not significant";
    key.rects.push_back(muted);
    s.texts.push_back(label(x + kSwatch + 2, y + 11, "not significant", fs - 2));
    x += kSwatch + 16 * char_w;
    scene::Rect only;
    only.x = x, only.y = y, only.w = kSwatch - 2, only.h = 14;
    only.fill = kNeutral;
    only.stroke = o.base_widths ? kRemovedOutline : kAddedOutline;
    only.stroke_width = kOutline;
    only.title = o.base_widths ? "only in BASE" : "only in NEW";
    key.rects.push_back(only);
    s.texts.push_back(label(x + kSwatch + 2, y + 11, only.title, fs - 2));
  }
  s.layers.push_back(std::move(key));
  y += 34;

  // The paths only on the side not drawn: no width in the graph, so listed here.
  std::vector<NodeId> missing = only_in_one(m, o.base_widths);
  st.missing = missing.size();
  double other_total = (o.base_widths ? m.new_total : m.base_total).value;
  std::string heading = o.base_widths ? "Added paths (only in NEW, not drawn above): "
                                      : "Removed paths (only in BASE, not drawn above): ";
  heading += missing.empty() ? "none" : std::to_string(missing.size());
  s.texts.push_back(label(kXPad, y + 12, heading, fs));
  y += 18;
  if (!missing.empty()) {
    scene::Layer strip;
    strip.id = "missing";
    const double bar_max = 200;  // px for 100% of the other profile
    const double row = 16;
    for (size_t k = 0; k < missing.size() && k < o.missing_rows; ++k) {
      NodeId id = missing[k];
      const Measure in = path_item(m, id).inclusive;
      profile::Count n = o.base_widths ? in.next : in.base;
      std::string path = path_name(m, id);
      scene::Rect r;
      r.x = kXPad;
      r.y = y;
      r.w = std::max(2.0, bar_max * n.value / other_total);
      r.h = row - 2;
      r.fill = diff_color(in.pp, in.significant);
      r.title = path + " (" + flame::with_thousands(n) + " " + m.options.count_name + ", " +
                pct_text(n.value, other_total) + "%; " + pp_text(in.pp) + " pp)";
      strip.rects.push_back(std::move(r));
      std::string line = pp_text(in.pp) + " pp  " + pct_text(n.value, other_total) + "%  ";
      double text_x = kXPad + bar_max + 8;
      size_t room = static_cast<size_t>(std::max(0.0, (o.width - kXPad - text_x) / char_w));
      size_t used = line.size();
      line += fit_tail(path, room > used ? room - used : 0);
      s.texts.push_back(label(text_x, y + 11, line, fs - 1));
      y += row;
    }
    if (missing.size() > o.missing_rows) {
      s.texts.push_back(label(
          kXPad, y + 11,
          "\u2026 and " + std::to_string(missing.size() - o.missing_rows) + " more (see --summary)",
          fs - 1));
      y += row;
    }
    s.layers.push_back(std::move(strip));
  }
  s.height = std::ceil(y + 6);
  return s;
}

}  // namespace hearth::diff
