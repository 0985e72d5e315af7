// Which processes `hearth stacks`, `sched` and `record` take: the ones named with -p, those whose
// name or title matches --comm, and with --children their descendants (the stack sampler looks
// again in /proc every round, so that processes started during the window join it). Pure
// functions over a table of processes (select_processes) plus the /proc scan that fills the
// table.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "common/result.h"

namespace hearth::proc {

struct ProcessInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  char state = '?';   // a zombie ('Z') or dead ('X') process is never selected
  std::string comm;   // the main thread's name
  std::string title;  // proc::process_title; empty when not read
};

struct ProcessSelection {
  std::vector<pid_t> pids;      // -p
  bool children = false;        // and their descendants (and those of --comm's matches)
  std::optional<Pattern> comm;  // matched anywhere in the comm or the title
};

// The selection can take in processes not in it yet: it must look at /proc every round.
bool selection_grows(const ProcessSelection& selection);

// Whether P's comm or title matches PATTERN.
bool name_matches(const ProcessInfo& p, const Pattern& pattern);

// The processes of PROCS that SELECTION takes, ascending: the -p pids present in PROCS, the
// --comm matches, MEMBERS (taken earlier: a process once selected stays until it exits, even if
// its title no longer matches), and with children every descendant of those (by ppid). Never
// SELF (hearth: its own title holds the pattern), a kernel thread (pid 2 and its children),
// nor a process that has exited (a zombie).
std::vector<pid_t> select_processes(const std::vector<ProcessInfo>& procs,
                                    const ProcessSelection& selection,
                                    const std::vector<pid_t>& members, pid_t self);

// The host's processes from /proc: pid, ppid and comm from /proc/PID/stat, and the title when
// WITH_TITLES. Processes that exit during the scan are left out. ~10 µs per process (titles
// double it).
Result<std::vector<ProcessInfo>> scan_processes(bool with_titles);

// The processes SELECTION takes now (select_processes over a fresh scan, hearth itself left
// out), ascending, their descendants included when selection.children is set.
Result<std::vector<pid_t>> select_now(const ProcessSelection& selection);

// What a tracer that follows descendants itself (the scheduler's, with --children) starts from:
// every -p as given, even one gone by now (the tracer says so in its own words), then the
// --comm matches now; never their descendants. Empty: nothing matches.
Result<std::vector<pid_t>> roots_to_trace(const ProcessSelection& selection);

// "no process matches --comm REGEX (its name or its title, as ps shows them)": what every verb
// says when a selection takes no process.
std::string nothing_matches(const ProcessSelection& selection);

// The comm of a /proc/PID/stat line: between the first '(' and the last ')'.
std::string comm_of_stat(const std::string& stat);

}  // namespace hearth::proc
