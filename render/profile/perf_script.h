// `perf script` text (the samples of a `perf record -g`) read as stacks, as FlameGraph's
// `stackcollapse-perf.pl --tid --all` folds them, so `perf script | hearth flame -o out.svg` draws
// what `perf script | stackcollapse-perf.pl --tid --all | flamegraph.pl` draws, frame for frame;
// only the root differs: a sample's thread is rooted as hearth roots a thread, "[COMM tid=TID]"
// (formats/folded.h), where stackcollapse-perf.pl writes "COMM-PID/TID".
//
// A sample is a header line ("COMM [PID/]TID [CPU] SECS.FRAC: [PERIOD] EVENT: [payload]"), its
// frames (one a line, innermost first: "\t ADDR SYM+0xOFF (DSO)"), and a blank line. Each
// sample is one folded line, frames outermost first, counted by its PERIOD when the header has
// one, else 1 (as stackcollapse-perf.pl counts). Frames are named as stackcollapse-perf.pl names
// them: the offset and any argument list dropped ("(anonymous namespace)" kept), quotes removed,
// ';' made ':'; an unnamed frame "[DSO's file name]", or "[unknown]" when the DSO is unknown too;
// kernel frames (DSO "[kernel.kallsyms]", "[…]", "…vmlinux") end in "_[k]", JIT frames (DSO
// /tmp/perf-PID.map) in "_[j]", the inlined ones of a "a->b" chain in "_[i]".
//
// One event is drawn: the first one the text names (cycles, cpu-clock, sched:sched_switch …);
// samples of other events are skipped and counted (other_event_samples()). Lines that are none
// of a header, a frame, a blank line or a '#' comment are counted by the caller (add_line
// returns false), and a header line that does not parse drops its sample's frames.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::profile {

struct PerfSampleHeader {
  std::string_view comm;
  int64_t pid = -1;  // -1 when the header names only the thread (or perf printed -1)
  int64_t tid = -1;  // -1 when perf printed -1: a task it no longer knows ("[:-1 tid=-1]")
  int64_t time_ns = -1;    // the sample's time (perf's clock, ns); -1 when the header has none
  uint64_t period = 0;     // 0 when the header has none
  std::string_view event;  // "" when the header names none
};

// Parses a sample's header line; false when LINE is not one (views point into LINE).
bool parse_perf_sample_header(std::string_view line, PerfSampleHeader* header);
// Whether LINE is surely `perf script`'s: a sample header with perf's "SECS.FRAC:" time field and
// an event, or the "# ========" that starts `perf script --header`'s text. What telling the
// format from content looks for.
bool looks_like_perf_script(std::string_view line);

struct PerfScriptStats {
  uint64_t samples = 0;        // of the event drawn
  uint64_t other_samples = 0;  // of other events, skipped
  std::string event, other_event;
};

class PerfScriptFolder {
 public:
  // EMIT gets each sample of the chosen event as a folded line ("[COMM tid=TID];outer;…;leaf
  // COUNT"; "[COMM tid=TID] COUNT" for a sample without frames whose header has a time or an
  // event) and its time (ns, -1 if none).
  explicit PerfScriptFolder(std::function<void(std::string_view, int64_t)> emit);

  // False when LINE is not part of perf script's text (to be counted as ignored).
  bool add_line(std::string_view line);
  void finish();  // the last sample ends with the text even without its blank line

  uint64_t samples() const { return samples_; }  // samples emitted
  uint64_t other_event_samples() const { return other_samples_; }
  const std::string& event() const { return event_; }              // the event drawn
  const std::string& other_event() const { return other_event_; }  // the first one skipped
  // The sample being emitted (valid during EMIT): its root frame ("[COMM tid=TID]", the start of
  // the folded line), its pid (-1 when the header names only the thread) and its tid.
  const std::string& root() const { return root_; }
  int64_t pid() const { return pid_; }
  int64_t tid() const { return tid_; }

 private:
  void add_frame(std::string_view pc, std::string_view sym, std::string_view dso);
  void flush();

  std::function<void(std::string_view, int64_t)> emit_;
  bool in_sample_ = false;    // a header of the chosen event was read; its frames follow
  bool surely_perf_ = false;  // the header has perf's time field or an event
  bool java_ = false;         // the sample's COMM starts with "java": Java names are tidied
  std::string root_;
  uint64_t count_ = 1;
  int64_t time_ns_ = -1;
  int64_t pid_ = -1, tid_ = -1;
  std::vector<std::string> frames_;  // innermost first, as perf prints them
  std::string line_;
  std::string event_, other_event_;
  uint64_t samples_ = 0, other_samples_ = 0;
};

}  // namespace hearth::profile
