#include "collectors/sched/stop_cost.h"

#include <algorithm>

namespace hearth::sched {

StopCost stop_cost(const std::vector<ThreadStates>& states) {
  StopCost c;
  std::vector<double> per_stop;  // ns, one per stopped thread
  for (const ThreadStates& t : states) {
    ++c.threads;
    c.thread_ns +=
        t.on_cpu_ns + t.runnable_ns + t.sleeping_ns + t.blocked_ns + t.other_ns + t.stopped_ns;
    const uint64_t ns = t.stopped_ns, stops = t.switches_stopped;
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
