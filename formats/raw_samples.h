// The raw samples `hearth stacks --raw FILE` and `hearth record` write (README, "Raw samples"):
// every stack of every sample, one line per thread per sample, in sampling order. The data a
// timeline or a sub-second heatmap needs. The row struct, the one writer (collectors/stacks'
// sampler) and the one reader. Thread-compatible: no shared state.
//
//   # hearth stacks raw 1	pid=4242	name=app
//   # time_ns	tid	state	stack
//   # round 1200345678	copied=3	reused=5	stopped=1	stall_ns=41000
//   1200345678	4243	S	[worker-1 tid=4243];start_thread;app::Pool::run();futex_wait_[k]
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace hearth::raw_samples {

inline constexpr int kRawVersion = 1;
inline constexpr std::string_view kRawMagic = "# hearth stacks raw ";

// One line: a thread in one sample.
struct Sample {
  uint64_t time_ns = 0;  // since sampling began; the threads of one sample share it
  int64_t tid = 0;
  char state = '?';  // the thread's scheduler state then: R S D T t X Z P I, as /proc shows it
  // The frames as in the folded format: root first, ';'-separated, the root naming the thread
  // ("[NAME tid=TID]"); no tab, CR or LF (frames are made folded-safe).
  std::string stack;
};

// The `# round` comment before a sample's lines: how its stacks were taken.
struct Round {
  uint64_t time_ns = 0;     // the time of its samples
  uint64_t copied = 0;      // stacks copied without a stop
  uint64_t reused = 0;      // unchanged since the last copy: counted again
  uint64_t stopped = 0;     // taken in a ptrace stop
  uint64_t stall_ns = 0;    // the longest stall of the sample
  bool after_exec = false;  // the first sample after the target called execve (`# exec` line)
};

// --- Writing: each function appends whole lines, with their line ends, to OUT ---

// The two header lines. NAME is made folded-safe.
void append_header(std::string* out, int64_t pid, std::string_view name);

// A process of a file written for several processes (`hearth stacks --children`, several -p).
struct Process {
  int64_t pid = 0;
  std::string name;
  std::string title;  // as timed_samples::Process::title; "" when not known
};
// The header of such a file: `# hearth stacks raw 1\tprocesses=N`, a line
// `# process\tpid=…\tname=…[\ttitle=…]` per process (name and title made folded-safe; no title
// when none was read), then the columns line. Its samples' roots name the process (README,
// "Folded stacks").
void append_set_header(std::string* out, const std::vector<Process>& processes);
// `# exec …` when the round follows an execve, then `# round …`.
void append_round(std::string* out, const Round& round);
void append_sample(std::string* out, const Sample& sample);

// --- Reading ---

struct RawFile {
  std::string path;
  int version = 0;
  int64_t pid = 0;              // from `pid=` on the first line; 0 when absent
  std::string name;             // from `name=`; empty when absent
  std::vector<Process> processes;  // a file of several processes: its `# process` lines
  std::vector<Round> rounds;    // file order; a file of other writers may have none
  std::vector<Sample> samples;  // file order
  // rounds[i]'s samples start at samples[round_first_sample[i]] (same size as rounds).
  std::vector<size_t> round_first_sample;
};

// Parses TEXT, the whole contents of a raw samples file; PATH only names it in messages
// ("x.raw.txt:7: ..."). Checked: line 1 is `# hearth stacks raw VERSION` (VERSION 1), its
// further fields KEY=VALUE (pid a number; unknown keys ignored); `# round` lines as written;
// every other line has 4 tab-separated fields: time and tid plain decimals (tid <= 4194304),
// a one-letter state, a non-empty stack without control bytes. Other `#` lines and blank lines are skipped, and a
// '\r' before '\n'. Garbage input gives an error, never a crash.
Result<RawFile> parse_raw_samples(std::string_view text, const std::string& path);

// Reads and parses the file at PATH. Errors: "cannot read PATH: REASON", or as above.
Result<RawFile> read_raw_samples(const std::string& path);

}  // namespace hearth::raw_samples
