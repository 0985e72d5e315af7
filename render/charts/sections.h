// The scheduler charts as Sections (bars.h): which bars, in which order, with which segments,
// colours and tooltips. Geometry is bars.cpp's business; these only decide content.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/sched_tsv.h"
#include "render/charts/bars.h"
#include "render/charts/chart_style.h"
#include "render/charts/charts.h"

namespace hearth::charts {

// One bar of the states chart: a thread, or a pool of threads summed (group_threads).
struct StatesRow {
  std::string comm;           // the thread's comm; for a pool, one member's (the lowest tid)
  int64_t tid = 0;            // the thread, or the lowest tid of the pool
  std::vector<int64_t> tids;  // members, ascending
  std::array<double, kStateCount> ns{};          // by State
  std::array<uint64_t, kStateCount> switches{};  // switch-outs by State (kOnCpu: 0)
};

// STATES's threads, pooled when GROUP (a pool of one stays a thread), sorted by SORT.
std::vector<StatesRow> states_rows(const sched_tsv::SchedFile& states, bool group, SortKey sort);

// PREEMPTORS (may be null: no breakdown) feeds the runnable segments' tooltips, WAKEUPS (may
// be null) the sleeping and blocked ones (wakeup latency).
Section states_section(const sched_tsv::SchedFile& states, const sched_tsv::SchedFile* preemptors,
                       const sched_tsv::SchedFile* wakeups, const ChartOptions& options);

// One bar per thread (or pool), segments by CPU; and one bar per CPU, segments by thread.
Section tenancy_by_thread_section(const sched_tsv::SchedFile& tenancy, const ChartOptions& options);
Section tenancy_by_cpu_section(const sched_tsv::SchedFile& tenancy, const ChartOptions& options);

// One bar per preemptor (or pool of them), by the runnable time it caused; segments by victim.
Section preemptors_section(const sched_tsv::SchedFile& preemptors, const ChartOptions& options);

// "sched.states.tsv · pid=4242 comm=app · window 30.00 s · sched_switch=81,234 · 0 lost";
// *WARN is set when events were lost (the line then says so loudly).
std::string recording_facts(const sched_tsv::SchedFile& file, bool* warn);

}  // namespace hearth::charts
