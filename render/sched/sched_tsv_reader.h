// Reads the `sched.*.tsv` files (README, "Scheduler states, tenancy, preemptors") into a
// SchedFile. The file says what it is in its first line; every number is checked, and any
// problem is an error naming the file and line ("DIR/sched.states.tsv:7: ..."). Garbage
// input gives an error, never a crash. Thread-compatible: no shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "render/sched/sched_model.h"

namespace hearth::sched_model {

// The newest version of each kind's format, the one `hearth sched` writes: states 2 (version 1
// lacked stopped_ns and switches_stopped, which then read 0), the others 1. This reader reads
// every version from 1 to that.
int newest_version(FileKind kind);

// "states", "tenancy", "preemptors", "wakeups".
std::string_view kind_name(FileKind kind);
std::optional<FileKind> parse_kind(std::string_view name);

// Parses TEXT, the whole contents of a file; PATH only names it in messages.
// What is checked:
// - line 1 is `# hearth sched.KIND VERSION`, KIND known and 1 <= VERSION <= newest_version(KIND);
// - `# window_ns START END DURATION` (END >= START, DURATION == END - START) and `# lost N` are
//   present; `# target` and `# events` may be; each known header line appears once (target
//   may repeat); unknown `#` lines are ignored, as are blank lines and a '\r' before '\n';
// - the column names line is exactly the one of KIND and VERSION (for wakeups: 8 named columns,
// then 15
//   `le_*` and one `gt_*` histogram column);
// - every row has exactly that many tab-separated fields, every number is a plain decimal
//   that fits (tids and pids <= kMaxTid, cpus < kMaxCpus, the rest uint64);
// - a thread (states, wakeups) or a (thread, CPU) pair (tenancy) appears once;
//   wakeup percentiles do not decrease.
Result<SchedFile> parse_sched_tsv(std::string_view text, const std::string& path);

// Reads and parses the file at PATH. Errors: "cannot read PATH: REASON", or as above.
Result<SchedFile> read_sched_tsv(const std::string& path);

}  // namespace hearth::sched_model
