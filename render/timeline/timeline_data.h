// The data the timeline page embeds (templates/timeline.js reads it): the lanes and their
// intervals, slots and sample ticks, as compactly as they are stored: times as deltas in
// varints, a state as an index into the letters in use, `by` as an index into the table of
// tids, the samples as changes between samples (never a record per thread per sample). One
// JSON object; `<`, `>` and `&` are written as \u escapes, so it may stand inside <script>.
//
//   v          1
//   title, source           what the page says it shows; source: the files read
//   span       the domain's length, ns; every time below is ns since its start ("time 0")
//   start_mono its start on CLOCK_MONOTONIC, decimal string
//   window     [start, end]: the scheduler's window
//   whole_from, slot_ns     intervals whole from here on; slots of slot_ns before
//   untraced   [until, resolution_ns]: the slots before until are not the tracer's but /proc's,
//              read every resolution_ns (hearth watch, before its trigger); absent: none
//   origin     what the page calls 0 s (lanes.h Model::origin_ns: the samples' time 0; may be
//              negative: before the first thing drawn)
//   real_ns    the wall clock at time 0, ns since the epoch, decimal string ("0": unknown)
//   samples_t0 the samples' time 0 (null: no samples); aligned: whether their clock was known
//   heatmap    the heatmap page's URL for the moment view ("": none)
//   group      start with pools grouped; view: [from, to] to show first, or null
//   damage     ["PATH:LINE: MESSAGE", ...]: inputs read up to their damage
//   states     the interval state letters in use, a string
//   who        {tid: [...], name: [...]}: lane i is entry i; then the other tids `by` names
//   procs      {pid: [...], name: [...] (by title, shortened), title: [... in full, "": none]};
//              lanes {proc: [process index], n: [intervals],
//              ns: [slots]}; groups {name: [...], first: [lane], count: [lanes]}
//   iv         base64 of the intervals, lane by lane, each: a code byte (state index | 32 when
//              the cpu changed | 64 when `by` follows | 128 when a gap follows), [gap since the
//              previous interval's end (the first: since time 0)], duration, [cpu + 1],
//              [index into who]
//   sl         base64 of the slots, lane by lane, each: slots skipped since the previous one
//              (the first: since the window's start), its six state times (on CPU, runnable,
//              sleeping, blocked, stopped, other), switches
//   frames, stacks {n, f}   the samples' frame names, and each stack's frames (root side first)
//   sthreads   {lane: [lane index or -1], root: [root frames text]}
//   sstates    the samples' state letters in use; sprocs: [pid by process index]
//   rounds, changes, sd     the samples: per round, the time since the previous round, the
//              process index, the number of changes; per change, the thread index as a zigzag
//              delta from the previous change's (from 0), then stack * 128 + state index (127:
//              the thread is gone)
#pragma once

#include <string>
#include <vector>

#include "render/timeline/lanes.h"

namespace hearth::timeline {

struct DataOptions {
  std::string title;
  std::string source;   // the files read, as named
  std::string heatmap;  // the heatmap page, relative URL; empty: no moment link
  bool group_pools = false;
  uint64_t from_ns = 0, to_ns = 0;  // CLOCK_MONOTONIC: the view to show first; 0: the whole
  std::vector<std::string> damage;
};

// Appends the JSON object to *OUT.
void append_page_data(std::string* out, const Model& model, const Names& names,
                      const DataOptions& options);

}  // namespace hearth::timeline
