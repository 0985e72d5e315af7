// Thread roles: what a thread is for, for threads the process never named. Many servers leave
// every thread with the process's own name (31 threads, all `mariadbd`); the function each
// was started with (`handle_one_connection`, `tpool::thread_pool_generic::worker_main`) tells
// them apart. The rule (README, "The root frame"):
// - a thread whose name differs from the process's (the main thread's comm) was named by the
//   process (pthread_setname_np, prctl): its role is its name, never changed;
// - the main thread's role is its name (its entry is always main);
// - any other thread's role is `NAME:ENTRY`, ENTRY the most frequent entry function over its
//   samples (ties: the bytewise first), or NAME alone when no sample has one.
// The entry function of one stack is its first frame, root first, after the thread-start
// trampolines (clone, start_thread, std::thread's _State_impl::_M_run, …) that has a name
// (not `[module+0x…]`, not `[unknown]`), as a function name without return type, parameter
// list or suffix (`_[i]`).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace hearth::stacks {

// A frame name as a function name: no `_[i]`/`_[j]` suffix, no return type, no parameter
// list, qualifiers or `[clone .cold]`: "void ns::Pool<int>::run(int) const_[i]" ->
// "ns::Pool<int>::run". Names that are not C++ come back without their suffix only.
std::string function_of(std::string_view frame);

// FRAME (as the sampler names frames) is code that starts threads or calls their function:
// clone, start_thread, glibc's and libstdc++'s std::thread plumbing, boost::thread's, libc++'s.
bool is_thread_start(std::string_view frame);

// The entry function (as function_of) of one stack, FRAMES root first as the sampler writes
// them (user frames, then kernel frames `_[k]`); empty when no user frame after the
// trampolines has a name, or the stack did not unwind to its root (`[truncated]`).
std::string entry_function(std::span<const std::string> frames);

// The role of a thread named NAME (its comm) in a process named PROCESS_NAME, whose most
// frequent entry function is ENTRY (may be empty). MAIN_THREAD: the thread is the process's
// main thread (tid == pid).
std::string thread_role(std::string_view name, std::string_view process_name, bool main_thread,
                        std::string_view entry);

// Entry functions per thread, counted over samples.
class EntryTally {
 public:
  // COUNT samples of TID whose stack's entry function is ENTRY (ignored when empty).
  void add(pid_t tid, const std::string& entry, uint64_t count = 1);
  // TID's most frequent entry (ties: the bytewise first); empty when it has none.
  std::string entry_of(pid_t tid) const;
  // Forgets every thread KEEP says no to (threads gone, with no sample left).
  template <typename Keep>
  void forget_threads_unless(Keep keep) {
    std::erase_if(counts_, [&keep](const auto& entry) { return !keep(entry.first); });
  }

 private:
  std::unordered_map<pid_t, std::map<std::string, uint64_t>> counts_;
};

}  // namespace hearth::stacks
