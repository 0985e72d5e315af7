// A report directory: what `hearth record` collected (stacks.folded, sched.*.tsv, mmv.tsv,
// report.json) rendered into pictures and an index.html (templates/report.html) that works
// offline, from file:// and over HTTP, in light and dark mode. `hearth report DIR` calls the
// same code again: after an upgrade, or on files copied off a host.
//
// Every file is written atomically. Inputs that are missing are left out of the page (a
// collector that did not run says why in report.json); inputs that are damaged are reported in
// the page and in RenderResult::problems, and the rest is still rendered.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/result.h"

namespace hearth::report {

// File names inside a report directory (the README's "Report directory" section).
inline constexpr const char* kStacksFolded = "stacks.folded";
inline constexpr const char* kStacksRaw = "stacks.raw.txt";  // written by earlier versions
inline constexpr const char* kStacksSamples = "stacks.samples.txt";
inline constexpr const char* kMmvSeries = "mmv.tsv";
inline constexpr const char* kReportJson = "report.json";
inline constexpr const char* kIndexHtml = "index.html";
inline constexpr const char* kFlameSvg = "flame.svg";
inline constexpr const char* kSchedSvg = "sched.svg";
inline constexpr const char* kMetricsSvg = "metrics.svg";
inline constexpr const char* kDiffSvg = "diff.svg";
inline constexpr const char* kDiffMarkdown = "diff.md";
// `hearth record --alloc`: the allocation profile's views (folded stacks weighted by bytes, or by
// calls) and their flamegraphs (the "mem" palette).
inline constexpr const char* kAllocFolded = "alloc.folded";
inline constexpr const char* kAllocCountFolded = "alloc.count.folded";
inline constexpr const char* kAllocLiveFolded = "alloc.live.folded";
inline constexpr const char* kAllocSvg = "alloc.svg";
inline constexpr const char* kAllocCountSvg = "alloc.count.svg";
inline constexpr const char* kAllocLiveSvg = "alloc.live.svg";
// The allocator's calls and bytes every 100 ms of the window (recording/alloc_rate.h), a series
// TSV on CLOCK_REALTIME, and its chart (on the time view's axis).
inline constexpr const char* kAllocRateSeries = "alloc.rate.tsv";
inline constexpr const char* kAllocRateSvg = "alloc.rate.svg";

struct RenderOptions {
  std::string dir;           // the report directory (read and written)
  std::string baseline_dir;  // empty: no diff view
  double width = 1200;       // px, every picture
};

struct RenderResult {
  std::vector<std::string> pictures;  // file names written, in page order
  std::vector<std::string> problems;  // one line each: "sched.states.tsv:3: ..." (not fatal)
  size_t threads = 0;                 // rows of the threads table
};

// The files of report directory DIR, existing or not, for the output guard
// (common/output_guard.h): those `hearth record` writes and render_report reads (the raw
// samples are only linked), and those render_report writes. A baseline directory's input is
// its kStacksFolded.
std::vector<std::string> recorded_files(const std::string& dir);
std::vector<std::string> rendered_files(const std::string& dir);

// DIR/index.html as people write paths: "rec/" and "rec//" give "rec/index.html".
std::string index_path(const std::string& dir);

// The names the stack sampler gave the threads it sampled (an unnamed thread's role, see the
// README), by tid, from DIR/stacks.folded: what the report's scheduler charts and
// `hearth chart DIR` call the threads. Empty when DIR has no readable stacks.folded.
std::map<int64_t, std::string> sampled_thread_names(const std::string& dir);

// Renders every picture the directory's inputs allow and writes index.html. Fails only when
// nothing can be written (not a directory, no permission); damaged inputs are problems.
Result<RenderResult> render_report(const RenderOptions& options);

// The stack sampler's cost as the scheduler saw it: report.json's "sampling_cost", which
// `hearth record` writes when both ran (README, "Report directory").
struct SamplingCost {
  double window_pct = 0;      // the target's threads' time stopped, % of their time in the window
  double stop_median_us = 0;  // median over stopped threads of their mean stop, µs
  uint64_t threads = 0;
  uint64_t stopped_threads = 0;
  uint64_t stops = 0;
};

// "0.031% of the window, median 45 µs per thread per sample (scheduler's view: 3 of 15 threads
// stopped, 120 stops)"; "0% of the window: no thread was stopped (scheduler's view, 15 threads)".
std::string sampling_cost_text(const SamplingCost& cost);

// Escapes a string so it matches itself literally in an ECMAScript regular expression (the
// flamegraph's search box and its ?s= URL parameter).
std::string regex_literal(std::string_view s);

}  // namespace hearth::report
