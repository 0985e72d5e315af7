// What tracers' stops cost a process, from the scheduler's side: over the threads of a recording
// (SchedModel::states), the share of their time they spent stopped by a tracer (prev_state "t",
// OffState::kStopped) and how long one stop lasted. Under `hearth record` the tracer is hearth's
// own stack sampler, and these are its cost as the target felt it (README, "Report directory").
//
// A stop lasts from the thread's switch-out in "t" to its next switch-in: the ptrace stop itself
// and, after the tracer resumed it, any wait for a CPU. Pure computation, no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "collectors/sched/analysis.h"

namespace hearth::sched {

struct StopCost {
  uint64_t threads = 0;          // threads of the recording
  uint64_t stopped_threads = 0;  // of those, switched out in "t" at least once
  uint64_t stops = 0;            // switch-outs in "t", all threads
  uint64_t stopped_ns = 0;       // time stopped, all threads
  uint64_t thread_ns = 0;        // the threads' time in the window (on CPU + every off state),
                                 // threads × window when every thread lived through it
  // stopped_ns / thread_ns: the share of the threads' time they were stopped; 0 without threads.
  double share = 0;
  // The median over the stopped threads of each one's mean stop (its stopped time / its stops):
  // what one stop typically costs a thread, ns; 0 when no thread was stopped. A thread stopped
  // since before the window with no switch-out in it has no stop to divide by and is left out.
  double median_stop_ns = 0;
};

StopCost stop_cost(const std::vector<ThreadStates>& states);

}  // namespace hearth::sched
