// `hearth record -p PID -d SECS -o DIR`: the stack sampler, the scheduler tracer and the MMV
// reader over the same window, then every picture and DIR/index.html + DIR/report.json. Takes a
// set of processes as `hearth stacks` does: several -p, --children, --comm (and --title).
#pragma once

#include <string>
#include <vector>

#include "bin/hearth/cmd_push.h"
#include "bin/hearth/selection_cli.h"

namespace hearth::cli {

// --alloc, --alloc-mean, --alloc-live-max: the allocation collector of hearth record's window,
// and of hearth watch's reports.
struct AllocCollectorArgs {
  std::string alloc;                  // --alloc VIEWS: bytes, count, live, comma-separated; "": off
  uint64_t alloc_mean = 512 << 10;    // --alloc-mean: bytes between samples on average
  uint32_t alloc_live_max = 1 << 16;  // --alloc-live-max: sampled blocks followed at once
};

// Their problems, one line each: views or numbers out of range, or a selection of more than one
// process with --alloc.
std::vector<std::string> validate_alloc_collector(const AllocCollectorArgs& alloc,
                                                  const SelectionArgs& selection);

// The selection (-p, --children, --comm) grows during the window, as stacks' does.
struct RecordArgs : SelectionArgs, AllocCollectorArgs {
  bool title = false;            // each process's title as a frame under its root
  double duration = 10;          // s
  std::string output;            // DIR, created if missing
  double frequency = 10;         // stack samples per second
  std::string method = "auto";   // the stack sampler's capture: auto, bpf, ptrace
  std::string symbol_cache;      // --symbol-cache: a directory, "off", or "" (the default one)
  double mmv_interval = 1;       // s between MMV snapshots
  std::vector<std::string> mmv;  // files/names/dirs; empty: files whose writer is selected
  bool no_stacks = false, no_sched = false, no_mmv = false;
  bool wakeups = false;
  double intervals = 60;  // --intervals: s of the window whose scheduler intervals stay whole
  std::string baseline;   // another report directory: adds the diff view
  std::vector<std::string> command_line;  // argv, for report.json
  // --push URL: the stacks recorded are pushed to Pyroscope when the report is written (its
  // url empty: not); its service defaults to the first -p process's name.
  PushArgs push;
};

std::vector<std::string> validate_record(const RecordArgs& args);
// 0: report written (some collectors may have failed: see report.json); 1: no collector ran or
// the report could not be written; 2: bad usage. With --push, once the report is written: the
// push's code when it is not 0 (3 spooled, 4 refused, 1 neither delivered nor spooled).
int run_record(const RecordArgs& args);

}  // namespace hearth::cli
