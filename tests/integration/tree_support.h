// tree_target (targets/tree_target.cpp) as the process-set tests start it, and what they ask of
// the processes and of folded output afterwards.
#pragma once

#include <dirent.h>
#include <sys/types.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace hearth::testing_support::tree {

using namespace std::chrono_literals;

struct Tree {
  std::unique_ptr<testing_support::Target> target;
  pid_t alpha = 0, titled = 0, pool = 0;
  std::vector<pid_t> pool_threads;
};

inline Tree start_tree() {
  Tree t;
  t.target =
      testing_support::Target::start("tree_target-fp", {"padding-for-a-longer-title-0123456789"});
  if (!t.target) return t;
  for (;;) {
    auto line = t.target->read_line(10s);
    if (!line || *line == "end") break;
    std::istringstream in(*line);
    std::string what;
    in >> what;
    if (what == "alpha") in >> t.alpha;
    if (what == "titled") in >> t.titled;
    if (what == "pool") {
      in >> t.pool;
      for (pid_t tid; in >> tid;) t.pool_threads.push_back(tid);
    }
  }
  return t;
}

// Folded lines' stacks (counts dropped).
inline std::vector<std::string> stacks_of(const std::string& folded) {
  std::vector<std::string> out;
  std::istringstream in(folded);
  for (std::string l; std::getline(in, l);) out.push_back(l.substr(0, l.rfind(' ')));
  return out;
}

// Some stack starts with ROOT and contains FRAME.
inline bool has_stack(const std::vector<std::string>& stacks, const std::string& root,
                      const std::string& frame) {
  for (const std::string& s : stacks) {
    if (s.rfind(root + ";", 0) == 0 && s.find(";" + frame) != std::string::npos) return true;
  }
  return false;
}

inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Every thread of PID is traced by nobody.
inline bool untraced(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return true;
  bool clean = true;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string status = slurp(dir + "/" + e->d_name + "/status");
    size_t at = status.find("TracerPid:");
    if (at != std::string::npos && std::atoi(status.c_str() + at + 10) != 0) clean = false;
  }
  closedir(d);
  return clean;
}

// hearth (HEARTH) has taken hold of N processes: with bpf, an iterator link (one for a set, or
// one per process) and every process's memory open (/proc/PID/mem: each is being attached);
// with ptrace, N processes' main threads traced by it. Bounded: false after 30 s.
inline bool holds(pid_t hearth, const std::string& method, const std::vector<pid_t>& pids) {
  for (int i = 0; i < 3000; ++i) {
    size_t n = 0;
    if (method == "bpf") {
      size_t links = 0;
      std::string dir = "/proc/" + std::to_string(hearth) + "/fd";
      if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
          char link[128] = {};
          std::string path = dir + "/" + e->d_name;
          if (readlink(path.c_str(), link, sizeof link - 1) <= 0) continue;
          const std::string target(link);
          if (target == "anon_inode:bpf_link") ++links;
          for (pid_t p : pids) n += target == "/proc/" + std::to_string(p) + "/mem";
        }
        closedir(d);
      }
      if (links == 0) n = 0;
    } else {
      for (pid_t p : pids) n += !untraced(p);
    }
    if (n >= pids.size()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace hearth::testing_support::tree
