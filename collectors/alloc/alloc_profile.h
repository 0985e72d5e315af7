// Sampled allocations become stacks: each sample's registers and stack copy are unwound at once
// (the same DWARF unwinder as `hearth stacks`, over the copy the probe took at the call), its
// IPs kept with the bytes it stands for (AllocProbe's sample_weight), and the stacks named by
// the symbolizer — before the maps change, and at the end — into folded stacks weighted by bytes
// or by calls, the thread as root frame: of every sample (what was allocated in the window), or of
// the samples whose blocks are still live at its end (AllocProbe::live_blocks: the leak view).
// Not thread-safe: one AllocProfile per target, used from one thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "collectors/alloc/alloc_abi.h"
#include "collectors/stacks/stack_counts.h"
#include "common/result.h"

namespace hearth::alloc {

struct AllocProfileOptions {
  pid_t pid = 0;
  double mean_bytes = 512 << 10;  // the sampling mean the weights assume (AllocProbe::mean_bytes)
  size_t max_frames = 128;
  bool merge_threads = false;  // root "[NAME]" rather than "[NAME tid=TID]"
  std::string symbol_cache;    // SymbolizerOptions::cache_dir
};

// What a stack's weight counts.
enum class AllocWeight {
  kBytes,  // the bytes its samples stand for: size / P(sampled)
  kCalls,  // the calls (or blocks) they stand for: 1 / P(sampled)
};

struct AllocProfileStats {
  uint64_t samples = 0;    // add() calls
  uint64_t truncated = 0;  // stacks the unwinder could not take to their end
  uint64_t no_stack = 0;   // samples without a stack copy (only the allocator frame)
  uint64_t stacks = 0;     // distinct stacks
  double bytes = 0;        // bytes the samples stand for (the estimate of all bytes allocated)
  double calls = 0;        // calls the samples stand for (the estimate of all calls)
};

// What the live view found (AllocProfile::live_counts).
struct AllocLiveStats {
  uint64_t blocks = 0;   // sampled blocks still live
  uint64_t unknown = 0;  // of which no sample was read for (none expected: counted to be sure)
  double bytes = 0;      // the live bytes they stand for
  double calls = 0;      // the live blocks they stand for
};

class AllocProfile {
 public:
  // Reads PID's maps and readies the unwinder and the symbolizer. Errors: no such process, not
  // ours to read.
  static Result<AllocProfile> open(const AllocProfileOptions& options);

  AllocProfile(AllocProfile&&) noexcept;
  AllocProfile& operator=(AllocProfile&&) noexcept;
  AllocProfile(const AllocProfile&) = delete;
  AllocProfile& operator=(const AllocProfile&) = delete;
  ~AllocProfile();

  // One sampled allocation (from AllocProbe::poll), unwound now. A JVM object's class
  // (java_class_name) is the leaf frame of its stack, under the method that allocated it.
  void add(const hearth_alloc_event& event);
  // Rereads the maps when they changed (a dlopen, an mmap'ed JIT, an exec), naming the stacks
  // taken so far first. Nothing when the target is gone. Call it between polls, about once a
  // second; add() also calls it (at most every 100 ms) when a stack runs into code it has no
  // unwind information for. Returns whether the maps changed.
  bool refresh_maps();
  // Every stack, named, weighted by the bytes (or calls) its samples stand for, rounded.
  stacks::StackCounts counts(AllocWeight weight = AllocWeight::kBytes);
  // The stacks of the sampled blocks in LIVE (still allocated), each weighted as its sample is.
  stacks::StackCounts live_counts(std::span<const hearth_alloc_live> live, AllocWeight weight,
                                  AllocLiveStats* stats);

  const AllocProfileStats& stats() const;

 private:
  struct Impl;
  explicit AllocProfile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::alloc
