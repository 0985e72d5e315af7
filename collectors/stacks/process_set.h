// The processes one `hearth stacks` run samples, each with its own Sampler. With the bpf
// method a set of several processes shares one capture (BpfCaptureOptions::set): one iterator
// over the host's tasks, filtered in the kernel by the set's pids, so a round is one pass for
// the whole set, whatever its size; each member then stops, alone, its threads that were on a
// CPU. With ptrace (or where the set's capture cannot be loaded) each process has its own
// session (or iterator link) and a round samples them one after another. Either way each
// process is its own stop window and no two processes are ever stopped at once.
// A selection that grows (--children, --comm) looks at /proc again before a round: before every
// round with --comm or ptrace; with --children over the shared capture only when its pass saw
// a new child of the set or a member exit (the pass reports both), so a process forked since is
// found by one round's pass and joins at the next. One that exited is let go (its samples kept,
// nothing of it held), and each is said once (notices()).
// Not thread-safe, like Sampler: ptrace ties the tracees to the thread that attached.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/proc/process_select.h"
#include "collectors/stacks/sampler.h"
#include "collectors/stacks/stack_counts.h"
#include "common/result.h"
#include "formats/timed_samples.h"

namespace hearth::stacks {

struct ProcessSetOptions {
  proc::ProcessSelection selection;
  SamplerOptions sampler;  // for every process (its pid and epoch are set per process)
};

class ProcessSet {
 public:
  // Selects the processes and attaches a Sampler to each (the slow work, before any stop).
  // Fails when the selection matches no process ("no process matches …", errnum ESRCH), or
  // when a process named with -p cannot be attached (the Sampler's one line). A process found
  // by --children or --comm that cannot be attached is left out and said (notices()).
  static Result<ProcessSet> open(const ProcessSetOptions& options);

  ProcessSet(ProcessSet&&) noexcept;
  ProcessSet& operator=(ProcessSet&&) noexcept;
  ~ProcessSet();

  // One round: new processes first (a growing selection), then a sample of each process in
  // turn. Fails when no process is left and none can join (the last process's own error when
  // only one was ever sampled, as Sampler::sample).
  Result<void> sample(Release release = Release::kResume);
  // Sleeps, serving the ptrace sessions' events (Sampler::idle_for) every millisecond; with no
  // session to serve, a signal ends the sleep early.
  Result<void> idle_for(std::chrono::microseconds duration);
  // Sampler::detach() of every process; the first failure is returned.
  Result<void> detach();
  bool holds_target() const;

  // Roots carry the process (AggregateOptions::process_roots): more than one process is, or
  // may be, sampled.
  bool several() const { return several_; }

  // All processes' samples (those that exited included) in COUNTS. Same contract as
  // Sampler::aggregate: the same options every time.
  void aggregate(StackCounts* counts, const AggregateOptions& options);
  // One process without process roots: Sampler::raw_text. Otherwise a header naming every
  // process, then every process's rounds in time order.
  std::string raw_text(const AggregateOptions& options);
  // Every process's samples as timed samples (formats/timed_samples.h), rounds in time order;
  // one process alone keeps its pid and name in the header, a set lists its processes.
  timed_samples::Samples timed(const AggregateOptions& options);

  // Sampler::forget_before over every process (the set's own per-pass figures with them); a
  // process that has exited and has no round left is dropped. Sample times: timed()'s.
  void forget_before(uint64_t time_ns);
  // Sampler::tables summed over the processes held.
  SamplerTables tables() const;
  // Sampler::release_symbols of every live process.
  void release_symbols();
  // Sampler::last_round_matching summed over the live processes' last rounds.
  Sampler::Matching last_round_matching(std::string_view text);
  // The sample time now (ns since the set's epoch: timed()'s time 0), and that of the oldest
  // round held (now_ns() when none is).
  uint64_t now_ns() const;
  uint64_t oldest_round_ns() const;
  // The processes sampled now (those that have not exited), in the order they joined.
  std::vector<pid_t> live_pids() const;
  // Rounds held now (the most any process has): rounds() less those forget_before() dropped.
  size_t rounds_held() const;

  // Lines said since the last call, one per event: "process 1234 (postgres) exited after 37
  // samples", "process 1240 (postgres) joined at sample 12".
  std::vector<std::string> notices();

  // Figures over every process: rounds are the set's; stalls per process per round. A copy of
  // every per-round figure held: for the end of a run, not for each round of a long one.
  SamplerSummary summary() const;
  // The time threads were stopped, over the whole run and every process (those dropped
  // included), µs: SamplerSummary::stall_us_total, without summary()'s copy.
  double stall_us_total() const;
  UnnamedFrames unnamed_frames();
  std::string method() const;  // "bpf", "ptrace", or "bpf and ptrace" (auto fell back for some)
  const std::string& fallback_reason() const;  // the first process's, when auto fell back
  size_t processes() const;                    // sampled at some point
  size_t joined() const;                       // of those, found after open()
  size_t exited() const;                       // of those, let go before the end
  pid_t first_pid() const;
  std::string first_name() const;
  uint64_t rounds() const { return rounds_; }

 private:
  struct Member;
  ProcessSet() = default;
  Result<void> add(pid_t pid, bool named);
  void let_go(Member& m, const std::string& why);
  Result<void> rescan();
  // The shared capture's round: one pass, every member sharing it taking its threads.
  Result<void> shared_round();
  bool rescan_due() const;

  // The set's capture (bpf, several processes): shared by the members whose shares_capture().
  std::shared_ptr<BpfCapture> capture_;
  std::unordered_map<pid_t, Member*> sharing_;  // live members on capture_, by pid
  bool rescan_wanted_ = false;                  // capture_'s pass saw a new child, or a member left
  double capture_load_ms_ = 0;                  // loading capture_'s program (attach time)
  // capture_'s passes, one entry per round: wall, CPU (unwinding in place left out), faults.
  std::vector<double> pass_ms_, pass_cpu_ms_;
  std::vector<uint64_t> pass_faults_;

  ProcessSetOptions options_;
  bool several_ = false;
  bool opened_ = false;  // open() attached its selection: later processes have joined
  std::vector<std::unique_ptr<Member>> members_;  // in the order they joined
  std::vector<std::string> notices_;
  std::string last_error_;
  std::string fallback_;
  uint64_t rounds_ = 0;
  std::chrono::steady_clock::time_point first_round_, last_round_;  // the sampling window
  size_t joined_ = 0, exited_ = 0;
  size_t dropped_ = 0;  // exited members forget_before() left with nothing
  double dropped_stall_us_ = 0;  // their stall_us_total
};

}  // namespace hearth::stacks
