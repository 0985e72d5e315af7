#include "collectors/sched/stop_cost.h"

#include <algorithm>
#include <numeric>

namespace hearth::sched {

StopCost stop_cost(const std::vector<ThreadStates>& states) {
  constexpr auto kStopped = static_cast<size_t>(OffState::kStopped);
  StopCost c;
  std::vector<double> per_stop;  // ns, one per stopped thread
  for (const ThreadStates& t : states) {
    ++c.threads;
    c.thread_ns += std::accumulate(t.off_ns.begin(), t.off_ns.end(), t.on_cpu_ns);
    const uint64_t ns = t.off_ns[kStopped], stops = t.switches[kStopped];
    c.stopped_ns += ns;
    c.stops += stops;
    if (stops == 0) continue;
    ++c.stopped_threads;
    per_stop.push_back(static_cast<double>(ns) / static_cast<double>(stops));
  }
  if (c.thread_ns > 0)
    c.share = static_cast<double>(c.stopped_ns) / static_cast<double>(c.thread_ns);
  if (!per_stop.empty()) {
    std::sort(per_stop.begin(), per_stop.end());
    size_t n = per_stop.size();
    c.median_stop_ns = n % 2 == 1 ? per_stop[n / 2] : (per_stop[n / 2 - 1] + per_stop[n / 2]) / 2;
  }
  return c;
}

}  // namespace hearth::sched
