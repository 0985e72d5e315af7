// Per-thread facts from /proc/PID/task/TID: the thread list, names, scheduler state, tracer,
// kernel stack; and the file reading they share with maps.h.
//
// Every function opens, reads and closes; nothing is cached, nothing is shared: all are
// thread-safe. Cost: one small /proc file each, ~5–20 µs. None of them stops or signals the
// target, so they belong before or after a ptrace stop window, never inside one.
// Errors: "cannot read /proc/4242/task/4250/stat: No such file or directory" with errnum set;
// ENOENT/ESRCH mean the thread or process is gone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace hearth::proc {

// Thread ids of PID (from /proc/PID/task), ascending. Includes zombie threads not yet reaped.
Result<std::vector<pid_t>> list_threads(pid_t pid);

// The thread's name (comm, at most 15 bytes), without the trailing newline.
Result<std::string> thread_name(pid_t pid, pid_t tid);

struct ThreadStat {
  char state = '?';               // R S D T t Z X I P W K (proc(5) field 3)
  pid_t ppid = 0;                 // parent process (field 4)
  long threads = 0;               // threads of its process (field 20)
  uint64_t start_time_ticks = 0;  // start time after boot, clock ticks (_SC_CLK_TCK) (field 22)
  int processor = -1;             // CPU last run on (field 39)
};

// /proc/PID/task/TID/stat.
Result<ThreadStat> thread_stat(pid_t pid, pid_t tid);

// The process's start time (ticks after boot): with the PID, it names a process uniquely, so a
// changed value means the PID was reused by another process.
Result<uint64_t> process_start_time(pid_t pid);

// TracerPid from /proc/PID/task/TID/status: 0 when not traced.
Result<pid_t> tracer_pid(pid_t pid, pid_t tid);

// Kernel stack symbols from /proc/PID/task/TID/stack, leaf first (as the file lists them),
// e.g. {"futex_wait_queue", "__futex_wait", …, "entry_SYSCALL_64_after_hwframe"}.
// Empty for a thread running in user space. Readable by root only.
Result<std::vector<std::string>> kernel_stack(pid_t pid, pid_t tid);

// --- Parsers: pure functions over file contents, exposed for tests and fuzzing. ---

// A stat line. comm may hold spaces and parentheses: fields are counted from the LAST ')'.
Result<ThreadStat> parse_thread_stat(std::string_view text);

// The TracerPid: line of a status file.
Result<pid_t> parse_tracer_pid(std::string_view status);

// Lines like "[<0>] futex_wait_queue+0x60/0x90 [mod]" → "futex_wait_queue": the address
// prefix, the +offset/size suffix and the module are dropped. Blank lines are skipped.
std::vector<std::string> parse_kernel_stack(std::string_view text);

}  // namespace hearth::proc
