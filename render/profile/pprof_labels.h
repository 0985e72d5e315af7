// How hearth's root frames map to pprof's per-sample labels, both ways, so that a profile
// written as pprof reads back as the same stacks:
//   "[NAME tid=TID]"   thread=NAME, thread_id=TID
//   "[NAME]"           thread=NAME (threads merged by name)
//   "comm-PID/TID"     thread=comm, pid=PID, thread_id=TID (perf's roots)
//   "[NAME pid=PID]"   process=NAME, pid=PID (several processes in one profile), before the
//                      thread's root of the frame under it, when there is one.
// A root is taken as labels only when the labels write it back exactly; any other root stays a
// frame.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace hearth::profile {

// The labels of a sample (what pprof keeps of its root frames).
struct RootLabels {
  std::string_view process;  // "" when none
  std::string_view thread;   // "" when none (a thread named "" is not one)
  int64_t pid = -1;
  int64_t tid = -1;
  bool empty() const { return process.empty() && thread.empty(); }
};

// How many of FRAMES (root first) the labels stand for (0, 1 or 2), filling *LABELS.
size_t take_root_labels(std::span<const std::string_view> frames, RootLabels* labels);

// The root frames LABELS stand for (what take_root_labels took): *PROCESS_ROOT, then
// *THREAD_ROOT; "" for one that is not there.
void root_frames(const RootLabels& labels, std::string* process_root, std::string* thread_root);

}  // namespace hearth::profile
