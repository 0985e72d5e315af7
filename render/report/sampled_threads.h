// The threads a stacks.folded sampled, from its root frames: each thread's name, tid and samples
// and, when the roots carry the process (several processes recorded: `[postgres pid=26032]`,
// with the threads of a multi-threaded process under it), its process. What the report's
// threads table and scheduler charts group and name threads by.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/profile/frame_tree.h"

namespace hearth::report {

struct SampledThread {
  std::string name;     // the thread's name (its role: thread_roles.h), as the root says it
  int64_t tid = -1;     // -1: merged by name, or another tool's root without one
  std::string root;     // the frame naming the thread in the flamegraph (for its search)
  double samples = 0;   // stacks under that root
  std::string process;  // the process's name; "" when the roots carry no process
  int64_t pid = -1;     // -1: the roots carry no process
};

// The threads under TREE's root frames, in the order of the roots. Under a process root: the
// thread roots of a multi-threaded process (also under a title frame), or the process's one
// thread (tid = pid, named as the process, root the process root). The frame names are read by
// formats/folded.h, whose writer they come from.
std::vector<SampledThread> sampled_threads(const profile::FrameTree& tree);

// What the scheduler charts call thread T: its name; with a process, "PROCESS PID: NAME" for a
// thread of a multi-threaded process, and just the name for a single-threaded process (its tid
// is its pid, which the chart shows beside it).
std::string chart_name(const SampledThread& t);

// "PROCESS PID: THREAD" for a thread the scheduler saw but the sampler did not.
std::string chart_name(const std::string& process, int64_t pid, const std::string& thread);

}  // namespace hearth::report
