#include "render/charts/chart_style.h"

#include <cmath>
#include <cstdio>

#include "common/pool_name.h"
#include "common/utf8.h"

namespace hearth::charts {
namespace {

// Medium saturation: distinct from each other, readable with black labels, visible on both
// the light and the dark background.
constexpr scene::Rgb kHues[kRankColors] = {
    {0x3d, 0x85, 0xc6}, {0xf0, 0x9a, 0x36}, {0x5a, 0xb1, 0x5a}, {0xd9, 0x4f, 0x4f},
    {0x9a, 0x74, 0xc9}, {0x9c, 0x6b, 0x4e}, {0xe3, 0x7d, 0xc0}, {0x2f, 0xb8, 0xb0},
    {0xc9, 0xc2, 0x3c}, {0x7f, 0x9f, 0xd9}, {0x8c, 0xd1, 0x7d}, {0xf2, 0xb8, 0x8b}};
constexpr scene::Rgb kGrey{0xb4, 0xb4, 0xb4};

uint8_t mix(uint8_t c, uint8_t toward, double amount) {
  return static_cast<uint8_t>(std::lround(c + (toward - c) * amount));
}

}  // namespace

scene::Rgb state_color(State s) {
  switch (s) {
    case State::kOnCpu:
      return {0x4c, 0xaf, 0x50};
    case State::kRunnable:
      return {0xe8, 0x5d, 0x2f};
    case State::kSleeping:
      return {0x9e, 0xc9, 0xec};
    case State::kBlocked:
      return {0x9b, 0x6b, 0xc8};
    case State::kStopped:  // apart from runnable's red and the highlighted row's yellow
      return {0xe0, 0x6c, 0xb0};
    case State::kOther:
      return {0xa8, 0xa8, 0xa8};
  }
  return kGrey;
}

std::string_view state_name(State s, StoppedBy by) {
  if (s == State::kStopped)
    return by == StoppedBy::kHearth ? "stopped by hearth" : "stopped (traced)";
  constexpr std::string_view kNames[] = {"on CPU", "runnable", "sleeping", "blocked", "", "other"};
  return kNames[static_cast<int>(s)];
}

std::string_view state_legend(State s, StoppedBy by) {
  if (s == State::kStopped) {
    return by == StoppedBy::kHearth ? "stopped by hearth (t)" : "stopped (traced, t)";
  }
  constexpr std::string_view kNames[] = {
      "on CPU", "runnable (preempted, R)", "sleeping (S)", "blocked (D)", "", "other"};
  return kNames[static_cast<int>(s)];
}

std::string_view state_class(State s) {
  constexpr std::string_view kNames[] = {"oncpu",   "runnable", "sleeping",
                                         "blocked", "stopped",  "other"};
  return kNames[static_cast<int>(s)];
}

scene::Rgb cpu_color(int cpu) {
  scene::Rgb c = kHues[static_cast<size_t>(cpu) % kRankColors];
  switch ((cpu / static_cast<int>(kRankColors)) % 3) {
    case 1:  // lighter
      return {mix(c.r, 255, 0.45), mix(c.g, 255, 0.45), mix(c.b, 255, 0.45)};
    case 2:  // darker
      return {mix(c.r, 0, 0.35), mix(c.g, 0, 0.35), mix(c.b, 0, 0.35)};
    default:
      return c;
  }
}

scene::Rgb rank_color(size_t i) {
  return i < kRankColors ? kHues[i] : kGrey;
}

scene::Rgb rank_color(size_t i, size_t position) {
  if (i < kRankColors) return kHues[i];
  return position % 2 == 0 ? kGrey : scene::Rgb{0xcc, 0xcc, 0xcc};
}

std::string format_ns(double ns) {
  char buf[48];
  if (ns < 1e3) {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f \xc2\xb5s", ns / 1e3);
  } else if (ns < 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  }
  return buf;
}

std::string format_pct(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100 * part / whole : 0.0);
  return buf;
}

std::string group_name(std::string_view comm) {
  return pool_name(comm);
}

std::string thread_label(std::string_view comm, int64_t tid, size_t threads) {
  if (threads <= 1) return std::string(comm) + " " + std::to_string(tid);
  return group_name(comm) + " \xc3\x97" + std::to_string(threads);
}

std::string thread_who(std::string_view comm, int64_t tid, size_t threads) {
  if (threads <= 1) return std::to_string(tid) + " " + std::string(comm);
  return group_name(comm) + " (" + std::to_string(threads) + " threads)";
}

scene::Text text(double x, double y, std::string s, double size, scene::Anchor anchor) {
  scene::Text t;
  t.x = x, t.y = y, t.text = std::move(s), t.size = size, t.anchor = anchor;
  return t;
}

void add_size_classes(scene::Scene* s, size_t first) {
  for (size_t i = first; i < s->texts.size(); ++i) {
    scene::Text& t = s->texts[i];
    if (t.size == s->font_size) continue;
    t.css_class += (t.css_class.empty() ? "f" : " f") + std::to_string(std::lround(t.size));
  }
}

size_t char_count(std::string_view s) {
  return utf8::length(s);
}

std::string elide(std::string_view s, size_t max_chars) {
  if (utf8::length(s) <= max_chars) return std::string(s);
  if (max_chars == 0) return {};
  return std::string(utf8::prefix(s, max_chars - 1)) + "\xe2\x80\xa6";
}

std::vector<Tick> time_ticks(double full_ns, int max_ticks) {
  std::vector<Tick> ticks;
  if (!(full_ns > 0) || max_ticks < 1) return {{0, "0"}};
  double step = 0;
  for (double mag = 1; step == 0; mag *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (full_ns / (m * mag) <= max_ticks) {
        step = m * mag;
        break;
      }
    }
  }
  double last = std::floor(full_ns * (1 + 1e-9) / step) * step;
  double unit = last >= 1e9 ? 1e9 : last >= 1e6 ? 1e6 : last >= 1e3 ? 1e3 : 1;
  const char* name = unit == 1e9 ? "s" : unit == 1e6 ? "ms" : unit == 1e3 ? "\xc2\xb5s" : "ns";
  for (int i = 0; i * step <= full_ns * (1 + 1e-9); ++i) {
    char buf[48];
    if (i == 0) {
      std::snprintf(buf, sizeof buf, "0");
    } else {
      std::snprintf(buf, sizeof buf, "%g %s", i * step / unit, name);
    }
    ticks.push_back({i * step, buf});
  }
  return ticks;
}

}  // namespace hearth::charts
