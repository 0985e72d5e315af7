// The scheduler recording as the render side sees it: plain data parsed from the
// `DIR/sched.*.tsv` files `hearth sched` writes (README, "Scheduler states, tenancy,
// preemptors"). One SchedFile per file; nothing here knows how the data was recorded.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hearth::sched_model {

// Which file: the `sched.KIND` of its first line `# hearth sched.KIND VERSION`.
enum class FileKind : uint8_t { kStates, kTenancy, kPreemptors, kWakeups };

// The `#` header lines every sched file starts with.
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

// sched.states.tsv: one row per thread. Times in ns; off-CPU time is attributed to the
// state the thread was switched out in. A version-1 file has no stopped columns: they read 0
// (its stopped time, if any, is in other_ns).
struct ThreadStates {
  int64_t tid = 0;
  std::string comm;
  int64_t pid = 0;
  uint64_t on_cpu_ns = 0;
  uint64_t runnable_ns = 0;  // switched out R/R+: preempted
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
struct Tenancy {
  int64_t tid = 0;
  std::string comm;
  int cpu = 0;  // 0 ..< kMaxCpus
  uint64_t on_cpu_ns = 0;
  uint64_t switch_ins = 0;
};

// sched.preemptors.tsv: who ran next when thread TID was switched out runnable.
struct Preemption {
  int64_t tid = 0;
  std::string comm;
  int64_t preemptor_pid = 0;
  int64_t preemptor_tid = 0;
  std::string preemptor_comm;
  uint64_t count = 0;
  uint64_t time_ns = 0;  // runnable time of those switch-outs, until TID ran again
};

// sched.wakeups.tsv: wakeup latency (runnable -> running) per thread.
inline constexpr int kWakeupBuckets = 16;  // le_1us, le_2us, ... le_16ms, gt_16ms
struct Wakeups {
  int64_t tid = 0;
  std::string comm;
  uint64_t wakeups = 0;
  uint64_t p50_ns = 0;  // p50 <= p90 <= p99 <= max
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t max_ns = 0;
  uint64_t migrations = 0;
  std::array<uint64_t, kWakeupBuckets> histogram{};  // power-of-two buckets from 1 us
};

inline constexpr int kMaxCpus = 8192;        // the kernel's largest NR_CPUS
inline constexpr int64_t kMaxTid = 4194304;  // PID_MAX_LIMIT on 64-bit kernels

// One parsed file. Only the vector matching header.kind is filled, in file order.
struct SchedFile {
  std::string path;  // as given; used in messages and section titles
  Header header;
  std::vector<ThreadStates> states;
  std::vector<Tenancy> tenancy;
  std::vector<Preemption> preemptors;
  std::vector<Wakeups> wakeups;
};

}  // namespace hearth::sched_model
