// The allocation probe in the kernel: alloc.bpf.c's programs loaded, attached as uprobes to the
// target's allocator entries (allocator_symbols.h) for that process only, and the ring buffer
// their samples arrive in; or, for a JVM, jvm_alloc.bpf.c's program on HotSpot's object__alloc
// USDT probe (a uprobe at the probe's site, placed by libbpf).
//
// Owns every kernel object through file descriptors and libbpf links, closed by the destructor
// on every path; nothing is pinned, and uprobes are perf events (the uprobe PMU), not tracefs
// entries: when hearth dies, however it dies, the kernel removes the probes from the target
// and frees the programs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectors/alloc/alloc_abi.h"
#include "collectors/alloc/allocator_symbols.h"
#include "common/result.h"

namespace hearth::alloc {

struct AllocProbeOptions {
  pid_t pid = 0;
  uint64_t mean_bytes = 512 << 10;  // mean of the byte thresholds between samples
  uint32_t ring_bytes = 32 << 20;   // ring buffer: ~2,000 samples in flight
  bool live = false;                // track the sampled blocks until freed (free, uretprobes)
  uint32_t live_entries = 1 << 16;  // sampled blocks tracked at once (the "live" map's size)
};

struct AllocProbeTotals {
  uint64_t calls = 0;    // allocator calls of the target while attached
  uint64_t bytes = 0;    // bytes they asked for
  uint64_t samples = 0;  // of which sampled
  uint64_t lost = 0;     // sampled, but the ring buffer was full (user space fell behind)
  uint64_t freed = 0;    // live view: sampled blocks freed in the window
  uint64_t dropped = 0;  // live view: sampled blocks not tracked, the live map being full
};

class AllocProbe {
 public:
  // Loads and attaches (free and the uretprobes only for the live view). Fails with one line: not
  // permitted (root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN for uprobes), or the kernel refused
  // a uprobe at an entry.
  static Result<AllocProbe> open(const AllocProbeOptions& options, const Allocator& allocator);
  // The JVM's probe instead: HotSpot's object__alloc USDT probe in the libjvm at LIBJVM_PATH (a
  // path to it from here), sampled by bytes the same way, each event naming the object's class
  // (HEARTH_ALLOC_JVM_OBJECT). It fires only in a JVM started with -XX:+ExtendedDTraceProbes:
  // without the flag nothing arrives (totals().calls stays 0). No live view (options.live: fails).
  static Result<AllocProbe> open_jvm(const AllocProbeOptions& options,
                                     const std::string& libjvm_path);

  AllocProbe(AllocProbe&&) noexcept;
  AllocProbe& operator=(AllocProbe&&) noexcept;
  AllocProbe(const AllocProbe&) = delete;
  AllocProbe& operator=(const AllocProbe&) = delete;
  ~AllocProbe();

  // Calls SAMPLE for each sampled allocation in the ring buffer, waiting up to TIMEOUT for the
  // first. The event is valid during the call only. Returns how many were handed over.
  using Sample = std::function<void(const hearth_alloc_event&)>;
  Result<size_t> poll(std::chrono::milliseconds timeout, const Sample& sample);

  // Removes the uprobes (the target runs on unprobed); samples already in the ring buffer can
  // still be read with poll(). Idempotent.
  void detach();

  AllocProbeTotals totals() const;
  // Live view: the sampled blocks still allocated (not freed since their sample), as the kernel
  // holds them now; call it after detach() for the end of the window. Empty without `live`.
  std::vector<hearth_alloc_live> live_blocks() const;
  // The mean of the thresholds actually drawn from (the weights' sampling mean).
  double mean_bytes() const;

 private:
  struct Impl;
  explicit AllocProbe(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The bytes a sample of an allocation of SIZE bytes stands for, when thresholds have mean
// MEAN: SIZE / P(sampled) = SIZE / (1 - exp(-SIZE / MEAN)), never less than SIZE.
double sample_weight(uint64_t size, double mean);

// HEARTH_ALLOC_THRESHOLDS exponential quantiles of mean MEAN (stratified: the i-th is the
// quantile at (i + 0.5) / N), in bytes, at least 1.
std::vector<uint64_t> exponential_thresholds(double mean);

}  // namespace hearth::alloc
