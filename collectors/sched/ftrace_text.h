// sched.ftrace.txt: the recorded events in the kernel's ftrace text format (the `trace` file's),
// which Perfetto's UI opens. Written as it streams, atomically (temp name + rename). Text
// fields never hold a tab, CR or LF: those bytes become a blank. (The sched TSVs are in
// formats/sched_tsv.h.)
#pragma once

#include <string>

#include "collectors/sched/events.h"
#include "common/atomic_file.h"
#include "common/result.h"

namespace hearth::sched {

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
