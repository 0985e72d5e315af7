// The processes of the host, from /proc: their ids and their titles. What a selection of
// processes by parent or by name reads (collectors/proc/process_select.h).
//
// Like threads.h: every function opens, reads and closes; nothing is cached; all thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace hearth::proc {

// The ids of every process in /proc, ascending (threads are not listed: /proc lists only
// thread-group leaders).
Result<std::vector<pid_t>> list_processes();

// Titles longer than this are cut (a JVM's class path can run to tens of kilobytes).
constexpr size_t kMaxTitleBytes = 256;

// The process title: /proc/PID/cmdline with its arguments joined by one blank, as ps shows it.
// Servers rewrite it to say what a process does (PostgreSQL's "postgres: bench bench [local]
// UPDATE waiting", nginx's "nginx: worker process"). Empty for a kernel thread or a zombie.
Result<std::string> process_title(pid_t pid);

// --- Parser, exposed for tests. ---

// cmdline bytes -> title: NULs between arguments become one blank each, trailing NULs and
// blanks (the padding of a rewritten title) are dropped, control characters become '?', and
// the result is cut to kMaxTitleBytes at a UTF-8 character boundary ("..." at the end when cut).
std::string parse_cmdline(std::string_view bytes);

}  // namespace hearth::proc
