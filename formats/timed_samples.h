// The timed stack samples `hearth record` writes (DIR/stacks.samples.txt) and `hearth stacks
// --samples FILE`: every thread's state and stack at every sample, with its time, in a text whose
// size grows with the distinct stacks and with the changes between samples, not with the samples
// (README, "Timed samples"). The data the heatmap, the moment view and replay read. The model,
// its one writer (the builder + format) and its one reader; and the conversion from the raw
// samples of `hearth stacks --raw`, so the time tools read those too. Thread-compatible.
//
//   # hearth samples 1	pid=4242	name=app	mono_ns=81234000000000
//   real_ns=1795762269000000000 # lines: s ID FRAMES | t TID PID ROOT | r TIME_NS PID copied=
//   reused= stopped= stall_ns= | TID STATE STACK_ID | - TID s	0
//   start_thread;app::Pool::run();futex_wait_[k] t	4243	4242	[worker-1 tid=4243] r	0
//   4242	copied=3	reused=5	stopped=1	stall_ns=41000 4243	S	0 r
//   100000000	4242	copied=0	reused=8	stopped=0	stall_ns=0 r	200000000
//   4242	copied=1	reused=7	stopped=0	stall_ns=0 -	4243
//
// - `s ID FRAMES`: stack ID (0, 1, 2, … in file order, each before its first use): the frames
//   below the thread's root, root side first, ';'-separated, folded-safe; may be empty.
// - `t TID PID ROOT`: from here on thread TID (of process PID) has the root frames ROOT (one or
//   more frames: `[NAME tid=TID]`; in a profile of several processes `[NAME pid=PID]`, maybe a
//   title frame, then the thread root). A thread whose name or role changes gets a new `t` line.
// - `r TIME_NS PID …`: a sample of process PID at TIME_NS (since time 0, see Samples), then how
//   its stacks were taken (as the raw samples' `# round`). A line `e` before it: the first sample
//   after the target called execve.
// - `TID STATE STACK_ID`: thread TID's state (R S D T t X Z P I …, as /proc shows it) and stack
//   changed, or it was sampled for the first time (or the first time since a `-` line).
// - `- TID`: TID is not in this sample nor in the next ones until a line of its own brings it
//   back (it exited, or could not be stopped).
// A sample of process PID holds every thread of PID that has had a line and no `-` line since:
// a thread whose state and stack did not change has no line. Other `#` lines and blank lines
// are skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "formats/raw_samples.h"

namespace hearth::timed_samples {

// Version 2 added `title=` to the `# process` lines; version 1 files (no titles) still read.
inline constexpr int kVersion = 2;
inline constexpr std::string_view kMagic = "# hearth samples ";

struct Process {
  int64_t pid = 0;
  std::string name;
  // Its title (/proc/PID/cmdline as ps shows it: "postgres: checkpointer"), the one seen at most
  // samples (ties: the later); "" when not known (a version 1 file, a process never read).
  std::string title;
};

// A thread under one root: a tid whose root changes (a rename) is a second Thread.
struct Thread {
  int64_t tid = 0;
  int64_t pid = 0;
  std::string root;  // the root frames, ';'-separated: "[worker-1 tid=4243]"
};

// A change at a sample: thread THREAD's state and stack from this sample on, or kGone.
inline constexpr char kGone = '-';
struct Change {
  uint32_t thread = 0;  // index into Samples::threads
  uint32_t stack = 0;   // index into Samples::stacks (unused when state is kGone)
  char state = '?';     // R S D …, or kGone: the tid leaves the sample's process's thread set
};

// One sample of one process: its time and how its stacks were taken.
struct Round {
  uint64_t time_ns = 0;  // since time 0; does not decrease along the file
  int64_t pid = 0;
  uint64_t copied = 0, reused = 0, stopped = 0;  // as raw_samples::Round
  uint64_t stall_ns = 0;
  bool after_exec = false;
  uint32_t first_change = 0;  // its changes: changes[first_change, next round's first_change)
};

struct Samples {
  int version = kVersion;
  int64_t pid = 0;                 // the process of a one-process file; 0 for a set
  std::string name;                // its name
  std::vector<Process> processes;  // a set's processes (`# process` lines); empty for one
  // Time 0 on two clocks, so other recordings line up: CLOCK_MONOTONIC ns (the scheduler
  // tracer's trace clock) and CLOCK_REALTIME ns (wall-clock time). 0: unknown (a converted raw
  // samples file).
  uint64_t mono_ns = 0;
  uint64_t real_ns = 0;
  std::vector<std::string> stacks;  // frames below the root, ';'-joined
  std::vector<Thread> threads;
  std::vector<Round> rounds;
  std::vector<Change> changes;
  // Reading a damaged or truncated file: the first problem, "PATH:LINE: MESSAGE", and what came
  // before it is kept (the rounds up to the last whole one). Empty for a sound file.
  std::string damage;
};

// One thread's sample, as expand() hands them out.
struct Sample {
  uint32_t thread = 0;
  uint32_t stack = 0;
  char state = '?';
  uint32_t since_round = 0;  // the round from which this thread had this state and stack
};

// Calls FN(round_index, samples) for every round in order, with every thread of that round's
// process (ascending tid). SAMPLES is valid during the call only.
void expand(const Samples& samples,
            const std::function<void(size_t round, std::span<const Sample> threads)>& fn);

// The moment nearest TIME_NS (since time 0): for each process, its sample nearest to TIME_NS
// (the earlier one on a tie), with every thread of it as expand() gives them. What the moment
// view shows: one sample per process, not a mix of samples.
struct Moment {
  std::vector<size_t> rounds;   // the samples chosen, one per process, ascending
  std::vector<Sample> threads;  // theirs, process by process in the order of ROUNDS
};
Moment moment(const Samples& samples, uint64_t time_ns);

// --- Writing ---

// Builds Samples from whole samples, one process's sample at a time, finding the changes.
class Builder {
 public:
  Builder(int64_t pid, std::string name, std::vector<Process> processes, uint64_t mono_ns,
          uint64_t real_ns);

  static constexpr uint32_t kNoStack = ~uint32_t{0};
  struct Entry {
    int64_t tid = 0;
    std::string_view root;    // root frames
    std::string_view frames;  // the rest, ';'-joined (unless STACK is set)
    char state = '?';
    uint32_t stack = kNoStack;  // the frames' id from intern_stack(): FRAMES is not looked at
  };
  // The id of stack FRAMES, added if new: a caller that knows which of its samples share a stack
  // interns it once, not once per sample.
  uint32_t intern_stack(std::string_view frames);
  // One sample of process ROUND.pid holding THREADS (every thread sampled; any order, one entry
  // per tid). Rounds must come in time order. ROUND.first_change is set here.
  void add(Round round, std::span<const Entry> threads);

  const Samples& samples() const { return samples_; }
  Samples take() { return std::move(samples_); }

 private:
  Samples samples_;
  std::unordered_map<std::string, uint32_t> stack_ids_;
  std::unordered_map<std::string, uint32_t> thread_ids_;  // key: tid '\t' pid '\t' root
  std::vector<Entry> sorted_;
  struct Current {
    uint32_t thread;
    uint32_t stack;
    char state;
  };
  // per pid: tid -> its last sample
  std::unordered_map<int64_t, std::unordered_map<int64_t, Current>> current_;
};

// The whole file: header, then the lines in order (stack and thread lines right before their
// first use). Deterministic: the same Samples give the same bytes.
std::string format(const Samples& samples);

// --- Reading ---

// Parses TEXT, the whole contents of a timed samples file; PATH names it in messages. A bad
// first line (not `# hearth samples 1`) is an error; a problem on a later line ends the reading
// there: Samples::damage says where, and what came before it is kept. Checked: ids declared
// before use and in order, tids and pids plain numbers <= 4194304, times not decreasing, a
// state one printable byte, no control bytes in frames. Garbage gives an error, never a crash.
Result<Samples> parse(std::string_view text, const std::string& path);

// Reads the file at PATH: a timed samples file, or a raw samples file (`# hearth stacks raw`),
// converted (from_raw). Errors: "cannot read PATH: REASON", or as parse().
Result<Samples> read(const std::string& path);

// Only the header of the file at PATH (its `#` lines up to the first other line): the process
// or processes and time 0, no samples; what a reader that needs only the processes' names and
// titles reads of a file of any size. Errors as read().
Result<Samples> read_header(const std::string& path);

// The raw samples of `hearth stacks --raw` as timed samples: each stack's root frames (a
// process root, a title frame, the thread root, as raw_samples.h describes) split from the rest.
Samples from_raw(const raw_samples::RawFile& raw);

}  // namespace hearth::timed_samples
