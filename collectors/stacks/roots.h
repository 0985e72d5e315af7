// How a sample's first frames are named: the root (the thread, or the process and then its
// thread when several processes are sampled) and the frames under it that are not code (the
// process title, the thread's scheduler state). The rule is the README's ("The root frame").
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace hearth::stacks {

struct AggregateOptions {
  bool merge_threads = false;  // root "[NAME]" instead of "[NAME tid=TID]" (and "[NAME]" for a
                               // process instead of "[NAME pid=PID]")
  bool state_frames = false;   // a frame like "[S sleeping]" under the thread
  // Roots name threads by their comm only, not by their role (thread_roles.h).
  bool kernel_names = false;
  // Roots carry the process: "[NAME pid=PID]", with the thread roots under it when the process
  // has more than one thread. Set when more than one process is (or may be) sampled.
  bool process_roots = false;
  // The process title at the sample, as a frame right under the process root: "[postgres:
  // bench bench [local] UPDATE waiting]" (needs process_roots and SamplerOptions::read_title).
  bool title_frames = false;
};

// The parts a sample's root is made of.
struct RootParts {
  std::string_view process;  // the process's name (its main thread's comm)
  pid_t pid = 0;
  std::string_view title;   // the process title at the sample ("": the process name stands in)
  std::string_view thread;  // the thread's name (its role, thread_roles.h)
  pid_t tid = 0;
  bool multi_threaded = false;  // the process has had more than one thread
};

// The root frames, ';'-joined: "[THREAD tid=TID]"; with process_roots "[PROCESS pid=PID]",
// then "[TITLE]" with title_frames, then "[THREAD tid=TID]" when the process is multi-threaded.
std::string sample_root(const RootParts& parts, const AggregateOptions& options);

// "[S sleeping]", "[R running]", … for a /proc state letter.
std::string_view state_frame(char state);

}  // namespace hearth::stacks
