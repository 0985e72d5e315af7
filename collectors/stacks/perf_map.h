// Names of JIT-compiled code from the runtime's perf map: the text file perf reads,
// /tmp/perf-PID.map, one line per function, "START SIZE NAME" (hex, no 0x), written by Node
// (--perf-basic-prof), Java (jcmd PID Compiler.perfmap, or perf-map-agent), .NET
// (DOTNET_PerfMapEnabled=1) and Python 3.12+ (-X perf). JIT code is compiled and moved while the
// process runs: a later line for the same addresses replaces an earlier one, and the file is read
// again when it has changed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace hearth::stacks {

// Address → JIT function, the later of two overlapping lines winning.
class JitSymbols {
 public:
  // Adds the lines of perf-map TEXT (lines that do not parse are skipped and counted).
  void add_text(std::string_view text);
  // The function covering ADDR, or nullptr.
  const std::string* lookup(uint64_t addr) const;
  size_t size() const { return ranges_.size(); }
  uint64_t bad_lines() const { return bad_lines_; }

 private:
  struct Range {
    uint64_t end;
    std::string name;
  };
  void add(uint64_t start, uint64_t end, std::string name);
  std::map<uint64_t, Range> ranges_;  // by start; no two overlap
  uint64_t bad_lines_ = 0;
};

// The perf map of one process, re-read when it changes.
class PerfMap {
 public:
  // The map of process PID seen from here: /proc/PID/root/tmp/perf-NSPID.map, NSPID being its
  // pid inside its own pid namespace (a container's process writes the map under its pid there,
  // in its own /tmp).
  static std::string path_for(pid_t pid);

  explicit PerfMap(std::string path) : path_(std::move(path)) {}

  // The function at ADDR; the file is read first if it changed since it was last read (checked
  // at most every few milliseconds). nullptr without a map or a line for ADDR.
  const std::string* lookup(uint64_t addr);
  // Whether a map was found (after a lookup).
  bool found() const { return found_; }
  // Counts reads of the file: callers drop what they cached from an older one.
  uint64_t generation() const { return generation_; }
  const std::string& path() const { return path_; }

 private:
  void reload_if_changed();

  std::string path_;
  JitSymbols symbols_;
  bool found_ = false;
  uint64_t generation_ = 0;
  off_t size_ = -1;
  int64_t mtime_ns_ = -1;
  std::chrono::steady_clock::time_point checked_{};
};

}  // namespace hearth::stacks
