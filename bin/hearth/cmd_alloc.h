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
  // The JVM: a process that maps libjvm.so is profiled by Java object (HotSpot's object__alloc
  // probe) unless `native`; `jvm` insists (fails when no libjvm.so is mapped).
  bool jvm = false;
  bool native = false;
  std::string class_regex;    // JVM: only objects whose class (java.lang.String) matches
  std::string exclude_class;  // JVM: not those whose class matches
};

std::vector<std::string> validate_alloc(const AllocArgs& args);
int run_alloc(const AllocArgs& args);

}  // namespace hearth::cli
