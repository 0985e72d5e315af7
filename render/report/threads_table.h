// The report's table of threads: every thread the stack sampler or the scheduler saw, with its
// samples and its time by state, busiest first; with several processes recorded, a process
// column and each process's threads together.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "formats/sched_tsv.h"
#include "render/charts/chart_style.h"

namespace hearth::report {

struct ThreadRow {
  std::string name;
  int64_t tid = -1;     // -1: merged by name (no tid in the root)
  std::string process;  // several processes recorded: the thread's process ("": not known), by
                        // its title where it has one, shortened (profile/process_names.h)
  std::string process_title;  // that title in full ("": none): the cell's hover text
  int64_t pid = -1;           // -1: the roots carry no process (one process recorded)
  std::string root;           // the flamegraph's root frame, when sampled
  double samples = 0;
  std::optional<sched_tsv::ThreadStates> sched;
  int sched_version = 0;  // of the sched.states.tsv it came from; 1 has no stopped time
};

// Threads table keys: by tid, or by name for roots merged by name.
std::string thread_key(int64_t tid, std::string_view name);

// The table's HTML (and the note under it) for THREADS (by thread_key). Rows by what the threads
// did: on CPU, then runnable, then stopped, longest first; threads the scheduler did not see
// after them, by samples. When some row has a process (pid ≥ 0): a process column, the rows
// grouped by process, the busiest process first (its threads' time on CPU, then runnable, then
// samples), threads of no known process last. WINDOW ("30.0 s", or "") is named in the note;
// SCHED_CHART: the tids link to the scheduler charts' rows; BY names the stopped state.
std::string threads_table(const std::map<std::string, ThreadRow>& threads,
                          const std::string& window, charts::StoppedBy by, bool sched_chart);

}  // namespace hearth::report
