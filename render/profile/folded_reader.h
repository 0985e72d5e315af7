// Reads collapsed ("folded") stacks into a FrameTree: `root;…;leaf COUNT` per line, and the
// variants other tools write: fractional counts, two counts (differential: BASE NEW),
// `comm-PID/TID` roots, CRLF line ends, blank lines. Lines that don't parse are counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

struct ReadOptions {
  bool reverse = false;  // leaf first (flamegraph.pl --reverse)
};

struct ReadStats {
  uint64_t lines = 0;               // stack lines added
  uint64_t ignored = 0;             // lines that did not parse
  uint64_t first_ignored_line = 0;  // 1-based line number of the first, 0 if none
  std::string first_ignored_file;
  uint64_t bytes = 0;
};

class FoldedReader {
 public:
  FoldedReader(FrameTree& tree, ReadOptions options);

  // One line, without its newline.
  void add_line(std::string_view line);
  // Reads a whole file ("-" is standard input).
  Result<void> read_file(const std::string& path);
  // Reads text already in memory (tests, fuzzing).
  void read_text(std::string_view text);

  const ReadStats& stats() const { return stats_; }

 private:
  void ignore_line();
  void reset_prefix();

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
};

// Parses the count at the end of TEXT (after the last blank): digits with an optional
// fraction. On success returns true, sets *count and shrinks *text to what precedes it
// (without the one blank before the count). Exposed for tests.
bool take_trailing_count(std::string_view* text, double* count);

}  // namespace hearth::profile
