// The sampler's state and the steps of a round, shared by its files (internal to
// collectors/stacks; users include sampler.h):
// - sampler.cpp: attaching, the round loop's entry points, and what every round does with a
//   thread's capture (interning, unwinding, the round's bookkeeping);
// - sampler_ptrace.cpp: the ptrace method (every thread stopped, one window a round);
// - sampler_bpf.cpp: the bpf method (a task-iterator pass; stops only for threads on a CPU);
// - sampler_output.cpp: symbolization on demand and the outputs (stack counts, raw and timed
//   samples, the unnamed-frames hint).
// A new capture method adds a round_METHOD() in a file of its own, beside these two.
#pragma once

#include <sys/user.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectors/proc/maps.h"
#include "collectors/stacks/capture_bpf.h"
#include "collectors/stacks/kernel_symbols.h"
#include "collectors/stacks/ptrace_session.h"
#include "collectors/stacks/raw_stack.h"
#include "collectors/stacks/remote_memory.h"
#include "collectors/stacks/sampler.h"
#include "collectors/stacks/symbolizer.h"
#include "collectors/stacks/thread_roles.h"
#include "collectors/stacks/unwinder.h"

namespace hearth::stacks {
namespace sampling {

using Clock = std::chrono::steady_clock;

struct ThreadSample {
  pid_t tid;
  uint32_t name;  // index into Impl::names
  char state;
  uint32_t stack;  // index into Impl::stacks
};

inline constexpr uint32_t kNoTitle = ~uint32_t{0};

struct Round {
  uint64_t time_ns;           // since the first round (or SamplerOptions::epoch)
  uint32_t title = kNoTitle;  // the process title then (an index into Impl::names)
  std::vector<ThreadSample> threads;
  uint32_t copied = 0, reused = 0, stopped = 0;
  uint64_t stall_ns = 0;  // the round's stall (see SamplerSummary::round_stall_ms)
};

// Per-thread buffers, reused every round so the stop window allocates nothing.
struct Slot {
  user_regs_struct regs{};
  StackCopy copy;  // ptrace stops only: a bpf copy is unwound where it lies, in the arena
  size_t stack_bytes = 0;
  bool visited = false;  // regs and copy hold this round's capture
  bool stopped = false;  // bpf: the capture needed a ptrace stop (it was on a CPU)
  bool reuse = false;    // bpf: not run since the last copy: count last_stack again
  bool seen = false;     // bpf: in this round's pass
  bool unwound = false;  // bpf: last_stack is this round's copy, unwound
  char state = '?';
  uint32_t name = 0;
  std::string comm;                  // bpf: the name as the pass read it
  std::vector<std::string> kernel;   // ptrace: from /proc
  std::vector<uint64_t> kernel_ips;  // bpf: from the pass
  int64_t last_stack = -1;           // bpf: stack id of its last copy
};

}  // namespace sampling

struct Sampler::Impl {
  using Clock = sampling::Clock;
  using ThreadSample = sampling::ThreadSample;
  using Round = sampling::Round;
  using Slot = sampling::Slot;
  static constexpr uint32_t kNoTitle = sampling::kNoTitle;

  SamplerOptions options;
  // The bpf method (else session): this sampler's own capture, or a process set's, shared by its
  // members (shared_capture: the set runs the passes, calling begin_pass/take_in_pass/end_pass).
  std::shared_ptr<BpfCapture> bpf;
  bool shared_capture = false;
  std::string fallback;                            // why auto did not use bpf
  std::shared_ptr<KernelSymbols> kallsyms;  // bpf: kernel frame names, on first use
  bool kallsyms_tried = false;
  std::optional<PtraceSession> session;
  std::unique_ptr<RemoteMemory> memory;  // stable address: the Unwinder keeps a pointer
  std::optional<Unwinder> unwinder;
  std::optional<Symbolizer> symbolizer;
  uint64_t maps_fingerprint = 0;
  // bpf: the address space's change count (BpfThread::mm_seq) when the maps were last found
  // current; while a pass shows the same even count, /proc/PID/maps is not read again.
  static constexpr uint64_t kNoMmSeq = ~uint64_t{0};
  uint64_t maps_seq = kNoMmSeq;
  uint64_t leader_start_ns = 0;  // shared capture: the leader's start_time (0: not seen yet)
  bool first_shared_pass_checked = false;  // shared: /proc's start time compared once
  // The state of the bpf round being taken (begin_pass to end_pass).
  struct Pass {
    Clock::time_point start;
    double cpu_start = 0;
    long faults_start = 0;
    std::vector<pid_t> to_stop, unreadable, deeper;
    uint64_t exec_id = 0;
    size_t unwound_before_exec = 0;  // copies unwound before the leader showed a new image
    Result<void> reload;             // an exec's or a mapping change's reload, if it failed
    bool maps_checked = false;       // the maps were checked against mm_seq in this pass
    size_t visited = 0;              // this process's threads the pass visited
    size_t live = 0;                 // of which not exiting
    bool leader_reused = false;      // shared: the leader's start_time changed (a new process)
  };
  Pass pass;
  uint64_t start_ticks = 0;  // the target's start time: tells its exit from a reused PID
  static constexpr uint64_t kNoExecId = ~uint64_t{0};
  uint64_t leader_exec_id = kNoExecId;  // bpf: the leader's self_exec_id at the last pass
  std::vector<size_t> exec_rounds;      // rounds taken first after an execve
  bool reopen_pending = false;          // ptrace: an execve was seen; reopen before the next round
  std::string process_name;
  std::unordered_map<pid_t, Slot> slots;
  std::vector<std::string> names;
  std::unordered_map<std::string, uint32_t> name_ids;
  std::vector<RawStack> stacks;
  std::unordered_map<std::string, uint32_t> stack_ids;
  std::vector<std::vector<std::string>> symbolized;  // per stack id, root first; lazily
  // Per stack id, lazily: its frames as the symbol tables name them (match_text_of()).
  std::vector<std::string> match_texts;
  // The code mappings (executable, of a file or the vDSO) the symbolizer was given last.
  std::vector<proc::Mapping> code_maps;
  std::string exe_path;  // the executable's path (/proc/PID/exe) when the maps were read
  std::vector<Round> rounds;
  uint64_t stacks_added = 0, names_added = 0;    // SamplerTables
  size_t trim_stacks_at = 0, trim_names_at = 0;  // trim_tables() looks at these sizes
  size_t aggregated = 0;  // rounds already added by aggregate()
  // Thread roles (thread_roles.h): entry functions per thread over the rounds tallied so far,
  // each stack's entry (computed once), and the entry each thread's root had when aggregate()
  // added its samples (a change makes it add every round again, under the new roots).
  EntryTally entries;
  size_t tallied = 0;
  std::vector<std::string> stack_entry;
  std::vector<uint8_t> stack_entry_known;
  std::unordered_map<pid_t, std::string> entries_aggregated;
  bool multi_aggregated = false;  // process roots: the added samples have thread roots under it
  Clock::time_point start;
  SamplerSummary summary;
  // Scratch reused by every unwind: a warm round allocates nothing for them.
  UnwindStatus unwind_status;
  std::vector<uint64_t> unwind_ips;
  double pass_unwind_ms = 0;      // wall time the current pass spent unwinding in place
  double pass_unwind_cpu_ms = 0;  // and CPU time

  // --- Every method (sampler.cpp) ---

  uint32_t intern_name(const std::string& n);

  uint32_t intern_stack(RawStack&& s);

  // After rounds were forgotten: drops the stacks and names no held round or thread slot uses,
  // once they are as many as those held (so the work is paid once per as many entries), and the
  // entry counts of threads gone; renumbers what stays. (sampler_output.cpp)
  void trim_tables();

  // Reads the maps; loads the unwind and symbol tables of what changed (timed in attach_ms).
  // When code is unmapped, the stacks taken so far that ran in it are named first (full
  // symbolization: their names would be gone); nothing is named when no code mapping changed
  // (a heap, a thread's stack, a file mapped for reading).
  Result<void> load_maps();

  // A fresh Symbolizer over the current maps in place of the one used so far, which lets go of
  // everything it read (libdw's decompressed DWARF: tens of MB for libc). Names already given
  // stay (symbolized, and the process's shared names); the old one's are saved to the on-disk
  // cache. Kept as it is when the maps cannot be read (the target has exited).
  void release_symbols();

  // Adds MS to the summary's attach_ms entry WHAT (made at its first use).
  void add_phase(const char* what, double ms);

  // After an execve the target has a new address space: /proc/PID/mem opened before reads the
  // old one (nothing), so open it again (same RemoteMemory object: the unwinder points to it),
  // then load the new maps.
  Result<void> reopen_after_exec();

  // The stop window's work for one thread: registers and the top of its stack.
  // STATE: the thread's at the moment of the stop (PtraceSession::sampled_state).
  void visit(pid_t tid, const user_regs_struct& regs, char state);

  void note_skipped(pid_t tid, const Slot* slot, std::string_view why);

  // Unwinds SLOT's copy into a stack id. *DEEPER: the stack goes on past the copy and the
  // copy may grow (then the next copy is larger).
  uint32_t unwind_slot(Slot& slot, bool* deeper);
  // The same for STACK, a copy that lies elsewhere (the BPF capture's arena), with SLOT's
  // registers and kernel frames.
  uint32_t unwind_stack(Slot& slot, const StackView& stack, bool* deeper);

  void finish_round(const StopStats& stats);

  // Outside the stop window: the process title of the round just taken.
  void note_title();

  // --- The ptrace method (sampler_ptrace.cpp) ---

  // Outside the stop window: new threads, their names and states, kernel stacks, maps.
  Result<void> prepare_round();

  Result<void> round_ptrace(Release release);

  // --- The bpf method (sampler_bpf.cpp) ---

  // Takes one thread of a pass into its slot, and unwinds its copy at once, where it lies (the
  // arena is refilled after the visit). Returns true when the thread needs a stop. *DEEPER:
  // its stack goes on past the copy (copy it again, larger).
  bool take(const BpfThread& t, bool* skip, bool* deeper);

  // Unwinds a copy of the pass in place into SLOT (T.copied()).
  void unwind_in_place(Slot& slot, const BpfThread& t, bool* deeper);

  // A pass over the target's threads: copies of those that did not run, stops for the others.
  Result<void> round_bpf();
  // round_bpf() in three steps, so that a process set makes one pass for all its members:
  // before the pass, each thread of this process the pass visits, and after it.
  Result<void> begin_pass();
  void take_in_pass(const BpfThread& t);
  Result<void> end_pass();
  // In a pass, before this process's first copy is unwound: whether its maps changed (by the
  // mm change count when the kernel gives it, else by /proc/PID/maps), loading them if so.
  void check_maps(const BpfThread& t);

  // Threads that were on a CPU: each is stopped alone, copied and released at once.
  StopStats stop_running(const std::vector<pid_t>& tids);

  void visit_stopped(pid_t tid, const user_regs_struct& regs, char state);

  // Stacks deeper than their copy (DEEPER): threads that have not run since are copied again,
  // larger, in this same round (the same moment, since they did not run), and unwound again,
  // so that one snapshot has them whole.
  Result<void> copy_deeper(std::vector<pid_t> deeper);

  // --- Names and outputs (sampler_output.cpp) ---

  const std::vector<std::string>& frames_of(uint32_t id);
  // sampler_gdb.cpp: the code mapping holding IP (nullptr: none), and thread T's stack as gdb's
  // `bt` prints it, under gdb's "Thread NUMBER (LWP TID "NAME"):" line.
  const proc::Mapping* code_mapping_of(uint64_t ip) const;
  void append_gdb_thread(const ThreadSample& t, size_t number, std::string* out);

  // Stack ID's frames, each on a line of its own ("\nA\nB\n"), as frames_of() names them but from
  // the symbol tables alone (Symbolizer::function_name): no inlined functions, no tail calls, and
  // no DWARF read. What `stack:` rules match (last_round_matching).
  const std::string& match_text_of(uint32_t id);

  std::vector<std::string> sample_frames(const ThreadSample& t, const AggregateOptions& o);

  const std::string& entry_of_stack(uint32_t id);

  // Counts the entry functions of the rounds not tallied yet.
  void tally_entries();

  // The name a sample's root shows: its role, or its name (comm) with kernel_names. ENTRY: the
  // thread's entry function (EntryTally::entry_of).
  std::string root_name(const Round& r, const ThreadSample& t, const AggregateOptions& o,
                        const std::string& entry) const;

  // The process's name is its main thread's, as read in the same round.
  std::string_view process_name_in(const Round& r) const;

  // The root frames of sample T of round R (roots.h).
  std::string root_of(const Round& r, const ThreadSample& t, const AggregateOptions& o,
                      const std::string& entry) const;

  // Entry functions of every thread, as of the rounds tallied: a cache for one pass over them.
  const std::string& current_entry(pid_t tid, std::unordered_map<pid_t, std::string>* cache);
};

}  // namespace hearth::stacks
