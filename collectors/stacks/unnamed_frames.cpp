#include "collectors/stacks/unnamed_frames.h"

#include <algorithm>

namespace hearth::stacks {

void UnnamedTally::add_stack(std::span<const std::string> frames, uint64_t n, bool lost) {
  counts_.samples += n;
  // Root first: "[truncated]", then the outermost frame the unwinding reached.
  if (lost && frames.size() > 1 && (frames[1].ends_with("_[j]") || frames[1] == "[unknown]"))
    counts_.lost_in_jit += n;
  bool unknown = false, jit = false;
  for (const std::string& f : frames) {
    if (f.ends_with("_[k]") || f == "[truncated]") continue;
    counts_.frames += n;
    if (!jit && (f.ends_with("_[j]") || f == "[unknown]")) {
      jit = true;
      counts_.jit += n;
    }
    if (f == "[unknown]" && !unknown) {
      unknown = true;
      counts_.unknown += n;
    }
    const size_t plus = f.find("+0x");
    if (f.size() < 2 || f.front() != '[' || f.back() != ']' || plus == std::string::npos) continue;
    counts_.unnamed += n;
    modules_[f.substr(1, plus - 1)] += n;
  }
}

void UnnamedTally::add(const UnnamedFrames& other) {
  counts_.frames += other.frames;
  counts_.unnamed += other.unnamed;
  counts_.samples += other.samples;
  counts_.unknown += other.unknown;
  counts_.jit += other.jit;
  counts_.lost_in_jit += other.lost_in_jit;
  for (const auto& [module, n] : other.by_module) modules_[module] += n;
  if (other.perf_map && !perf_map) {
    perf_map = true;
    perf_map_path = other.perf_map_path;
  }
  if (perf_map_path.empty()) perf_map_path = other.perf_map_path;
}

UnnamedFrames UnnamedTally::result() const {
  UnnamedFrames out = counts_;
  out.perf_map = perf_map;
  out.perf_map_path = perf_map_path;
  out.by_module.assign(modules_.begin(), modules_.end());
  std::sort(out.by_module.begin(), out.by_module.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

}  // namespace hearth::stacks
