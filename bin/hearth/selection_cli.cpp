#include "bin/hearth/selection_cli.h"

#include "common/pattern.h"

namespace hearth::cli {

bool selects_some(const SelectionArgs& a) {
  return !a.pids.empty() || !a.comm.empty();
}

std::vector<std::string> validate_selection(const SelectionArgs& a) {
  std::vector<std::string> problems;
  for (int pid : a.pids) {
    if (pid <= 0) problems.push_back("-p " + std::to_string(pid) + " is not a process id");
  }
  if (!a.comm.empty()) {
    if (auto p = Pattern::compile(a.comm); !p) problems.push_back("--comm: " + p.error().message);
  }
  return problems;
}

proc::ProcessSelection process_selection(const SelectionArgs& a) {
  proc::ProcessSelection s;
  s.pids.assign(a.pids.begin(), a.pids.end());
  s.children = a.children;
  if (!a.comm.empty()) s.comm = *Pattern::compile(a.comm);
  return s;
}

}  // namespace hearth::cli
