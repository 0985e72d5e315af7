// Writers of `hearth sched`'s outputs (README, "Scheduler states, tenancy, preemptors"):
// sched.states.tsv, sched.tenancy.tsv, sched.preemptors.tsv, sched.wakeups.tsv (--wakeups),
// sched.cpu.tsv (--cpu), and sched.ftrace.txt (the events in the kernel's ftrace text format,
// which Perfetto's UI opens). Every file is written atomically (temp name + rename).
//
// Text fields (comm) never hold a tab, CR or LF: those bytes become a blank.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/sched/analysis.h"
#include "collectors/sched/events.h"
#include "common/atomic_file.h"
#include "common/result.h"

namespace hearth::sched {

struct SchedTarget {
  pid_t pid = 0;
  std::string comm;  // the process's name
};

// The version on each file's first line (`# hearth sched.KIND VERSION`). sched.states is at 2
// (stopped_ns and switches_stopped appended); the other files kept their version-1 columns.
inline constexpr int kStatesVersion = 2;
inline constexpr int kOtherFilesVersion = 1;

// The `#` header every TSV starts with.
struct SchedHeader {
  std::vector<SchedTarget> targets;  // empty: every task (-a)
  bool inherit = false;              // the targets' descendant processes too (--inherit)
  int cpu = -1;                      // --cpu N, with -a
  uint64_t window_start_ns = 0;      // CLOCK_MONOTONIC
  uint64_t window_end_ns = 0;
  uint64_t sched_switch = 0;  // events seen
  uint64_t sched_waking = 0;
  uint64_t sched_wakeup = 0;
  uint64_t sched_migrate_task = 0;
  uint64_t lost = 0;  // ring-buffer overruns and drops, summed over CPUs
};

// Whole file contents (header, column names, rows), exposed for golden tests.
std::string format_states(const SchedHeader& header, const SchedModel& model);
std::string format_tenancy(const SchedHeader& header, const SchedModel& model);
std::string format_preemptors(const SchedHeader& header, const SchedModel& model);
std::string format_wakeups(const SchedHeader& header, const SchedModel& model);
// sched.cpu.tsv: `tid pid comm on_cpu_ns switch_ins longest_off_ns`, by tid.
std::string format_cpu(const SchedHeader& header, const SchedModel& model);

// Writes the TSVs into DIR (which must exist): states, tenancy, preemptors always; wakeups and
// cpu when asked. Stops at the first error; files already committed stay.
Result<void> write_sched_tsvs(const std::string& dir, const SchedHeader& header,
                              const SchedModel& model, bool wakeups, bool cpu_view);

// The `# tracer: nop` block the kernel prints at the top of /sys/kernel/tracing/trace (without
// its entries-in-buffer line: the writer streams and does not know the count up front).
std::string ftrace_text_header();

// One event as the kernel's `trace` file prints it, with its line end, appended to OUT:
//   "            bash-26877   [001] d..2.  4602.348630: sched_switch: prev_comm=bash …"
// Timestamps in seconds with microseconds, as the kernel prints ns clocks.
void append_ftrace_line(std::string* out, const SchedEvent& event);

// Streams events into DIR/sched.ftrace.txt; nothing appears under the final name before commit().
class FtraceTextWriter {
 public:
  static Result<FtraceTextWriter> create(const std::string& path);
  void write(const SchedEvent& event);
  Result<void> commit();

 private:
  explicit FtraceTextWriter(AtomicFile file) : file_(std::move(file)) {}
  AtomicFile file_;
  std::string line_;
};

}  // namespace hearth::sched
