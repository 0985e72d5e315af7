// `hearth alloc`: where a running process allocates, by stack, weighted by bytes or calls
// (sampled); with --live, where the blocks still allocated at the window's end came from.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::cli {

struct AllocArgs {
  pid_t pid = 0;
  double duration = 10;       // s; Ctrl-C or the target's exit end the window sooner
  std::string output;         // .svg/.png/.pdf: a flamegraph; anything else: folded stacks
  uint64_t mean = 512 << 10;  // mean bytes between samples of a thread
  size_t max_frames = 128;
  bool live = false;            // the sampled blocks still live at the end, not all samples
  bool count = false;           // weights are calls (blocks), not bytes
  uint32_t live_max = 1 << 16;  // sampled blocks the live view tracks at once
  bool merge_threads = false;   // roots by thread name, not per thread
  std::string symbol_cache;     // --symbol-cache: a directory, "off", or "" (the default one)
};

std::vector<std::string> validate_alloc(const AllocArgs& args);
int run_alloc(const AllocArgs& args);

}  // namespace hearth::cli
