#include "render/timeline/lanes.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "common/pool_name.h"
#include "render/profile/filters.h"
#include "render/profile/process_names.h"

namespace hearth::timeline {
namespace {

using sched_intervals::Interval;
using sched_intervals::IntervalsFile;
using sched_intervals::Slot;

// The thread's own root frame: the last of ROOT's frames ("[app pid=1];[worker-1 tid=2]").
std::string_view thread_root(std::string_view root) {
  const size_t semi = root.rfind(';');
  return semi == std::string_view::npos ? root : root.substr(semi + 1);
}

struct Building {
  Lane lane;
  bool main = false;
};

// Adds OVERLAP ns of the column span [A, B) (ns, within [FROM, TO)) to the columns it covers,
// each column getting its share: TIMES[c] per class through ADD(c, ns).
template <typename Add>
void spread(uint64_t from, double col_ns, size_t columns, uint64_t a, uint64_t b, Add add) {
  const double fa = static_cast<double>(a - from) / col_ns;
  const double fb = static_cast<double>(b - from) / col_ns;
  size_t ca = static_cast<size_t>(fa);
  size_t cb = std::min(columns - 1, static_cast<size_t>(fb));
  if (ca >= columns) return;
  if (ca == cb) {
    add(ca, static_cast<double>(b - a));
    return;
  }
  add(ca, (static_cast<double>(ca + 1) - fa) * col_ns);
  for (size_t c = ca + 1; c < cb; ++c) add(c, col_ns);
  add(cb, (fb - static_cast<double>(cb)) * col_ns);
}

}  // namespace

const char* class_name(int cls) {
  static constexpr const char* kNames[kClasses] = {"on CPU",  "runnable", "sleeping",
                                                   "blocked", "stopped",  "other"};
  return cls >= 0 && cls < kClasses ? kNames[cls] : "other";
}

std::string who(const Names& names, int64_t tid) {
  if (tid == 0) return "the idle task";
  auto it = names.threads.find(tid);
  if (it == names.threads.end() || it->second.empty()) return "tid " + std::to_string(tid);
  return it->second + " (tid " + std::to_string(tid) + ")";
}

Model build_model(const IntervalsFile& intervals, const IntervalsFile* slots,
                  const timed_samples::Samples* samples, const Names& names,
                  const ModelOptions& options) {
  Model m;
  m.intervals = &intervals;
  m.slots = slots;
  m.samples = samples;
  const sched_intervals::Header& h = intervals.header;
  m.window_start_ns = h.window_start_ns;
  m.window_end_ns = h.window_end_ns;
  m.start_ns = h.window_start_ns;
  m.end_ns = h.window_end_ns;
  m.whole_from_ns = h.kept.whole_from_ns;
  m.slot_ns = h.kept.slot_ns;
  m.untraced_until_ns = h.untraced.until_ns;
  m.untraced_resolution_ns = h.untraced.resolution_ns;

  // tid -> its lane while building; ordered later.
  std::map<int64_t, Building> by_tid;
  auto lane_of = [&](int64_t tid, int64_t pid) -> Lane& {
    auto [it, added] = by_tid.try_emplace(tid);
    Lane& l = it->second.lane;
    if (added) l.tid = tid;
    if (l.pid == 0) l.pid = pid;
    return l;
  };
  const std::vector<size_t>& first = intervals.thread_first;
  for (size_t k = 0; k < first.size(); ++k) {
    const size_t end = k + 1 < first.size() ? first[k + 1] : intervals.intervals.size();
    if (end == first[k]) continue;
    const Interval& r = intervals.intervals[first[k]];
    Lane& l = lane_of(r.tid, r.pid);
    l.first = first[k];
    l.count = end - first[k];
  }
  if (slots != nullptr) {
    const std::vector<Slot>& rows = slots->slots;
    for (size_t i = 0; i < rows.size();) {
      size_t j = i;
      while (j < rows.size() && rows[j].tid == rows[i].tid) ++j;
      Lane& l = lane_of(rows[i].tid, rows[i].pid);
      l.slot_first = i;
      l.slot_count = j - i;
      i = j;
    }
  }

  // Names: the stack sampler's (roles of unnamed threads included), then the scheduler's comm.
  std::unordered_map<int64_t, std::string> sampled_names;
  std::unordered_map<int64_t, std::string> process_names;
  std::unordered_map<int64_t, std::string> process_titles;  // in full
  if (samples != nullptr) {
    for (const timed_samples::Thread& t : samples->threads) {
      sampled_names[t.tid] = std::string(profile::thread_name(thread_root(t.root)));
    }
    for (const timed_samples::Process& p : samples->processes) {
      process_names[p.pid] = profile::short_process_label(p.name, p.title);
      if (!p.title.empty()) process_titles[p.pid] = profile::process_label(p.name, p.title);
    }
    if (samples->pid > 0 && !samples->name.empty()) process_names[samples->pid] = samples->name;
    m.samples_mono_ns = samples->mono_ns != 0 ? samples->mono_ns : m.window_start_ns;
    m.samples_aligned = samples->mono_ns != 0;
    timed_samples::expand(*samples, [&](size_t round, std::span<const timed_samples::Sample> ts) {
      const timed_samples::Round& r = samples->rounds[round];
      const uint64_t t = m.samples_mono_ns + r.time_ns;
      for (const timed_samples::Sample& s : ts) {
        const timed_samples::Thread& th = samples->threads[s.thread];
        Lane& l = lane_of(th.tid, th.pid);
        l.ticks.push_back({.time_ns = t,
                           .round = static_cast<uint32_t>(round),
                           .thread = s.thread,
                           .stack = s.stack,
                           .state = s.state});
      }
    });
  }

  m.origin_ns = samples != nullptr ? m.samples_mono_ns : m.window_start_ns;
  std::vector<Building*> kept;
  for (auto& [tid, b] : by_tid) {
    Lane& l = b.lane;
    if (auto it = sampled_names.find(tid); it != sampled_names.end() && !it->second.empty()) {
      l.name = it->second;
      // A single-threaded process's thread, named by its process's title (in full in its root):
      // shortened as the process's header is.
      if (auto t = process_titles.find(l.pid); t != process_titles.end() && t->second == l.name)
        l.name = process_names[l.pid];
    } else if (auto n = names.threads.find(tid); n != names.threads.end() && !n->second.empty()) {
      l.name = n->second;
    } else {
      l.name = "tid " + std::to_string(tid);
    }
    l.pool = pool_name(l.name);
    b.main = l.tid == l.pid;
    if (options.only_threads != nullptr && !options.only_threads->search(l.name)) {
      ++m.left_out;
      continue;
    }
    if (!l.ticks.empty()) {
      m.start_ns = std::min(m.start_ns, l.ticks.front().time_ns);
      m.end_ns = std::max(m.end_ns, l.ticks.back().time_ns);
    }
    m.ticks += l.ticks.size();
    kept.push_back(&b);
  }
  // By process (unknown last), the main thread first, then by pool, then tid.
  auto key = [](const Building* b) {
    const Lane& l = b->lane;
    return std::make_tuple(l.pid == 0, l.pid, !b->main, std::string_view(l.pool), l.tid);
  };
  std::sort(kept.begin(), kept.end(),
            [&](const Building* a, const Building* b) { return key(a) < key(b); });
  m.lanes.reserve(kept.size());
  for (Building* b : kept) m.lanes.push_back(std::move(b->lane));

  for (uint32_t i = 0; i < m.lanes.size(); ++i) {
    const Lane& l = m.lanes[i];
    if (m.processes.empty() || m.processes.back().pid != l.pid) {
      Process p;
      p.pid = l.pid;
      if (auto t = process_titles.find(l.pid); t != process_titles.end()) p.title = t->second;
      if (auto it = process_names.find(l.pid); it != process_names.end()) {
        p.name = it->second;
      } else if (auto n = names.processes.find(l.pid); n != names.processes.end()) {
        p.name = n->second;
      } else if (auto t = names.threads.find(l.pid); t != names.threads.end()) {
        p.name = t->second;
      }
      m.processes.push_back(std::move(p));
    }
    // A pool: consecutive threads of one process with one pool name, the main thread apart.
    std::vector<Group>& groups = m.processes.back().groups;
    const Lane* prev = groups.empty() ? nullptr : &m.lanes[groups.back().lanes.back()];
    if (prev != nullptr && prev->pool == l.pool && prev->tid != prev->pid && l.tid != l.pid) {
      groups.back().lanes.push_back(i);
    } else {
      groups.push_back({.name = l.name, .lanes = {i}});
    }
  }
  for (Process& p : m.processes) {
    for (Group& g : p.groups) {
      if (g.lanes.size() > 1) g.name = m.lanes[g.lanes.front()].pool;
    }
  }
  return m;
}

std::vector<ClassTimes> column_times(const Model& m, const Lane& lane, uint64_t from, uint64_t to,
                                     size_t columns) {
  std::vector<ClassTimes> out(columns, ClassTimes{});
  if (columns == 0 || to <= from) return out;
  const double col_ns = static_cast<double>(to - from) / static_cast<double>(columns);
  if (lane.count > 0) {
    const Interval* first = m.intervals->intervals.data() + lane.first;
    const Interval* last = first + lane.count;
    // The first interval ending after FROM.
    const Interval* it = std::upper_bound(
        first, last, from, [](uint64_t t, const Interval& r) { return t < r.end_ns; });
    for (; it != last && it->start_ns < to; ++it) {
      const int cls = static_cast<int>(sched_intervals::state_class(it->state));
      spread(from, col_ns, columns, std::max(it->start_ns, from), std::min(it->end_ns, to),
             [&](size_t c, double ns) { out[c][cls] += ns; });
    }
  }
  if (lane.slot_count > 0 && m.slots != nullptr && m.slot_ns > 0) {
    const double slot_ns = static_cast<double>(m.slot_ns);
    for (size_t k = lane.slot_first; k < lane.slot_first + lane.slot_count; ++k) {
      const Slot& s = m.slots->slots[k];
      const uint64_t a = std::max(s.slot_start_ns, from);
      const uint64_t b = std::min(s.slot_start_ns + m.slot_ns, to);
      if (a >= b) continue;
      const double share[kClasses] = {static_cast<double>(s.on_cpu_ns) / slot_ns,
                                      static_cast<double>(s.runnable_ns) / slot_ns,
                                      static_cast<double>(s.sleeping_ns) / slot_ns,
                                      static_cast<double>(s.blocked_ns) / slot_ns,
                                      static_cast<double>(s.stopped_ns) / slot_ns,
                                      static_cast<double>(s.other_ns) / slot_ns};
      spread(from, col_ns, columns, a, b, [&](size_t c, double ns) {
        for (int k2 = 0; k2 < kClasses; ++k2) out[c][k2] += share[k2] * ns;
      });
    }
  }
  return out;
}

const Interval* interval_at(const Model& m, const Lane& lane, uint64_t t) {
  if (lane.count == 0) return nullptr;
  const Interval* first = m.intervals->intervals.data() + lane.first;
  const Interval* last = first + lane.count;
  const Interval* it =
      std::upper_bound(first, last, t, [](uint64_t v, const Interval& r) { return v < r.end_ns; });
  return it != last && it->start_ns <= t ? it : nullptr;
}

const Slot* slot_at(const Model& m, const Lane& lane, uint64_t t) {
  if (lane.slot_count == 0 || m.slots == nullptr) return nullptr;
  const Slot* first = m.slots->slots.data() + lane.slot_first;
  const Slot* last = first + lane.slot_count;
  const Slot* it = std::upper_bound(first, last, t,
                                    [](uint64_t v, const Slot& s) { return v < s.slot_start_ns; });
  if (it == first) return nullptr;
  --it;
  return t < it->slot_start_ns + m.slot_ns ? it : nullptr;
}

}  // namespace hearth::timeline
