// `hearth alloc`: where a running process allocates, by stack, weighted by bytes (sampled).
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
  bool merge_threads = false;  // roots by thread name, not per thread
  std::string symbol_cache;    // --symbol-cache: a directory, "off", or "" (the default one)
};

std::vector<std::string> validate_alloc(const AllocArgs& args);
int run_alloc(const AllocArgs& args);

}  // namespace hearth::cli
