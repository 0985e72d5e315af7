// The stack sampler: rounds of "capture registers and stack tops of every thread", then
// unwinding over the copies and, later, symbolization.
//
// Two ways to capture (CaptureMethod):
// - bpf (the default where the kernel allows it): a BPF task iterator copies, in one pass over
//   the target's threads, the registers and stack top of every thread that is not on a CPU,
//   without stopping or waking it (capture_bpf.h). A thread that has not run since its last
//   copy is counted again with the stack that copy gave, without reading anything. Only the
//   threads that were on a CPU (or ran during their copy) are ptrace-stopped, one at a time,
//   for a copy of their own, and released at once. Nothing is held between rounds.
// - ptrace: every thread is seized at attach; a round interrupts every thread (or one at a
//   time), reads registers and the stack top, resumes. The target is held between rounds.
// Everything else — unwinding, symbolization, names — runs while the target runs.
// Not thread-safe; ptrace ties the tracees to the thread that attached (see ptrace_session.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/stacks/capture_bpf.h"
#include "collectors/stacks/ptrace_session.h"
#include "collectors/stacks/roots.h"
#include "collectors/stacks/stack_counts.h"
#include "collectors/stacks/unnamed_frames.h"
#include "common/result.h"
#include "formats/timed_samples.h"

namespace hearth::stacks {

enum class CaptureMethod : uint8_t {
  kAuto,    // bpf where the kernel and permissions allow it, else ptrace (saying why)
  kBpf,     // bpf or fail
  kPtrace,  // ptrace-stop every thread each round
};

struct SamplerOptions {
  pid_t pid = 0;
  CaptureMethod method = CaptureMethod::kAuto;
  bool one_at_a_time = false;     // ptrace: eu-stack's method: smallest stall, no consistency
  size_t max_frames = 128;        // user frames per stack
  size_t stack_bytes = 32 << 10;  // first stack copy per thread; doubles when a stack needs more
  size_t max_stack_bytes = 1 << 20;
  std::chrono::microseconds stop_timeout{10000};  // threads not stopped by then are skipped
  bool kernel_stacks = true;  // sleeping threads: /proc/PID/task/TID/stack as _[k] frames
  bool read_title = false;    // read the process title each round (AggregateOptions::title_frames)
  std::string symbol_cache;   // on-disk symbol cache directory (symbol_cache.h); "": none
  // Sample times count from here (several samplers of one run share it); default: attach.
  std::optional<std::chrono::steady_clock::time_point> epoch;
  // A process set's capture (BpfCaptureOptions::set), shared by its members: attach() adds the
  // process to it, and the set makes the passes (begin_shared_round() and the rest); method
  // must not be kPtrace. Null: a capture of the sampler's own, as `method` says.
  std::shared_ptr<BpfCapture> shared_capture;
};

// Figures for the summary line and report.json: what the target paid, what we got.
struct SamplerSummary {
  uint64_t rounds = 0;
  uint64_t thread_samples = 0;  // stacks taken (threads × rounds, minus skipped)
  uint64_t skipped = 0;         // threads that did not stop in time (e.g. uninterruptible)
  // ptrace all-stop: thread samples taken alone, after the others (not stopped by the instant's
  // deadline: see PtraceSession::stop_all); counted in thread_samples too.
  uint64_t taken_alone = 0;
  uint64_t truncated = 0;       // stacks that did not unwind to their outermost frame
  size_t threads_seen = 0;
  // How the thread samples were taken (they add up to thread_samples).
  uint64_t copied = 0;   // bpf: copied without a stop
  uint64_t reused = 0;   // bpf: not run since the last copy: counted again, nothing read
  uint64_t stopped = 0;  // ptrace-stopped (every sample with the ptrace method)
  uint64_t execs = 0;    // times the target called execve during the run (maps reloaded)
  // Per round: first interrupt to last resume; one-at-a-time and bpf: the longest per-thread
  // stall (0 when nothing was stopped).
  std::vector<double> round_stall_ms;
  // Per thread per round: its interrupt to its resume; 0 for a thread read without a stop.
  std::vector<double> thread_stall_us;
  // thread_stall_us's sum over the whole run, µs (Sampler::forget_before drops entries of
  // thread_stall_us, never from this).
  double stall_us_total = 0;
  // bpf: per round, the capture's own time (the pass and the stops), ms: hearth's time, not
  // the target's (the target is not stopped by the pass).
  std::vector<double> capture_ms;
  std::vector<double> capture_cpu_ms;  // the same passes' CPU time in hearth's thread
  std::vector<uint64_t> capture_faults;  // the same passes' minor page faults in that thread
  // (capture_ms and capture_cpu_ms leave out the unwinding done during the pass: unwind_ms)
  // Threads skipped, as "TID (NAME) STATE: why", one per thread (the last few rounds' kept).
  std::vector<std::string> skipped_threads;
  // Threads taken alone, as "TID (NAME) STATE: D ms after the others", as skipped_threads.
  std::vector<std::string> alone_threads;
  double elapsed_s = 0;
  // Where hearth's own time went (`--verbose`), wall ms: attaching, step by step (memory,
  // unwinder, symbolizer, capture: the BPF program's load or the ptrace seize, maps: unwind
  // tables and symbol tables of every mapped file, again after an exec or a dlopen), then the
  // rounds' unwinding and the symbolization of their distinct stacks.
  struct Phase {
    std::string what;
    double ms = 0;
  };
  std::vector<Phase> attach_ms;
  double unwind_ms = 0;
  double symbolize_ms = 0;
  size_t stacks_symbolized = 0;
};

// What a sampler's tables hold now, and how many entries were ever added to them: what a long
// run keeps beside what it would keep if forget_before() trimmed nothing.
struct SamplerTables {
  size_t stacks = 0;          // distinct stacks held (with their names, when they were named)
  uint64_t stacks_added = 0;  // distinct stacks added since attach (one trimmed and seen again
                              // counts again)
  size_t names = 0;           // thread names and process titles held
  uint64_t names_added = 0;
};

class Sampler {
 public:
  // Attaches to every thread, reads the maps, loads unwind tables and opens the ELF files:
  // all the slow work happens here, before the first stop.
  static Result<Sampler> attach(const SamplerOptions& options);

  Sampler(Sampler&&) noexcept;
  Sampler& operator=(Sampler&&) noexcept;
  ~Sampler();

  // One round. Fails when the target exited (the rounds so far stay usable). Release::kDetach
  // makes it the last: its stop releases the target (no separate stop to detach); then
  // detach() only deals with threads that did not stop in it.
  Result<void> sample(Release release = Release::kResume);
  // A bpf round over a shared capture (SamplerOptions::shared_capture), the set's pass in the
  // middle: begin_shared_round(), then take_shared() for each thread of this process the pass
  // visits, then end_shared_round(), which stops threads that were on a CPU and ends the round
  // as sample() does. It fails when the process has exited (no live thread in the pass: a
  // zombie, or nothing), and then takes the process's threads out of the program's memory.
  void begin_shared_round();
  void take_shared(const BpfThread& thread);
  Result<void> end_shared_round();
  bool shares_capture() const;

  // Sleeps while serving the target's ptrace events (signals are delivered as usual). Without a
  // ptrace session to serve, a signal ends the sleep early (the caller looks at its flags).
  Result<void> idle_for(std::chrono::microseconds duration);
  // Releases the target now (the destructor does it too), one thread at a time (see
  // PtraceSession::detach()). When some threads could not be stopped (D sleep), fails and keeps
  // holding them: call it again now and then (it never waits for them a second time) to detach
  // those whose stop has landed since; holds_target() says when none is left. The kernel
  // releases the rest when the attaching thread exits.
  // detach() and holds_target() share no data with aggregate(), raw_text() or summary(): the
  // attaching thread may keep releasing while another thread symbolizes.
  Result<void> detach();
  bool holds_target() const;

  // Adds the rounds not aggregated yet to COUNTS (symbolizing their stacks). Call with the
  // same options and COUNTS every time (COUNTS empty the first time); works before and after
  // detach(). Roots name threads by their role (thread_roles.h), which can change while the
  // samples come in (a thread's most frequent entry function): then COUNTS is emptied and
  // every round is added again, so that one thread has one root.
  void aggregate(StackCounts* counts, const AggregateOptions& options);
  // Every thread sample as a line: "TIME_NS\tTID\tSTATE\tROOT;…;LEAF" (time since the first
  // round, ns), with a #-header: the raw samples format (formats/raw_samples.h). The data a
  // timeline or heatmap needs. Roots as aggregate()'s.
  std::string raw_text(const AggregateOptions& options);
  // The same rows without the header, one string per round (its "# round" comment, then its
  // rows): for a profile of several processes, whose rounds are interleaved by time.
  struct RawRound {
    uint64_t time_ns = 0;
    std::string text;
  };
  std::vector<RawRound> raw_rounds(const AggregateOptions& options);
  // Every round as gdb's `thread apply all bt` of the process prints it (sampler_gdb.cpp): the
  // text poor-man's-profiler scripts parse. One string per round, as raw_rounds'.
  std::vector<RawRound> gdb_rounds();
  // The timed samples (formats/timed_samples.h) of the rounds so far: how many there are, the
  // time of one (as raw_rounds'), and round ROUND added to BUILDER (its threads with their roots
  // as aggregate()'s and their frames; the state is the sample's, not a frame: state_frames is
  // ignored). A set adds its processes' rounds in time order into one builder.
  size_t round_count() const;
  uint64_t round_time_ns(size_t round) const;
  // STACK_IDS: this sampler's stack ids -> BUILDER's (Builder::kNoStack: not interned yet),
  // kept by the caller between calls with one builder, so each stack is joined once.
  void add_timed_round(size_t round, const AggregateOptions& options,
                       timed_samples::Builder* builder, std::vector<uint32_t>* stack_ids);
  // A flight recorder's ring (`hearth watch`): forgets the rounds taken before TIME_NS (sample
  // time, as round_time_ns) and their per-round figures (SamplerSummary's stalls and capture
  // costs; its totals stay the run's), so that memory holds a bounded span however long the run.
  // Rounds already aggregate()d stay in the caller's counts. Returns how many were forgotten.
  // What only forgotten rounds used goes too, once it is as much as what is held: distinct
  // stacks (with their names, entries, match texts), thread names and titles, the entry counts
  // of threads gone; the stack ids of what is held change then (a caller keeps none across it).
  size_t forget_before(uint64_t time_ns);
  SamplerTables tables() const;
  // The last round's thread samples, and of those the ones whose stack has a frame containing
  // TEXT (`stack:` rules). Frames as the symbol tables name them (Symbolizer::function_name),
  // with the kernel's: aggregate()'s frames less the inlined functions and the tail calls, so
  // that no DWARF is read to match; each distinct stack is named once. {0, 0} before the first
  // round.
  struct Matching {
    size_t matching = 0, samples = 0;
  };
  Matching last_round_matching(std::string_view text);
  // Lets go of what symbolization has read so far (debug information, symbol tables: see
  // Impl::release_symbols); names already given are kept. For a long-running sampler after a
  // one-off full symbolization (a report), so that it does not keep tens of MB it may not need
  // again. Any later symbolization reads what it needs again.
  void release_symbols();
  // Time 0 of the samples (the epoch) on CLOCK_MONOTONIC and CLOCK_REALTIME, ns.
  uint64_t epoch_mono_ns() const;
  uint64_t epoch_real_ns() const;

  const SamplerSummary& summary() const;
  UnnamedFrames unnamed_frames();
  // "bpf" or "ptrace"; and, when auto fell back to ptrace, why bpf could not be used.
  std::string_view method() const;
  const std::string& fallback_reason() const;
  pid_t pid() const;
  std::string process_name() const;

 private:
  struct Impl;
  explicit Sampler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::stacks
