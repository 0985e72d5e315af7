// Follows the threads (and, with --inherit, child processes) a target creates while event
// filters select its tasks (task_filter.h): the kernel follows forks only for the pid list
// (options/event-fork).
//
// A second private instance ("hearth-<pid>-<hex>-fork") records task_newtask of every task (a
// ForkEvent: parent, child, and whether the child is a thread or a new process, from its clone
// flags) — forks are rare next to switches — and a thread of ours waits in poll() on its per-CPU
// trace_pipe_raw files (buffer_percent 0: woken by the first event), decodes each page and hands
// the forks to the callback at once, on that thread. The callback adds the children the main
// instance should follow; they are selected within a fraction of a millisecond of the fork. A
// new thread's events before that are missed; SchedAnalysis starts it at its fork (which the
// main instance records, filtered on the parent) and places its first switch-in from there.
//
// The destructor stops the thread, handing over the forks still in the buffer, and removes the
// instance; stale instances of killed runs are removed like the main one's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sched/events.h"
#include "common/result.h"

namespace hearth::sched {

class ForkWatcher {
 public:
  using OnForks = std::function<void(const std::vector<ForkEvent>&)>;

  // Creates the instance, starts tracing in it and the thread.
  static Result<std::unique_ptr<ForkWatcher>> start(OnForks on_forks);
  ~ForkWatcher();
  ForkWatcher(const ForkWatcher&) = delete;
  ForkWatcher& operator=(const ForkWatcher&) = delete;

  // Stops the thread (after handing over what the buffer still holds); idempotent.
  void stop();

  uint64_t forks_seen() const;
  // Why the thread ended before stop() (an exception from the callback or the decoder, caught
  // there rather than ending the process), or "".
  std::string failure() const;

 private:
  struct Impl;
  explicit ForkWatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::sched
