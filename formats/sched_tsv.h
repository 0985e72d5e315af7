// The scheduler TSVs `hearth sched` writes (README, "Scheduler states, tenancy, preemptors"):
// sched.states.tsv, sched.tenancy.tsv, sched.preemptors.tsv, sched.wakeups.tsv (--wakeups) and
// sched.cpu.tsv (--cpu). One row struct per file kind, the one writer (collectors/sched's
// analysis hands it these rows) and the one reader (render/ charts them). Plain data; no I/O
// but write_sched_tsvs and read_sched_tsv. Thread-compatible: no shared state.
//
// Every file: a `#` header (`# hearth sched.KIND VERSION`, the targets, the recording window,
// the event counts, the lost events), the column names, then one row per line, tab-separated.
// Text fields (comm) never hold a tab, CR or LF: the writer turns those bytes into a blank.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace hearth::sched_tsv {

// --- Rows: one struct per file kind, fields in column order ---

// sched.states.tsv: one row per thread. Times in ns; off-CPU time is attributed to the state
// the thread was switched out in; switches count those switch-outs. A version-1 file has no
// stopped columns: they read 0 (its stopped time, if any, is in other_ns).
struct ThreadStates {
  int64_t tid = 0;
  std::string comm;
  int64_t pid = 0;  // tgid; 0: unknown (exited before it could be looked up)
  uint64_t on_cpu_ns = 0;
  uint64_t runnable_ns = 0;  // switched out R/R+: preempted, then woken and waiting for a CPU
  uint64_t sleeping_ns = 0;  // S
  uint64_t blocked_ns = 0;   // D
  uint64_t other_ns = 0;     // anything else: job-control stop (T), dead, parked, idle (I)
  uint64_t switches_runnable = 0;
  uint64_t switches_sleeping = 0;
  uint64_t switches_blocked = 0;
  uint64_t switches_other = 0;
  uint64_t stopped_ns = 0;  // t: stopped by a tracer (ptrace); version 2
  uint64_t switches_stopped = 0;
};

// sched.tenancy.tsv: one row per (thread, CPU).
struct TenancyRow {
  int64_t tid = 0;
  std::string comm;
  int cpu = 0;  // 0 ..< kMaxCpus
  uint64_t on_cpu_ns = 0;
  uint64_t switch_ins = 0;
};

// sched.preemptors.tsv: who ran next when thread TID was switched out runnable.
struct PreemptorRow {
  int64_t tid = 0;
  std::string comm;
  int64_t preemptor_pid = 0;
  int64_t preemptor_tid = 0;
  std::string preemptor_comm;
  uint64_t count = 0;    // runnable switch-outs with this task next
  uint64_t time_ns = 0;  // runnable time of those switch-outs, until TID ran again
};

// sched.wakeups.tsv: wakeup latency (runnable -> running) per thread. Histogram bucket k
// (0..14) counts latencies in (1000·2^(k-1), 1000·2^k] ns (bucket 0: <= 1000 ns); bucket 15
// those above 16.384 ms. Columns le_1us … le_16ms, gt_16ms: powers of two of a microsecond,
// so "1ms" is 1.024 ms. Counts per bucket, not cumulative.
inline constexpr int kWakeupBuckets = 16;
struct WakeupRow {
  int64_t tid = 0;
  std::string comm;
  uint64_t wakeups = 0;  // sched_waking followed by a switch-in within the window
  uint64_t p50_ns = 0;   // nearest-rank percentiles: p50 <= p90 <= p99 <= max
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t max_ns = 0;
  uint64_t migrations = 0;  // switch-ins on another CPU than the previous switch-in
  std::array<uint64_t, kWakeupBuckets> histogram{};
};

// sched.cpu.tsv (--cpu N): each task that ran on CPU N.
struct CpuRow {
  int64_t tid = 0;
  int64_t pid = 0;
  std::string comm;
  uint64_t on_cpu_ns = 0;
  uint64_t switch_ins = 0;
  uint64_t longest_off_ns = 0;  // longest interval off CPU N inside the window, edges included
};

inline constexpr int kMaxCpus = 8192;        // the kernel's largest NR_CPUS
inline constexpr int64_t kMaxTid = 4194304;  // PID_MAX_LIMIT on 64-bit kernels

// The rows of one recording, each vector sorted as the README states.
struct SchedTables {
  std::vector<ThreadStates> states;      // by tid
  std::vector<TenancyRow> tenancy;       // by tid, cpu
  std::vector<PreemptorRow> preemptors;  // by tid, time desc, preemptor_tid
  std::vector<WakeupRow> wakeups;        // by tid
  std::vector<CpuRow> cpu;               // by tid (only with --cpu)
};

// --- Writing ---

struct SchedTarget {
  pid_t pid = 0;
  std::string comm;  // the process's name
};

// What the writer puts in the `#` header every file starts with: the recording's facts.
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

// The version on each file's first line (`# hearth sched.KIND VERSION`). sched.states is at 2
// (stopped_ns and switches_stopped appended); the other files kept their version-1 columns.
inline constexpr int kStatesVersion = 2;
inline constexpr int kOtherFilesVersion = 1;

// The `#` header lines every sched file starts with, `# hearth sched.KIND VERSION` to `# lost`,
// appended to OUT (the interval files of formats/sched_intervals.h start with them too).
void append_header(std::string* out, std::string_view kind, int version, const SchedHeader& header);

// Whole file contents (header, column names, rows), exposed for golden tests.
std::string format_states(const SchedHeader& header, std::span<const ThreadStates> rows);
std::string format_tenancy(const SchedHeader& header, std::span<const TenancyRow> rows);
std::string format_preemptors(const SchedHeader& header, std::span<const PreemptorRow> rows);
std::string format_wakeups(const SchedHeader& header, std::span<const WakeupRow> rows);
// sched.cpu.tsv: `tid pid comm on_cpu_ns switch_ins longest_off_ns`, by tid.
std::string format_cpu(const SchedHeader& header, std::span<const CpuRow> rows);

// Writes the TSVs into DIR (which must exist), each atomically (temp name + rename): states,
// tenancy, preemptors always; wakeups and cpu when asked. Stops at the first error; files
// already committed stay.
Result<void> write_sched_tsvs(const std::string& dir, const SchedHeader& header,
                              const SchedTables& tables, bool wakeups, bool cpu_view);

// --- Reading ---

// Which file: the `sched.KIND` of its first line `# hearth sched.KIND VERSION`. kCpu is read
// only by parse_sched_cpu_tsv: no chart reads it.
enum class FileKind : uint8_t { kStates, kTenancy, kPreemptors, kWakeups, kCpu };

// The `#` header lines every sched file starts with, as read.
struct Header {
  FileKind kind = FileKind::kStates;
  int version = 0;
  // One entry per `# target` line, its fields joined by ' ': "pid=4242 comm=app", "all",
  // "cpu=3". May be empty (the line is optional for readers).
  std::vector<std::string> targets;
  uint64_t window_start_ns = 0;  // CLOCK_MONOTONIC
  uint64_t window_end_ns = 0;    // CLOCK_MONOTONIC, >= start
  uint64_t window_ns = 0;        // end - start
  // `# events` as written, in file order: {"sched_switch", 81234}, ... May be empty.
  std::vector<std::pair<std::string, uint64_t>> events;
  uint64_t lost = 0;  // events lost to ring-buffer overruns, all CPUs
};

// One parsed file. Only the vector matching header.kind is filled, in file order.
struct SchedFile : SchedTables {
  std::string path;  // as given; used in messages and section titles
  Header header;
};

// The newest version of each kind's format, the one `hearth sched` writes: states 2 (version 1
// lacked stopped_ns and switches_stopped, which then read 0), the others 1. The reader reads
// every version from 1 to that.
int newest_version(FileKind kind);

// "states", "tenancy", "preemptors", "wakeups", "cpu".
std::string_view kind_name(FileKind kind);
// The kinds parse_sched_tsv reads (the charted ones: states, tenancy, preemptors, wakeups).
std::optional<FileKind> parse_kind(std::string_view name);

// Parses TEXT, the whole contents of a states, tenancy, preemptors or wakeups file; PATH only
// names it in messages ("DIR/sched.states.tsv:7: ..."). What is checked:
// - line 1 is `# hearth sched.KIND VERSION`, KIND known and 1 <= VERSION <= newest_version(KIND);
// - `# window_ns START END DURATION` (END >= START, DURATION == END - START) and `# lost N` are
//   present; `# target` and `# events` may be; each known header line appears once (target
//   may repeat); unknown `#` lines are ignored, as are blank lines and a '\r' before '\n';
// - the column names line is exactly the one of KIND and VERSION (for wakeups: 8 named
//   columns, then 15 `le_*` and one `gt_*` histogram column);
// - every row has exactly that many tab-separated fields, every number is a plain decimal
//   that fits (tids and pids <= kMaxTid, cpus < kMaxCpus, the rest uint64);
// - a thread (states, wakeups, cpu) or a (thread, CPU) pair (tenancy) appears once;
//   wakeup percentiles do not decrease.
// Garbage input gives an error, never a crash.
Result<SchedFile> parse_sched_tsv(std::string_view text, const std::string& path);

// The same for a sched.cpu.tsv (kind cpu only; its rows go to SchedFile::cpu).
Result<SchedFile> parse_sched_cpu_tsv(std::string_view text, const std::string& path);

// Reads and parses the file at PATH. Errors: "cannot read PATH: REASON", or as above.
Result<SchedFile> read_sched_tsv(const std::string& path);

}  // namespace hearth::sched_tsv
