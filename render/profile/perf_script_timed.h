// `perf script`'s samples in time: the text of a `perf record -g` read as hearth's timed samples
// (formats/timed_samples.h), so `hearth heatmap perf.txt` draws FlameScope's subsecond-offset
// view from perf data, as it draws hearth's own samples.
//
// Each sample of the event drawn (the first the text names, as perf_script.h folds it) is one
// sample of one thread: a Round at its time holding that thread alone, in state R (perf samples
// a thread while it is on a CPU), its stack the frames perf_script.h folds (root "[COMM tid=TID]").
// Time 0 is the first sample's time (perf's clock, which is not said to be CLOCK_MONOTONIC:
// mono_ns and real_ns stay 0, unknown). A sample's process is the header's PID when perf prints
// it (`perf script -F +pid`), else its thread stands for a process of its own. Samples are put in
// time order (perf script prints them so already). Counts are samples, not periods: a heatmap
// cell counts thread-samples (`hearth flame` of the same text weights each stack by its period).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "formats/timed_samples.h"
#include "render/profile/perf_script.h"

namespace hearth::profile {

struct PerfTimed {
  timed_samples::Samples samples;
  PerfScriptStats stats;            // the event drawn; other events' samples skipped
  uint64_t ignored_lines = 0;       // lines that are no part of perf script's text
  uint64_t first_ignored_line = 0;  // its number (1-based), 0 when none
  uint64_t untimed_samples = 0;     // samples whose header has no time, skipped
  uint64_t first_untimed_line = 0;  // the first one's header line, 0 when none
};

// TEXT, perf script's whole text, as timed samples; PATH names it in messages. Errors: no sample
// of the event ("PATH: no perf script samples in it"), or none with a time ("PATH: line N: a
// perf script sample without its time …"). Samples without a time among timed ones are skipped
// and counted (untimed_samples).
Result<PerfTimed> perf_script_timed(std::string_view text, const std::string& path);

// Whether the file at PATH starts as perf script's text does (a sample header with perf's time
// field and an event, or `perf script --header`'s first line, in its first 64 KiB).
bool file_looks_like_perf_script(const std::string& path);

}  // namespace hearth::profile
