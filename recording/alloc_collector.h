// The allocation collector of a recording (`hearth record --alloc`): `hearth alloc`'s uprobes and
// BPF programs (collectors/alloc) on the target's allocator, attached when the window starts and
// removed when it ends (AllocProbe owns them: nothing stays in the kernel whatever happens to
// hearth), the sampled allocations unwound as they come, and at the end the folded stacks of the
// views asked for written into the report directory (render/report/report.h's kAlloc* names) with
// their figures for report.json. Off by default: every allocator call of the target pays for the
// uprobe (~0.5 µs on this project's VM), sampled or not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"

namespace hearth::recording {

struct Outcome;

struct AllocViews {
  bool bytes = false;  // alloc.folded: bytes allocated over the window, by stack
  bool count = false;  // alloc.count.folded: calls over the window, by stack
  bool live = false;   // alloc.live.folded: bytes still allocated at the end (free probed too)
  bool any() const { return bytes || count || live; }
};

// "bytes", "count", "live", or several comma-separated ("bytes,live"); fails with one line.
Result<AllocViews> parse_alloc_views(const std::string& text);
// "bytes,live": the views in the order above.
std::string alloc_views_text(const AllocViews& views);

struct AllocCollectorOptions {
  pid_t pid = 0;
  AllocViews views;
  uint64_t mean_bytes = 512 << 10;               // mean of the byte thresholds between samples
  uint32_t live_max = 1 << 16;                   // sampled blocks followed at once (live view)
  std::string output;                            // the report directory
  std::string symbol_cache;                      // the symbolizer's cache directory; "": none
  std::function<bool()> ended;                   // the window's end (polled about every 100 ms)
  std::function<void(const std::string&)> note;  // one line for the user ("sampling …")
};

// Runs over the window; a failure (no allocator, not permitted) is OUT's, as every collector's.
void run_alloc_collector(const AllocCollectorOptions& options, Outcome* out);

}  // namespace hearth::recording
