// The CPU tenancy charts: which CPUs each thread ran on, and which threads each CPU ran.
#include <algorithm>
#include <map>
#include <set>

#include "render/charts/sections.h"

namespace hearth::charts {
namespace {

struct Cell {
  double ns = 0;
  uint64_t switch_ins = 0;
};

// A thread, or a pool of them (group_threads), with its on-CPU time per CPU.
struct ThreadRow {
  std::string comm;  // of the lowest tid
  int64_t tid = 0;   // lowest tid
  std::set<int64_t> tids;
  std::map<int, Cell> cpus;
  double total = 0;  // ns on any CPU
};

// Rows in first-seen order, and each tenancy row's index in them.
std::vector<ThreadRow> thread_rows(const sched_tsv::SchedFile& file, bool group) {
  std::vector<ThreadRow> rows;
  std::map<std::string, size_t> index;
  for (const sched_tsv::TenancyRow& t : file.tenancy) {
    std::string key = group ? group_name(t.comm) : std::to_string(t.tid);
    auto [it, fresh] = index.try_emplace(key, rows.size());
    if (fresh) rows.push_back({t.comm, t.tid, {}, {}, 0});
    ThreadRow& r = rows[it->second];
    if (t.tid < r.tid) r.comm = t.comm, r.tid = t.tid;
    r.tids.insert(t.tid);
    Cell& c = r.cpus[t.cpu];
    c.ns += static_cast<double>(t.on_cpu_ns);
    c.switch_ins += t.switch_ins;
    r.total += static_cast<double>(t.on_cpu_ns);
  }
  return rows;
}

bool name_less(const ThreadRow& a, const ThreadRow& b) {
  std::string ga = a.tids.size() > 1 ? group_name(a.comm) : a.comm;
  std::string gb = b.tids.size() > 1 ? group_name(b.comm) : b.comm;
  if (ga != gb) return ga < gb;
  return a.tid < b.tid;
}

// Busiest first; by name or tid when the user asked for that.
void sort_rows(std::vector<ThreadRow>* rows, SortKey sort) {
  std::sort(rows->begin(), rows->end(), [sort](const ThreadRow& a, const ThreadRow& b) {
    if (sort == SortKey::kTid) return a.tid < b.tid;
    if (sort != SortKey::kName && a.total != b.total) return a.total > b.total;
    return name_less(a, b);
  });
}

std::string who(const ThreadRow& r) {
  return thread_who(r.comm, r.tid, r.tids.size());
}

}  // namespace

Section tenancy_by_thread_section(const sched_tsv::SchedFile& file, const ChartOptions& o) {
  Section sec;
  sec.title = "CPU tenancy by thread: where each thread ran";
  sec.subtitle = recording_facts(file, &sec.warn);
  sec.views = Views::kPercentAndTime;
  std::vector<ThreadRow> rows = thread_rows(file, o.group_threads);
  sort_rows(&rows, o.sort);
  std::set<int> cpus;
  double full = static_cast<double>(file.header.window_ns);
  for (const ThreadRow& r : rows) {
    Bar bar;
    bar.label = thread_label(r.comm, r.tid, r.tids.size());
    full = std::max(full, r.total);
    for (const auto& [cpu, cell] : r.cpus) {
      cpus.insert(cpu);
      Segment seg;
      seg.value = cell.ns;
      seg.fill = cpu_color(cpu);
      seg.css_class = "cpu";
      seg.label = "CPU " + std::to_string(cpu);
      seg.title = who(r) + ": CPU " + std::to_string(cpu) + " " + format_ns(cell.ns) + " (" +
                  format_pct(cell.ns, r.total) + " of its time on CPU), " +
                  with_thousands(cell.switch_ins) + " switch-ins";
      bar.segments.push_back(std::move(seg));
    }
    sec.bars.push_back(std::move(bar));
  }
  for (int cpu : cpus) sec.legend.push_back({"CPU " + std::to_string(cpu), cpu_color(cpu)});
  sec.full_ns = full;
  return sec;
}

Section tenancy_by_cpu_section(const sched_tsv::SchedFile& file, const ChartOptions& o) {
  Section sec;
  sec.title = "CPU tenancy by CPU: which threads each CPU ran";
  sec.subtitle = recording_facts(file, &sec.warn);
  sec.views = Views::kPercentAndTime;
  // Colours by rank: the busiest threads get distinct hues, the rest grey.
  std::vector<ThreadRow> rows = thread_rows(file, o.group_threads);
  sort_rows(&rows, SortKey::kOnCpu);
  std::map<int, std::vector<size_t>> on_cpu;  // cpu -> rows that ran there
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [cpu, cell] : rows[i].cpus) on_cpu[cpu].push_back(i);
  }
  double full = static_cast<double>(file.header.window_ns);
  for (const auto& [cpu, members] : on_cpu) {
    double total = 0;
    for (size_t i : members) total += rows[i].cpus.at(cpu).ns;
    full = std::max(full, total);
    std::vector<size_t> order = members;
    std::sort(order.begin(), order.end(), [&, c = cpu](size_t a, size_t b) {
      double x = rows[a].cpus.at(c).ns, y = rows[b].cpus.at(c).ns;
      return x != y ? x > y : a < b;
    });
    Bar bar;
    bar.label = "CPU " + std::to_string(cpu);
    for (size_t i : order) {
      const ThreadRow& r = rows[i];
      const Cell& cell = r.cpus.at(cpu);
      Segment seg;
      seg.value = cell.ns;
      seg.fill = rank_color(i, bar.segments.size());
      seg.css_class = "thread";
      seg.label = r.tids.size() > 1 ? group_name(r.comm) : r.comm;
      seg.title = "CPU " + std::to_string(cpu) + ": " + who(r) + " " + format_ns(cell.ns) + " (" +
                  format_pct(cell.ns, total) + " of its time with these threads), " +
                  with_thousands(cell.switch_ins) + " switch-ins";
      bar.segments.push_back(std::move(seg));
    }
    sec.bars.push_back(std::move(bar));
  }
  for (size_t i = 0; i < rows.size() && i < kRankColors; ++i) {
    sec.legend.push_back(
        {thread_label(rows[i].comm, rows[i].tid, rows[i].tids.size()), rank_color(i)});
  }
  if (rows.size() > kRankColors) sec.legend.push_back({"other threads", rank_color(kRankColors)});
  sec.full_ns = full;
  return sec;
}

}  // namespace hearth::charts
