// Scheduler charts: parsed sched.*.tsv files -> one Scene of kind "chart" (SVG with
// templates/chart.{css,js}, or PNG/PDF through cairo). Each file gives one or two sections,
// stacked top to bottom in a fixed order: thread states, CPU tenancy (by thread, then by
// CPU), preemptors; files of one kind in the order given. Output depends on the inputs and
// the options only (no paths beyond file names, no clock).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/sched_tsv.h"
#include "render/charts/chart_style.h"
#include "render/scene/scene.h"

namespace hearth::charts {

// Order of the thread bars. The share keys sort by that state's share of the thread's time,
// largest first; ties (and name) by name, then tid.
enum class SortKey : uint8_t { kRunnable, kOnCpu, kBlocked, kName, kTid };
std::optional<SortKey> parse_sort_key(std::string_view name);  // "runnable", "on_cpu", ...
inline constexpr std::string_view kSortKeyNames = "runnable, on_cpu, blocked, name, tid";

struct ChartOptions {
  std::string title;    // empty: "Scheduler: " and the recording's targets
  double width = 1200;  // px
  SortKey sort = SortKey::kRunnable;
  // Threads whose names differ only in digits are one bar ("worker-*", times summed).
  bool group_threads = false;
  size_t max_preemptors = 40;  // bars in the preemptors chart; the rest are summed in a note
  // How the stopped state is named: kHearth in a `hearth record` report, where hearth's own
  // stack sampler ran (its stops are what the state shows); kTracer anywhere else.
  StoppedBy stopped_by = StoppedBy::kTracer;
  // Names shown instead of the files' comm, by tid (a preemptor's too): the threads' roles from
  // the stack sampler of the same recording (thread_roles.h; a report takes them from its
  // stacks.folded). Threads not in it keep their comm.
  std::map<int64_t, std::string> thread_names;
};

struct ChartStats {
  size_t sections = 0;
  size_t bars = 0;
  // Files no chart uses: a wakeups file without a states file of its recording.
  std::vector<std::string> skipped;  // "sched.wakeups.tsv"
};

// FILES in any order. A states file takes its runnable tooltips' preemptor breakdown from the
// preemptors file of the same recording (same window and targets), and its sleeping and
// blocked tooltips' wakeup latency from the wakeups file of the same recording, when FILES
// hold them.
scene::Scene layout_charts(const std::vector<sched_tsv::SchedFile>& files,
                           const ChartOptions& options, ChartStats* stats);

}  // namespace hearth::charts
