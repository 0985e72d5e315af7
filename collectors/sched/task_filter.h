// Kernel-side selection of a target's tasks with event `filter` expressions.
//
// Two ways to make a tracefs instance record only some tasks:
// - the instance's `set_event_pid` list (+ options/event-fork): exact for any number of tasks and
//   follows forks in the kernel, but it hooks probes of its own into every sched_switch and
//   wakeup on the system. On a pipe ping-pong (tests/bench/sched_bench.sh) it made the
//   recording cost 1.39× against 1.22× with a filter.
// - an event `filter` per event (`prev_pid==…||next_pid==…` on sched_switch, `pid==…` on
//   sched_waking): evaluated term by term on every event, so its cost grows with the terms,
//   and it does not follow forks by itself (fork_watcher.h adds new threads).
// The tids are written as ranges of consecutive tids (threads created together usually have
// them), one comparison for a single tid, two for a range, and the filter is used while a
// field's comparisons stay within kMaxFilterComparisons (measured: ~11 single tids cost about
// as much as the pid list; tests/bench/sched_bench.sh).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::sched {

struct TidRange {
  pid_t lo = 0;
  pid_t hi = 0;  // inclusive
  bool operator==(const TidRange&) const = default;
};

// The set TIDS (any order, duplicates allowed, values ≤ 0 ignored) as sorted, disjoint ranges
// of consecutive tids, each covering tids of the set only.
std::vector<TidRange> tid_ranges(std::vector<pid_t> tids);

// RANGES with the gap between two neighbours bridged when every tid in it is free (FREE(tid):
// no task has that id now — an exited thread's or process's; on a busy host most ids between a
// process's threads went to short-lived processes), up to kMaxBridgedGap ids per gap. Fewer
// ranges keep larger processes on the cheap filter. A bridged range also matches a task that
// takes one of those ids later (the kernel hands ids out again only after wrapping around
// pid_max): its events are recorded, and dropped by the analysis, which reports the targets'
// threads only.
constexpr pid_t kMaxBridgedGap = 256;
std::vector<TidRange> bridge_free_gaps(std::vector<TidRange> ranges,
                                       const std::function<bool(pid_t)>& free);

// No task has TID now (/proc/TID is absent).
bool tid_is_free(pid_t tid);

// Comparisons the kernel makes per field to reject a task outside RANGES.
size_t filter_comparisons(const std::vector<TidRange>& ranges);

constexpr size_t kMaxFilterComparisons = 10;

// The filter expression matching an event whose FIELDS (any of them) hold a tid in RANGES:
// "prev_pid==7||(prev_pid>=9&&prev_pid<=12)||next_pid==7||…". Empty RANGES: "" (no filter).
std::string filter_expression(const std::vector<TidRange>& ranges,
                              const std::vector<std::string_view>& fields);

// "(A)&&(B)", or the non-empty one of A and B.
std::string filter_and(const std::string& a, const std::string& b);

}  // namespace hearth::sched
