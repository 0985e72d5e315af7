// `hearth watch`: a flight recorder. Samples the watched processes' stacks at a low rate
// without stopping a sleeper (the stack sampler's bpf capture), keeps the last RING seconds of
// them, and evaluates its rules (watch/rules.h) once a second over the processes' CPU and
// scheduler states, their MMV metrics, the host's PCP metrics and the stacks just taken. When a
// rule holds and the budget allows (watch/budget.h), it records AFTER seconds at full rate
// (stacks at RECORD_HZ from the same sampler, the scheduler tracer, the MMV reader: what `hearth
// record` runs) and writes one report directory whose samples begin with the ring: the calm
// before the trigger, then the trigger, then what followed. report.json says which rule fired,
// when, and with which value. Then it goes back to watching.
//
// Ends on SIGINT/SIGTERM (a report being recorded is finished first), when every process named
// with -p has exited, or when the budget's total is written. SIGHUP re-reads the rules: a file
// with an error keeps the rules in force and says why.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectors/proc/process_select.h"
#include "collectors/stacks/sampler.h"
#include "recording/alloc_collector.h"
#include "watch/budget.h"

namespace hearth::watch {

struct WatchOptions {
  proc::ProcessSelection selection;  // --comm: processes that start later join (restarts too)
  std::string output;                // the directory of reports, which must exist
  std::vector<std::string> rule_files;  // --rules FILE (re-read on SIGHUP)
  std::vector<std::string> rule_texts;  // --rule EXPR
  double ring_s = 600;    // seconds of samples kept before a trigger
  double rate_hz = 1;     // stack samples per second while watching
  double record_hz = 10;  // stack samples per second while recording
  double after_s = 10;    // seconds recorded after a trigger
  Budget budget;
  // hearth's resident memory (VmRSS) above this shortens the ring, oldest samples first, down to
  // a few seconds at least (said once per episode, published as watch.ring.shortened); it grows
  // back to ring_s once under 90% of it. 0: no budget.
  uint64_t memory_budget_bytes = 64 << 20;
  stacks::CaptureMethod method = stacks::CaptureMethod::kBpf;
  std::string symbol_cache;      // the stack symbolizer's on-disk cache ("": none)
  std::vector<std::string> mmv;  // --mmv: files/names/dirs; empty: the processes' own files
  std::string pcp_host = "local:";  // pmcd for `pcp:` rules
  bool no_sched = false;            // the report records no scheduler trace
  // The allocation profile of each report's window after the trigger (`hearth record --alloc`'s
  // collector: uprobes attached at the trigger and gone with the window; one process only).
  recording::AllocViews alloc;
  uint64_t alloc_mean = 512 << 10;  // bytes, mean of the sampling thresholds
  uint32_t alloc_live_max = 1 << 16;
  // The MMV file the watcher's live figures go to (watch/mmv_publish.h: pmdammv serves them as
  // mmv.NAME.watch.*); "": none.
  std::string publish = "hearth_watch";
  std::vector<std::string> command_line;  // for report.json
  // One line per event (a trigger, a report, a rule left out, a reload); the caller prefixes.
  std::function<void(const std::string&)> log;
  // After each evaluation, one line of state (a terminal's status line); may be empty.
  std::function<void(const std::string&)> status;
  // After each report is written, with its directory (`--push`); may be empty.
  std::function<void(const std::string&)> report_written;
  // After each evaluation (about once a second); may be empty.
  std::function<void()> tick;
};

// Runs the watcher; returns the exit status: 0 after a clean end, 1 when the processes cannot
// be watched (nothing to attach to, the capture cannot load), 2 when no rule is valid at the
// start (each error said through LOG).
int watch(const WatchOptions& options);

}  // namespace hearth::watch
