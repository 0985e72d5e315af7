// The timeline's model (lanes.h) written as a Chrome Trace Event Format JSON trace, the JSON the
// Perfetto UI and chrome://tracing open: `hearth convert DIR OUT.trace.json`.
//
//   {"traceEvents": [...], "stackFrames": {...}, "otherData": {...}}
//
// Per known process, a "process_name" metadata event ("ph":"M"; a thread of no known process is
// a process of its own, pid = its tid); per thread (lane), "thread_name" and
// "thread_sort_index" (the timeline's lane order), then its events in time order:
// - each scheduler interval, a complete event ("ph":"X", "cat":"sched"), named by its state's
//   class ("on CPU", "runnable", "sleeping", "blocked", "stopped", "other (T)" with the kernel's
//   letter), args {state, cpu (when known), preemptor/waker and preemptor_tid/waker_tid (when
//   known: README's `by`)}, and a "cname" chrome://tracing colours it by (Perfetto ignores it);
// - each slot before the intervals kept whole, a complete event named "slot"
//   ("cat":"sched.slot", args: its six state times in ns and its switches, and "source" for a
//   slot not of the tracer's: "proc", hearth watch's reads from before its trigger);
// - each stack sample, a thread-scoped instant event ("ph":"i", "s":"t", "cat":"stack") named by
//   its leaf frame, args {state: /proc's letter, stack: [frames, leaf first, the thread's root
//   left out]}, and "sf", the id of its leaf in "stackFrames" (each frame once per path from the
//   root: {"name", "parent"}).
// Why instants and not the format's "samples" array: the Perfetto UI does not import "samples"
// or "stackFrames" from JSON (it shows an instant on its thread's track, and its args when one is
// clicked); chrome://tracing shows the instant too, and its "sf" stack.
//
// Times: "ts" and "dur" in µs since the model's start (the scheduler's window, or an earlier
// first sample; otherData.ts_zero_mono_ns is that instant on CLOCK_MONOTONIC), in steps of
// 1/1024 µs written exactly ("1234.5009765625"): a binary fraction a reader's double holds
// exactly, so an interval's ts + dur is exactly the next one's ts (a decimal of the ns is
// rounded, and speedscope then saw each interval overlap the next); a step under 1 ns keeps the
// ns: round(µs × 1000) gives them back. At one time, an interval comes before a sample, so the
// sample nests in the interval that starts there. "otherData" says what was read and the clocks.
// Deterministic: the same model gives the same bytes.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "render/timeline/lanes.h"

namespace hearth::timeline {

struct TraceOptions {
  std::string source;  // the files read, as named (otherData.source)
};

// Hands the JSON to OUT in pieces (about 1 MiB each, the last smaller), in order.
void write_chrome_trace(const Model& model, const Names& names, const TraceOptions& options,
                        const std::function<void(std::string_view)>& out);

// The whole JSON as one string (tests, small traces).
std::string chrome_trace(const Model& model, const Names& names, const TraceOptions& options);

// Whether PATH names a trace file: ends in .trace.json.
bool is_chrome_trace_path(std::string_view path);

// Writes the trace of MODEL to PATH atomically (nothing under PATH unless all of it was written).
Result<void> write_chrome_trace_file(const Model& model, const Names& names,
                                     const TraceOptions& options, const std::string& path);

}  // namespace hearth::timeline
