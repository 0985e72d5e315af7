// The stop-free capture: loads the BPF task iterator of capture.bpf.c (embedded in hearth at
// build time), attaches it to one process (or to a set of them: BpfCaptureOptions::set), and
// runs passes over its threads. A pass stops and
// wakes nothing: for every thread that is not on a CPU it yields the registers the kernel saved
// on the thread's last entry into the kernel, the top of its user stack, its kernel stack and
// its state, all read in that same visit; a thread that ran meanwhile is reported as such.
//
// Owns kernel objects only through file descriptors (program, maps, iterator link): nothing is
// pinned, so the kernel frees all of it when hearth exits, however it exits.
// One BpfCapture per target, or one per process set; captures of several targets may share one
// loaded program, and their passes then take turns (a pass holds the program's lock).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "common/result.h"

namespace hearth::stacks {

// One thread as a pass saw it. The spans point into the capture's buffers: valid during the
// visit only.
struct BpfThread {
  pid_t tid = 0;
  pid_t tgid = 0;         // its process
  pid_t parent_tgid = 0;  // its process's parent
  uint32_t flags = 0;     // hearth_capture_flags (capture_abi.h)
  char state = '?';       // as /proc shows it: R S D T t X Z P I
  std::string_view comm;
  uint64_t switches = 0;    // voluntary + involuntary context switches so far
  uint64_t start_time = 0;  // ns after boot
  uint64_t exec_id = 0;     // grows with each execve of the process
  // The address space's change count (has_mm_seq() only): it moves whenever the mappings may
  // have changed; odd while they are being changed. 0 for a child() report.
  uint64_t mm_seq = 0;
  const user_regs_struct* regs = nullptr;  // only with kCopied (fs_base and later fields zero)
  uint64_t copy_base = 0;                  // target address of stack[0]
  std::span<const uint8_t> stack;          // only with kCopied
  std::span<const uint64_t> kernel;        // kernel return addresses, leaf first (may be empty)

  bool copied() const;     // registers and stack copied while the thread did not run
  bool unchanged() const;  // has not run since its last copy: reuse what that copy gave
  bool on_cpu() const;     // was on a CPU, or ran during the copy: needs a stop to be read
  bool exiting() const;    // zombie, dead or kernel thread: nothing to read
  bool has_mm_seq() const;
  // A set's pass with BpfCaptureOptions::report_children: not a thread of the set but the main
  // thread of a process whose parent is in the set (tid, tgid, parent_tgid and start_time only).
  bool child() const;
};

struct BpfCaptureOptions {
  pid_t pid = 0;  // the process whose threads a pass visits (not with `set`)
  // A process set's capture: one iterator over the host's tasks, taking those of the processes
  // added with add_process() (a hash lookup per task: the other tasks cost almost nothing), so
  // one pass covers the whole set. Shares no program with single-process captures.
  bool set = false;
  bool report_children = false;   // set: also report new children of the set (BpfThread::child)
  size_t stack_bytes = 32 << 10;  // first copy per thread; see set_stack_bytes()
  bool kernel_stacks = true;      // kernel stacks of sleeping threads
  size_t threads_hint = 0;        // threads expected: sizes the maps
};

class BpfCapture {
 public:
  // Loads and attaches the program for PID's threads. Fails with one line saying why the
  // kernel or the permissions don't allow it (the caller falls back to ptrace), e.g. "not
  // permitted: needs root, or CAP_BPF and CAP_PERFMON" or "this kernel (5.10.0) has no
  // sleepable task iterator (5.18 or later)".
  static Result<BpfCapture> open(const BpfCaptureOptions& options);

  BpfCapture(BpfCapture&&) noexcept;
  BpfCapture& operator=(BpfCapture&&) noexcept;
  BpfCapture(const BpfCapture&) = delete;
  BpfCapture& operator=(const BpfCapture&) = delete;
  ~BpfCapture();

  // One pass over the target's threads, calling VISIT for each in the kernel's thread order.
  // Threads the page arena had no room for are copied in further passes within this call. Returns
  // how many threads were visited (0: the process is gone). Fails only when the kernel refuses.
  using Visit = std::function<void(const BpfThread&)>;
  Result<size_t> pass(const Visit& visit);

  // A set's processes (BpfCaptureOptions::set): PID's threads are in the passes from the next
  // one on, or no more. Fails only when the kernel refuses the map update (full: 65,536).
  Result<void> add_process(pid_t pid);
  void remove_process(pid_t pid);

  // TID's next copies take BYTES (whole pages, at most 1 MiB) and TID is copied again in the
  // next pass even if it has not run (its stack was deeper than the last copy).
  void set_stack_bytes(pid_t tid, size_t bytes);
  // TID is copied again in the next pass even if it has not run.
  void forget(pid_t tid);

  size_t arena_bytes() const;  // the kernel memory the stack pages take

  // Programs this hearth process has loaded so far: captures with the same settings share one
  // (a new target attaches its own iterator link to it), as long as one of them is open.
  static size_t programs_loaded();

 private:
  struct Impl;
  explicit BpfCapture(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The /proc state letter for a task's __state | exit_state bits (fs/proc/array.c's mapping).
char task_state_letter(uint32_t state);

}  // namespace hearth::stacks
