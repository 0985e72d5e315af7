#include "collectors/proc/process_select.h"

#include <unistd.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "collectors/proc/processes.h"
#include "collectors/proc/threads.h"
#include "common/file_io.h"

namespace hearth::proc {
namespace {

constexpr pid_t kKthreadd = 2;

}  // namespace

bool selection_grows(const ProcessSelection& selection) {
  return selection.children || selection.comm.has_value();
}

bool name_matches(const ProcessInfo& p, const Pattern& pattern) {
  return pattern.search(p.comm) || (!p.title.empty() && pattern.search(p.title));
}

std::vector<pid_t> select_processes(const std::vector<ProcessInfo>& procs,
                                    const ProcessSelection& selection,
                                    const std::vector<pid_t>& members, pid_t self) {
  auto listed = [](const std::vector<pid_t>& v, pid_t pid) {
    return std::find(v.begin(), v.end(), pid) != v.end();
  };
  std::unordered_map<pid_t, std::vector<pid_t>> children_of;
  std::vector<pid_t> chosen;
  for (const ProcessInfo& p : procs) {
    if (p.pid == self || p.pid == kKthreadd || p.ppid == kKthreadd) continue;
    if (p.state == 'Z' || p.state == 'X') continue;
    if (selection.children) children_of[p.ppid].push_back(p.pid);
    if (listed(selection.pids, p.pid) || listed(members, p.pid) ||
        (selection.comm && name_matches(p, *selection.comm))) {
      chosen.push_back(p.pid);
    }
  }
  if (selection.children) {
    // Breadth first from every chosen process; a pid is taken once.
    std::unordered_set<pid_t> taken(chosen.begin(), chosen.end());
    for (size_t i = 0; i < chosen.size(); ++i) {
      auto it = children_of.find(chosen[i]);
      if (it == children_of.end()) continue;
      for (pid_t child : it->second) {
        if (taken.insert(child).second) chosen.push_back(child);
      }
    }
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return chosen;
}

std::string comm_of_stat(const std::string& stat) {
  const size_t open = stat.find('(');
  const size_t close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return stat.substr(open + 1, close - open - 1);
}

Result<std::vector<ProcessInfo>> scan_processes(bool with_titles) {
  ASSIGN_OR_RETURN(std::vector<pid_t> pids, list_processes());
  std::vector<ProcessInfo> out;
  out.reserve(pids.size());
  for (pid_t pid : pids) {
    auto text = read_file("/proc/" + std::to_string(pid) + "/stat");
    if (!text) continue;  // exited since the listing
    auto stat = parse_thread_stat(*text);
    if (!stat) continue;
    ProcessInfo p{.pid = pid,
                  .ppid = stat->ppid,
                  .state = stat->state,
                  .comm = comm_of_stat(*text),
                  .title = {}};
    if (with_titles) {
      auto title = process_title(pid);
      if (title) p.title = std::move(*title);
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<pid_t>> select_now(const ProcessSelection& selection) {
  ASSIGN_OR_RETURN(std::vector<ProcessInfo> procs, scan_processes(selection.comm.has_value()));
  return select_processes(procs, selection, {}, ::getpid());
}

Result<std::vector<pid_t>> roots_to_trace(const ProcessSelection& selection) {
  std::vector<pid_t> roots = selection.pids;
  if (!selection.comm) return roots;
  ProcessSelection matches{.pids = {}, .children = false, .comm = selection.comm};
  ASSIGN_OR_RETURN(std::vector<pid_t> found, select_now(matches));
  for (pid_t pid : found) {
    if (std::find(roots.begin(), roots.end(), pid) == roots.end()) roots.push_back(pid);
  }
  return roots;
}

std::string nothing_matches(const ProcessSelection& selection) {
  return "no process matches --comm " + (selection.comm ? selection.comm->text() : std::string()) +
         " (its name or its title, as ps shows them)";
}

}  // namespace hearth::proc
