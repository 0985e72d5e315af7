// The allocation rate of a recording (`hearth record --alloc`): the allocator's calls and bytes,
// every call counted in the kernel (not the sampled estimate), read every 100 ms of the window
// and written as a series TSV (formats/series_tsv.h, clock "realtime") beside the MMV series, so
// the report draws it as a metric chart on the time view's axis: when the allocating started,
// not only who did it. Plain data; thread-compatible.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::recording {

struct AllocRatePoint {
  uint64_t time_ns = 0;  // CLOCK_REALTIME
  uint64_t calls = 0;    // since the probes were attached
  uint64_t bytes = 0;
};

class AllocRate {
 public:
  // Every INTERVAL_NS of the window (the first point at the attach, zero).
  explicit AllocRate(uint64_t interval_ns) : interval_ns_(interval_ns) {}

  // Whether a point is due at NOW_NS (CLOCK_REALTIME): none yet, or an interval since the last.
  bool due(uint64_t now_ns) const;
  void add(const AllocRatePoint& point);
  const std::vector<AllocRatePoint>& points() const { return points_; }

  // The series TSV: one series "alloc" (pid=PID, allocator=PATH), the counters alloc.calls
  // (count) and alloc.bytes (byte), one row of each per point. Empty with fewer than two points
  // (no rate).
  std::string series_text(pid_t pid, const std::string& allocator) const;

 private:
  uint64_t interval_ns_;
  std::vector<AllocRatePoint> points_;
};

}  // namespace hearth::recording
