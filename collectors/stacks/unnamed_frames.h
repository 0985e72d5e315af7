// Frames without a name in a profile's samples, for the summary's hints (bin/hearth/sampler_cli.h):
// counted per thread sample over the frames the sampler wrote, and added up over processes.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hearth::stacks {

// Frames of the samples so far that have no name: "[module+0x…]" (a module without symbols for
// that address: stripped, and no debug file found). Counted per thread sample, user frames only.
struct UnnamedFrames {
  uint64_t frames = 0;                                      // user frames in all thread samples
  uint64_t unnamed = 0;                                     // of those, "[module+0x…]"
  std::vector<std::pair<std::string, uint64_t>> by_module;  // module basename, unnamed; most first
  uint64_t samples = 0;                                     // thread samples
  uint64_t unknown = 0;      // of those, with a frame outside every file ("[unknown]": JIT code
                             // with no perf map entry)
  uint64_t jit = 0;          // of those, through JIT code ("_[j]" or "[unknown]" frames)
  uint64_t lost_in_jit = 0;  // of those, cut short in JIT code: no frame pointer led on from it
  bool perf_map = false;     // the target's perf map was found
  std::string perf_map_path;
};

class UnnamedTally {
 public:
  // N thread samples of one stack, FRAMES root first as the sampler names them; LOST: its
  // unwinding stopped where no unwind info or frame pointer led on (RawStack::lost).
  void add_stack(std::span<const std::string> frames, uint64_t n, bool lost = false);
  // Another tally's result (another process's): perf_map if either found one.
  void add(const UnnamedFrames& other);
  // The counts, by_module sorted most first (ties: by name).
  UnnamedFrames result() const;

  bool perf_map = false;
  std::string perf_map_path;

 private:
  UnnamedFrames counts_;
  std::map<std::string, uint64_t> modules_;
};

}  // namespace hearth::stacks
