// The thread states chart: one bar per thread, its time split by scheduler state.
#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "render/charts/sections.h"

namespace hearth::charts {
namespace {

double total_of(const StatesRow& r) {
  return std::accumulate(r.ns.begin(), r.ns.end(), 0.0);
}

double share(const StatesRow& r, State s) {
  double t = total_of(r);
  return t > 0 ? r.ns[static_cast<int>(s)] / t : 0;
}

bool by_name(const StatesRow& a, const StatesRow& b) {
  std::string ga = a.tids.size() > 1 ? group_name(a.comm) : a.comm;
  std::string gb = b.tids.size() > 1 ? group_name(b.comm) : b.comm;
  if (ga != gb) return ga < gb;
  return a.tid < b.tid;
}

// " · preempted by 4244 hog-2 1.10 s (950×), 12 kworker/0:1 3.0 ms (4×), +2 others 1.0 ms"
std::string preemptor_breakdown(const sched_tsv::SchedFile& pre, const StatesRow& row, bool group) {
  struct Agg {
    std::string comm;
    int64_t tid = 0;
    std::vector<int64_t> tids;
    double ns = 0;
    uint64_t count = 0;
  };
  std::map<std::string, Agg> by_key;
  for (const sched_tsv::PreemptorRow& p : pre.preemptors) {
    if (!std::binary_search(row.tids.begin(), row.tids.end(), p.tid)) continue;
    std::string key = group ? group_name(p.preemptor_comm) : std::to_string(p.preemptor_tid);
    Agg& a = by_key[key];
    if (a.tids.empty()) a.comm = p.preemptor_comm, a.tid = p.preemptor_tid;
    if (std::find(a.tids.begin(), a.tids.end(), p.preemptor_tid) == a.tids.end()) {
      a.tids.push_back(p.preemptor_tid);
    }
    a.ns += static_cast<double>(p.time_ns);
    a.count += p.count;
  }
  if (by_key.empty()) return {};
  std::vector<std::pair<const std::string*, const Agg*>> order;  // (key, aggregate)
  for (const auto& [key, a] : by_key) order.emplace_back(&key, &a);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second->ns != b.second->ns) return a.second->ns > b.second->ns;
    return *a.first < *b.first;
  });
  constexpr size_t kShown = 3;
  std::string out = " \xc2\xb7 preempted by ";
  double rest_ns = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const Agg& a = *order[i].second;
    if (i >= kShown) {
      rest_ns += a.ns;
      continue;
    }
    if (i > 0) out += ", ";
    out += thread_who(a.comm, a.tid, a.tids.size()) + " " + format_ns(a.ns) + " (" +
           with_thousands(a.count) + "\xc3\x97)";
  }
  if (order.size() > kShown) {
    out += ", +" + std::to_string(order.size() - kShown) + " others " + format_ns(rest_ns);
  }
  return out;
}

// " · wakeup latency p50 8.2 µs, p99 64.0 µs, max 81.0 µs (140 wakeups)"; for a pool, the
// worst thread's p99 and max.
std::string wakeup_latency(const sched_tsv::SchedFile& wk, const StatesRow& row) {
  const sched_tsv::WakeupRow* only = nullptr;
  uint64_t wakeups = 0, p99 = 0, max = 0;
  size_t threads = 0;
  for (const sched_tsv::WakeupRow& w : wk.wakeups) {
    if (!std::binary_search(row.tids.begin(), row.tids.end(), w.tid) || w.wakeups == 0) continue;
    only = &w;
    ++threads;
    wakeups += w.wakeups;
    p99 = std::max(p99, w.p99_ns);
    max = std::max(max, w.max_ns);
  }
  if (threads == 0) return {};
  std::string out = " \xc2\xb7 wakeup latency ";
  if (threads == 1) {
    out += "p50 " + format_ns(static_cast<double>(only->p50_ns)) + ", p99 ";
  } else {
    out += "worst p99 ";
  }
  return out + format_ns(static_cast<double>(p99)) + ", max " +
         format_ns(static_cast<double>(max)) + " (" + with_thousands(wakeups) + " wakeups)";
}

}  // namespace

std::vector<StatesRow> states_rows(const sched_tsv::SchedFile& file, bool group, SortKey sort) {
  std::vector<StatesRow> rows;
  std::map<std::string, size_t> pools;  // group name -> index in rows
  for (const sched_tsv::ThreadStates& t : file.states) {
    size_t i = rows.size();
    if (group) {
      auto [it, fresh] = pools.try_emplace(group_name(t.comm), rows.size());
      i = it->second;
    }
    if (i == rows.size()) rows.push_back({t.comm, t.tid, {}, {}, {}});
    StatesRow& r = rows[i];
    if (t.tid < r.tid) r.comm = t.comm, r.tid = t.tid;
    r.tids.push_back(t.tid);
    // In State order.
    double ns[kStateCount] = {
        static_cast<double>(t.on_cpu_ns),   static_cast<double>(t.runnable_ns),
        static_cast<double>(t.sleeping_ns), static_cast<double>(t.blocked_ns),
        static_cast<double>(t.stopped_ns),  static_cast<double>(t.other_ns)};
    uint64_t sw[kStateCount] = {0,
                                t.switches_runnable,
                                t.switches_sleeping,
                                t.switches_blocked,
                                t.switches_stopped,
                                t.switches_other};
    for (int s = 0; s < kStateCount; ++s) r.ns[s] += ns[s], r.switches[s] += sw[s];
  }
  for (StatesRow& r : rows) std::sort(r.tids.begin(), r.tids.end());
  auto by_share = [](State s) {
    return [s](const StatesRow& a, const StatesRow& b) {
      double x = share(a, s), y = share(b, s);
      if (x != y) return x > y;
      return by_name(a, b);
    };
  };
  switch (sort) {
    case SortKey::kRunnable:
      std::sort(rows.begin(), rows.end(), by_share(State::kRunnable));
      break;
    case SortKey::kOnCpu:
      std::sort(rows.begin(), rows.end(), by_share(State::kOnCpu));
      break;
    case SortKey::kBlocked:
      std::sort(rows.begin(), rows.end(), by_share(State::kBlocked));
      break;
    case SortKey::kName:
      std::sort(rows.begin(), rows.end(), by_name);
      break;
    case SortKey::kTid:
      std::sort(rows.begin(), rows.end(),
                [](const StatesRow& a, const StatesRow& b) { return a.tid < b.tid; });
      break;
  }
  return rows;
}

Section states_section(const sched_tsv::SchedFile& file, const sched_tsv::SchedFile* preemptors,
                       const sched_tsv::SchedFile* wakeups, const ChartOptions& o) {
  Section sec;
  sec.title = "Thread states: where each thread's time went";
  sec.subtitle = recording_facts(file, &sec.warn);
  sec.views = Views::kPercentAndTime;
  for (int s = 0; s < kStateCount; ++s) {
    // A version-1 file does not tell stopped time apart (it is in other): no such entry.
    if (State(s) == State::kStopped && file.header.version < 2) continue;
    sec.legend.push_back(
        {std::string(state_legend(State(s), o.stopped_by)), state_color(State(s))});
  }
  double full = static_cast<double>(file.header.window_ns);
  for (const StatesRow& r : states_rows(file, o.group_threads, o.sort)) {
    Bar bar;
    size_t threads = r.tids.size();
    bar.label = thread_label(r.comm, r.tid, threads);
    if (threads == 1) bar.anchor = "thread-" + std::to_string(r.tid);
    std::string who = thread_who(r.comm, r.tid, threads);
    double total = total_of(r);
    full = std::max(full, total);
    for (int s = 0; s < kStateCount; ++s) {
      auto state = static_cast<State>(s);
      Segment seg;
      seg.value = r.ns[s];
      seg.fill = state_color(state);
      seg.css_class = state_class(state);
      seg.title = who + ": " + std::string(state_name(state, o.stopped_by)) + " " +
                  format_ns(r.ns[s]) + " (" + format_pct(r.ns[s], total) + ")";
      if (s > 0) seg.title += ", " + with_thousands(r.switches[s]) + " switch-outs";
      if (state == State::kRunnable && preemptors) {
        seg.title += preemptor_breakdown(*preemptors, r, o.group_threads);
      }
      if ((state == State::kSleeping || state == State::kBlocked) && wakeups) {
        seg.title += wakeup_latency(*wakeups, r);
      }
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.0f%%", total > 0 ? 100 * r.ns[s] / total : 0.0);
      seg.label = pct;
      bar.segments.push_back(std::move(seg));
    }
    sec.bars.push_back(std::move(bar));
  }
  sec.full_ns = full;
  return sec;
}

std::string recording_facts(const sched_tsv::SchedFile& file, bool* warn) {
  const sched_tsv::Header& h = file.header;
  std::string base = file.path.substr(file.path.rfind('/') + 1);
  const std::string dot = " \xc2\xb7 ";
  std::string out = base;
  for (const std::string& t : h.targets) out += dot + t;
  out += dot + "window " + format_ns(static_cast<double>(h.window_ns));
  for (const auto& [name, n] : h.events) out += dot + name + "=" + with_thousands(n);
  *warn = h.lost > 0;
  if (h.lost > 0) {
    out += dot + with_thousands(h.lost) + " events LOST: times are incomplete";
  } else {
    out += dot + "0 lost";
  }
  return out;
}

}  // namespace hearth::charts
