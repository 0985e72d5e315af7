// Reads collapsed ("folded") stacks into a FrameTree: `root;…;leaf COUNT` per line, and the
// variants other tools write: fractional counts, two counts (differential: BASE NEW),
// `comm-PID/TID` roots, CRLF line ends, blank lines. Lines that don't parse are counted, and
// so are lines longer than ReadOptions::max_line_bytes. Integer counts are exact: one past
// kMaxWholeCount, or integers (of one column) adding up past it, are noted
// (ReadStats::overflow_line), never rounded. Real numbers (with a dot) make the tree fractional.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "render/profile/eu_stack_text.h"
#include "render/profile/frame_tree.h"
#include "render/profile/gdb_text.h"
#include "render/profile/perf_script.h"
#include "render/profile/pprof_reader.h"
#include "render/profile/speedscope_reader.h"

namespace hearth::profile {

// The longest line read (bytes, without its newline): the reader holds one line whole, and
// this bounds what a file without newlines can make it hold. 600,000 frames of 100 bytes fit.
inline constexpr size_t kMaxLineBytes = size_t{256} << 20;

// Where a line's count goes.
enum class Column : uint8_t {
  kAsWritten,  // one count: the tree's count; two (BASE NEW): both columns, differential
  // One column of a differential tree (made one before the first line: add_self(kRoot, {}, {})),
  // so that two files can be read into one tree as BASE and NEW: a line's count (the last one,
  // NEW's, of a two-count line) goes to that column only.
  kBase,
  kNew,
};

// What a file holds. kAuto: a pprof profile when its first bytes are pprof's (gzip, or a raw
// profile.proto message: pprof_reader.h's looks_like_pprof); else folded stacks, unless a line of
// gdb's `thread apply all bt` (a "Thread N (…):" header or a "#N  …" frame) comes before the
// first folded line: then gdb's text from there to the file's end (gdb_text.h), its preamble
// lines not counted as ignored; the same for eu-stack's text (eu_stack_text.h) when its "PID N -
// process" or "TID N:" header comes first, and for `perf script`'s text (perf_script.h) when a
// sample header with perf's time field comes first.
// A speedscope file when its first bytes are JSON's (speedscope_reader.h's looks_like_speedscope).
enum class InputFormat : uint8_t {
  kAuto,
  kFolded,
  kGdb,
  kEuStack,
  kPprof,
  kSpeedscope,
  kPerfScript
};

struct ReadOptions {
  InputFormat format = InputFormat::kAuto;
  bool reverse = false;  // leaf first (flamegraph.pl --reverse)
  size_t max_line_bytes = kMaxLineBytes;
  Column column = Column::kAsWritten;
  // The most bytes of a pprof profile read, gzipped or not (a gzip bomb stops there).
  size_t max_pprof_bytes = kMaxPprofBytes;
  size_t max_speedscope_bytes = kMaxSpeedscopeBytes;  // the most bytes of a speedscope file read
  bool strip_thread_ids =
      false;  // thread roots lose their ids: "[worker-3 tid=42]" -> "[worker-3]"
  // read_file reads a regular file at least this big in two threads (when two CPUs are
  // there to run them and the tree is Merge::kAll): the second half into a tree of its own,
  // merged after. The result (tree, ids, stats) is the same as one thread's. Tests set it to 0.
  uint64_t parallel_min_bytes = uint64_t{4} << 20;
  // Threads for that: 0 is as many as this process may run on, at most 2.
  unsigned threads = 0;
};

struct ReadStats {
  uint64_t lines = 0;               // stack lines added
  uint64_t ignored = 0;             // lines that did not parse
  uint64_t first_ignored_line = 0;  // 1-based line number of the first, 0 if none
  std::string first_ignored_file;
  uint64_t overlong = 0;  // lines longer than max_line_bytes, skipped (not in `ignored`)
  uint64_t first_overlong_line = 0;
  std::string first_overlong_file;
  // The first line whose count is past kMaxWholeCount, or where the whole counts (of one
  // column) add up past it; 0 if none. From there on the tree's counts are wrong.
  uint64_t overflow_line = 0;
  std::string overflow_file;
  uint64_t bytes = 0;
};

class FoldedReader {
 public:
  FoldedReader(FrameTree& tree, ReadOptions options);

  // One line, without its newline.
  void add_line(std::string_view line);
  // Reads a whole file ("-" is standard input). Memory: the tree, and a buffer of 256 KiB (or
  // the longest line) per thread; never the whole file.
  Result<void> read_file(const std::string& path);
  // Reads text already in memory (tests, fuzzing).
  void read_text(std::string_view text);
  // Reads a pprof profile already in memory, gzipped or not; NAME says where it came from in
  // errors. A profile that is not valid adds nothing.
  Result<void> read_pprof(std::string_view data, const std::string& name);
  // Reads a speedscope profile (JSON) already in memory, as read_pprof.
  Result<void> read_speedscope(std::string_view json, const std::string& name);

  const ReadStats& stats() const { return stats_; }
  // Thread blocks read from gdb text, over all files (0: none was gdb's).
  uint64_t gdb_threads() const { return gdb_threads_; }
  // The same for eu-stack's text.
  uint64_t eu_stack_threads() const { return eu_stack_threads_; }
  // perf script text read, over all files: its samples of the event drawn, and of others
  // (skipped); the event drawn and the first skipped ("" when none).
  const PerfScriptStats& perf_script() const { return perf_stats_; }

 private:
  void take_line(std::string_view line);  // add_line, or skip a line over the limit
  // A stack (root first) from a format that is not text: like a line of them.
  void add_frames(std::span<const std::string_view> frames, Count count);
  // Where a stack ending at NODE adds its count (or its two, BASE NEW), by options_.column.
  void add_count(NodeId node, Count count, bool two_counts, Count base);
  // read_file of a pprof profile: FD's bytes after HEAD (read already from a pipe).
  Result<void> read_pprof_fd(int fd, std::string head);
  Result<void> read_speedscope_fd(int fd, std::string head);  // the same for speedscope
  void start_file();                                          // a file's first line is next
  void end_file();                                            // its last line was read
  void take_gdb_line(std::string_view line);
  // The lines before were a debugger's preamble, not ignored folded lines.
  void forget_undecided_lines();
  void take_perf_line(std::string_view line);
  void start_perf_script();  // the lines before were a preamble, not ignored folded lines
  void ignore_line();
  void skip_overlong_line();
  void note_overflow();
  void reset_prefix();
  // Reads the lines of FD from BEGIN to END (END < 0: to the end, with read(); else pread);
  // returns 0 or an errno.
  int read_lines(int fd, int64_t begin, int64_t end);
  // read_file's two-thread path for a regular file of SIZE bytes: false when it did not apply
  // (nothing was read).
  Result<bool> read_parallel(int fd, int64_t size);
  // Adds the stats of OTHER, which read the lines after this one's.
  void absorb(const FoldedReader& other);
  NameId intern_frame(NodeId parent, std::string_view frame);  // strip_thread_ids applied

  FrameTree& tree_;
  ReadOptions options_;
  ReadStats stats_;
  std::string current_file_;
  uint64_t line_no_ = 0;
  // The previous stack (bytes) and the node of each of its frames, so a line sharing a
  // prefix with the previous one (sorted input, the common case) skips hashing that prefix.
  std::string prev_stack_;
  std::vector<uint32_t> prev_ends_;  // byte offset where each frame of prev_stack_ ends
  std::vector<NodeId> prev_nodes_;
  std::vector<std::string_view> scratch_;
  std::vector<NameId> name_ids_;
  std::string renamed_;  // a thread root without its ids
  // The file being read: whether its format is known yet (kAuto), the lines ignored while it was
  // not (gdb's preamble, if it turns out to be gdb's text), and its gdb folder.
  bool format_known_ = false;
  uint64_t ignored_undecided_ = 0;
  std::unique_ptr<GdbTextFolder> gdb_;
  uint64_t gdb_threads_ = 0;
  std::unique_ptr<EuStackFolder> eu_stack_;
  uint64_t eu_stack_threads_ = 0;
  std::unique_ptr<PerfScriptFolder> perf_;
  PerfScriptStats perf_stats_;
  // Bytes read from a pipe to tell its format, which read_lines takes first.
  std::string pending_;
};

enum class TrailingCount : uint8_t {
  kNoCount,   // TEXT does not end in a blank and a count
  kFound,     // *count is set
  kTooLarge,  // an integer past kMaxWholeCount, or a real number past double's range
};

// Parses the count at the end of TEXT (after the last blank): an integer (`12`: a whole
// count, exact) or a real number (`0.5`, `12.0`, `3.`: a fractional count, a double). When
// found (or too large), shrinks *text to what precedes it, without the one blank before the
// count. Exposed for tests.
TrailingCount take_trailing_count(std::string_view* text, Count* count);

}  // namespace hearth::profile
