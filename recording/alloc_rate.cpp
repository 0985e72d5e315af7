#include "recording/alloc_rate.h"

#include "formats/series_tsv.h"

namespace hearth::recording {

bool AllocRate::due(uint64_t now_ns) const {
  return points_.empty() || now_ns >= points_.back().time_ns + interval_ns_;
}

void AllocRate::add(const AllocRatePoint& point) {
  // A wall clock stepped back would draw time backwards: the point waits for it.
  if (!points_.empty() && point.time_ns <= points_.back().time_ns) return;
  points_.push_back(point);
}

std::string AllocRate::series_text(pid_t pid, const std::string& allocator) const {
  if (points_.size() < 2) return {};
  std::string out;
  series::append_header(&out, interval_ns_, "realtime");
  series::append_series(
      &out, {1, "alloc", {{"pid", std::to_string(pid)}, {"allocator", allocator}}});
  series::append_metric(&out, {1, "alloc.calls", series::ValueType::kU64,
                               series::Semantics::kCounter, "count", "",
                               "Allocator calls (malloc, calloc, realloc, the aligned ones), "
                               "every one counted by the probes"});
  series::append_metric(&out, {1, "alloc.bytes", series::ValueType::kU64,
                               series::Semantics::kCounter, "byte", "",
                               "Bytes asked of the allocator, every call counted by the probes"});
  for (const AllocRatePoint& p : points_) {
    series::append_row(&out, p.time_ns, 1, "alloc.calls", "", std::to_string(p.calls));
    series::append_row(&out, p.time_ns, 1, "alloc.bytes", "", std::to_string(p.bytes));
  }
  return out;
}

}  // namespace hearth::recording
