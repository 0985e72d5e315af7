// The preemptors chart: who took the CPU from the recorded threads, by the runnable time
// they caused, each bar split by the thread it was taken from.
#include <algorithm>
#include <map>
#include <set>

#include "render/charts/sections.h"

namespace hearth::charts {
namespace {

// A thread (or pool) on either side of a preemption.
struct Party {
  std::string comm;  // of the lowest tid
  int64_t tid = 0;   // lowest tid
  int64_t pid = 0;
  std::set<int64_t> tids;
  double ns = 0;
  uint64_t count = 0;

  void add(std::string_view c, int64_t t, double time, uint64_t n) {
    if (tids.empty() || t < tid) comm = std::string(c), tid = t;
    tids.insert(t);
    ns += time;
    count += n;
  }
};

std::string key_of(std::string_view comm, int64_t tid, bool group) {
  return group ? group_name(comm) : std::to_string(tid);
}

bool heavier(const Party& a, const Party& b) {
  if (a.ns != b.ns) return a.ns > b.ns;
  if (a.count != b.count) return a.count > b.count;
  return a.tid < b.tid;
}

std::string note(double ns, uint64_t count) {
  return format_ns(ns) + " \xc2\xb7 " + with_thousands(count) + "\xc3\x97";
}

}  // namespace

Section preemptors_section(const sched_tsv::SchedFile& file, const ChartOptions& o) {
  Section sec;
  sec.title = "Preemptors: who took the CPU from these threads";
  sec.subtitle = recording_facts(file, &sec.warn);
  sec.views = Views::kTime;
  const bool group = o.group_threads;

  // Victims ranked by the time taken from them: their rank picks their colour.
  std::map<std::string, Party> victims;
  std::map<std::string, Party> preemptors;
  // (preemptor key, victim key) -> time and count
  std::map<std::pair<std::string, std::string>, Party> pairs;
  for (const sched_tsv::PreemptorRow& p : file.preemptors) {
    auto t = static_cast<double>(p.time_ns);
    std::string pk = key_of(p.preemptor_comm, p.preemptor_tid, group);
    std::string vk = key_of(p.comm, p.tid, group);
    victims[vk].add(p.comm, p.tid, t, p.count);
    Party& pre = preemptors[pk];
    pre.add(p.preemptor_comm, p.preemptor_tid, t, p.count);
    if (pre.tid == p.preemptor_tid) pre.pid = p.preemptor_pid;
    pairs[{pk, vk}].add(p.comm, p.tid, t, p.count);
  }
  // Heaviest first; equal weights by key, so the order is total.
  auto ranked = [](const std::pair<std::string, const Party*>& a,
                   const std::pair<std::string, const Party*>& b) {
    if (heavier(*a.second, *b.second)) return true;
    if (heavier(*b.second, *a.second)) return false;
    return a.first < b.first;
  };
  std::vector<std::pair<std::string, const Party*>> vrank;
  for (const auto& [k, v] : victims) vrank.emplace_back(k, &v);
  std::sort(vrank.begin(), vrank.end(), ranked);
  std::map<std::string, size_t> victim_rank;
  for (size_t i = 0; i < vrank.size(); ++i) victim_rank[vrank[i].first] = i;

  std::vector<std::pair<std::string, const Party*>> prank;
  for (const auto& [k, p] : preemptors) prank.emplace_back(k, &p);
  std::sort(prank.begin(), prank.end(), ranked);

  double full = 0, rest_ns = 0;
  uint64_t rest_count = 0;
  for (size_t i = 0; i < prank.size(); ++i) {
    const auto& [pk, pre] = prank[i];
    if (i >= o.max_preemptors) {
      rest_ns += pre->ns;
      rest_count += pre->count;
      continue;
    }
    full = std::max(full, pre->ns);
    std::string pre_who = thread_who(pre->comm, pre->tid, pre->tids.size());
    if (pre->tids.size() == 1) pre_who += " (pid " + std::to_string(pre->pid) + ")";
    Bar bar;
    bar.label = thread_label(pre->comm, pre->tid, pre->tids.size());
    bar.note = note(pre->ns, pre->count);
    std::vector<std::pair<size_t, const Party*>> parts;  // (victim rank, pair)
    for (auto it = pairs.lower_bound({pk, {}}); it != pairs.end() && it->first.first == pk; ++it) {
      parts.emplace_back(victim_rank.at(it->first.second), &it->second);
    }
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
      if (a.second->ns != b.second->ns) return a.second->ns > b.second->ns;
      return a.first < b.first;
    });
    for (const auto& [rank, part] : parts) {
      const Party& victim = *vrank[rank].second;
      Segment seg;
      seg.value = part->ns;
      seg.fill = rank_color(rank, bar.segments.size());
      seg.css_class = "victim";
      seg.label = victim.tids.size() > 1 ? group_name(victim.comm) : victim.comm;
      seg.title = pre_who + " took " + format_ns(part->ns) + " from " +
                  thread_who(victim.comm, victim.tid, victim.tids.size()) + " in " +
                  with_thousands(part->count) + " preemptions";
      bar.segments.push_back(std::move(seg));
    }
    sec.bars.push_back(std::move(bar));
  }
  for (size_t i = 0; i < vrank.size() && i < kRankColors; ++i) {
    const Party& v = *vrank[i].second;
    sec.legend.push_back({"from " + thread_label(v.comm, v.tid, v.tids.size()), rank_color(i)});
  }
  if (vrank.size() > kRankColors) sec.legend.push_back({"from others", rank_color(kRankColors)});
  if (prank.size() > o.max_preemptors) {
    sec.footnote = "+" + std::to_string(prank.size() - o.max_preemptors) +
                   " more preemptors not shown: " + note(rest_ns, rest_count);
  }
  sec.full_ns = full > 0 ? full : 1;
  return sec;
}

}  // namespace hearth::charts
