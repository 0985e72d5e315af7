// What every scheduler chart shares: state and CPU colours, number and time formatting,
// thread pool names, axis ticks. Colours are fixed (no randomness, no palette file) and chosen
// to read on the light background and on the dark one (templates/chart.css).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/digits.h"
#include "render/scene/scene.h"

namespace hearth::charts {

// Where a thread's time went, in drawing order (left to right).
enum class State : uint8_t { kOnCpu, kRunnable, kSleeping, kBlocked, kStopped, kOther };
inline constexpr int kStateCount = 6;

// Who put threads in the stopped state (a ptrace stop, prev_state "t"): any tracer (gdb,
// strace, a profiler), or, in a `hearth record` report, hearth's own stack sampler: its cost.
enum class StoppedBy : uint8_t { kTracer, kHearth };

// on CPU green, runnable orange-red, sleeping light blue, blocked purple, stopped magenta,
// other grey.
scene::Rgb state_color(State s);
// Lower case, for tooltips: "on CPU", "runnable", "sleeping", "blocked", "stopped (traced)" or
// "stopped by hearth", "other".
std::string_view state_name(State s, StoppedBy by);
// The legend's longer text: "runnable (preempted, R)", "blocked (D)", "stopped by hearth (t)",
// ...
std::string_view state_legend(State s, StoppedBy by);
// The segments' CSS class: "oncpu", "runnable", "sleeping", "blocked", "stopped", "other".
std::string_view state_class(State s);

// CPU n gets the same colour in every chart and every run: 12 hues, then lighter and darker
// variants of them for CPUs 12..35, repeating from CPU 36.
scene::Rgb cpu_color(int cpu);
// The I-th of a list ranked by importance: 12 distinct hues for I < 12, grey after.
scene::Rgb rank_color(size_t i);
inline constexpr size_t kRankColors = 12;
// As rank_color, but the greys alternate with POSITION (the segment's index in its bar), so
// neighbouring "other" segments stay apart.
scene::Rgb rank_color(size_t i, size_t position);

// Time for people: "850 ns", "12.3 µs", "123.4 ms", "12.35 s". NS >= 0.
std::string format_ns(double ns);
// "12.3%" of WHOLE; "0.0%" when WHOLE is 0.
std::string format_pct(double part, double whole);
// 1234567 -> "1,234,567" (common/digits.h).
using hearth::with_thousands;

// The pool a thread belongs to: every run of digits becomes '*' ("worker-12" -> "worker-*"),
// except in a role's entry function ("app:run_shard2" stays): common/pool_name.h.
std::string group_name(std::string_view comm);

// A thread or a pool of them, as bars and tooltips name it. THREADS is how many threads the
// row sums; a pool is named after group_name(COMM).
//   label:   "hog-1 4243"        "worker-* ×8"
//   tooltip: "4243 hog-1"        "worker-* (8 threads)"
std::string thread_label(std::string_view comm, int64_t tid, size_t threads);
std::string thread_who(std::string_view comm, int64_t tid, size_t threads);

// S cut to at most MAX_CHARS characters (UTF-8 code points), ending in "…" when cut.
std::string elide(std::string_view s, size_t max_chars);
// Characters of S, counted as common/utf8.h does.
size_t char_count(std::string_view s);

// What every chart's text shares: margins, the width estimate that fits labels, the grey of
// secondary text, and a text at (X, Y).
inline constexpr double kPad = 10;           // px, left and right margins
inline constexpr double kGlyphWidth = 0.62;  // average DejaVu Sans glyph width / font size
inline constexpr scene::Rgb kSubtle{0x55, 0x55, 0x55};
scene::Text text(double x, double y, std::string s, double size,
                 scene::Anchor anchor = scene::Anchor::kStart);

// The SVG's base style sets every text's font size (CSS beats the font-size attribute), so a
// text of another size needs a class: "f10" for 10 px (templates/chart.css). Adds it to the
// scene's texts from FIRST on.
void add_size_classes(scene::Scene* s, size_t first);

// Axis ticks for a time axis 0..FULL_NS: a round step (1, 2 or 5 × 10^k ns) giving at most
// MAX_TICKS intervals; labels in the unit of the largest tick ("0", "0.5 ms", "1 ms").
struct Tick {
  double ns = 0;
  std::string label;
};
std::vector<Tick> time_ticks(double full_ns, int max_ticks);

}  // namespace hearth::charts
