// One recording of a process, or of a set of processes (several -p, --children, --comm, as
// `hearth stacks` takes them): the stack sampler, the scheduler tracer and the MMV reader, each
// on its own thread, over one shared window that ends at its deadline, on SIGINT/SIGTERM/SIGHUP
// or when every selected process has exited. Each collector writes its files into the output
// directory (the names in render/report/report.h) and reports its figures; the caller writes
// report.json from `meta` and renders the report. `hearth record` is this plus its command line; a
// future `watch` (a recording that triggers on a condition) runs the same.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectors/proc/process_select.h"
#include "collectors/stacks/process_set.h"
#include "collectors/stacks/sampler.h"
#include "formats/sched_intervals.h"
#include "recording/alloc_collector.h"
#include "render/report/report.h"

namespace hearth::recording {

using json = nlohmann::json;

struct Options {
  // The processes: -p (one or more), --comm, and with children their descendants (the stack
  // sampler takes in those started during the window; the scheduler follows them from their
  // fork). One -p alone is "the target" of report.json as it always was.
  proc::ProcessSelection selection;
  bool title = false;     // the stack sampler adds each process's title as a frame under its root
  double duration = 10;   // s
  std::string output;     // the report directory, which must exist
  double frequency = 10;  // stack samples per second
  stacks::CaptureMethod method = stacks::CaptureMethod::kAuto;
  std::string symbol_cache;      // the stack symbolizer's on-disk cache directory; "": none
  double mmv_interval = 1;       // s between MMV snapshots
  std::vector<std::string> mmv;  // files/names/dirs; empty: the files whose writer is selected
  bool no_stacks = false, no_sched = false, no_mmv = false;
  // The caller samples the stacks itself over the window (`hearth watch`'s sampler, which
  // goes on after it): no stacks collector runs, and the Recording's `stacks` is left for the
  // caller to fill (stacks_figures), the sampling cost computed as when the collector runs.
  bool stacks_by_caller = false;
  // The scheduler's view from before the window, from another source than the tracer (`hearth
  // watch`'s ring of /proc reads): called once on the scheduler's thread when its trace is done,
  // with the tracer window's start (CLOCK_MONOTONIC ns) and the slots' length, for the slots
  // before that start (formats/sched_intervals.h: UntracedSlots). They go into sched.slots.tsv,
  // marked untraced; sched.states.tsv and the other files keep the tracer's window. Empty: none.
  std::function<sched_intervals::UntracedSlots(uint64_t window_start_ns, uint64_t slot_ns)>
      sched_before;
  bool wakeups = false;  // the scheduler also records every wakeup
  // The allocation profile (off by default: it costs the target at every allocator call); of the
  // target only (one process): recording/alloc_collector.h.
  AllocViews alloc;
  uint64_t alloc_mean = 512 << 10;  // bytes, mean of the sampling thresholds
  uint32_t alloc_live_max = 1 << 16;
  double intervals = 60;  // s at the window's end whose scheduler intervals are all kept
  std::vector<std::string> command_line;  // for report.json
  // The summary lines of the stack sampler's run (called on its thread when it is done).
  std::function<std::string(stacks::ProcessSet&)> sampler_summary;
  // One line for the user while recording (the sampler fell back to ptrace; a process joined
  // or exited). Called from the collectors' threads, one line at a time.
  std::function<void(const std::string&)> note;
};

// What one collector reports back: "status" (ok, failed, skipped), "message", and its own
// figures (samples, stalls, events, losses ...), as report.json holds them.
struct Outcome {
  json figures = json::object();
  std::string summary;  // the collector's lines for the end of the run
  void ok();
  void failed(const std::string& why);
  void skipped(const std::string& why);
  bool ran() const;  // status ok
};

struct Recording {
  Outcome stacks, sched, mmv;
  Outcome alloc;  // in report.json only when asked for (Options::alloc)
  json meta;      // report.json: target, host, window, every collector's figures, sampling cost
  // The sampler's stops as the target's threads felt them (when both stacks and sched ran).
  std::optional<report::SamplingCost> cost;
  bool interrupted = false;    // a signal ended the window early
  bool target_exited = false;  // the target (every selected process) exited during the window
};

// About four times a second while the window runs (elapsed seconds, stack samples so far).
using Progress = std::function<void(double elapsed_s, uint64_t samples)>;
// Once when the window ends, before the collectors finish writing.
using WindowEnded = std::function<void(bool interrupted, bool target_exited)>;

// The processes OPTIONS select at the start (descendants included with children), ascending;
// fails (errnum ENOENT) when none is selected.
Result<std::vector<pid_t>> selected_processes(const proc::ProcessSelection& selection);

// The stack sampler's files in DIR (stacks.folded, stacks.samples.txt) from SET's rounds so far
// (TITLE: each process's title as a frame), and its figures for report.json (FREQUENCY as
// sampled), as record() writes them: for a caller that runs its own sampler (`hearth watch`).
Result<void> write_stacks(stacks::ProcessSet& set, const std::string& dir, bool title);
void stacks_figures(const stacks::ProcessSet& set, double frequency, Outcome* out);

// Runs the collectors over one window. A collector's failure (or an exception on its thread)
// is its Outcome's; the recording itself always completes.
Recording record(const Options& options, const Progress& progress = {},
                 const WindowEnded& window_ended = {});

}  // namespace hearth::recording
