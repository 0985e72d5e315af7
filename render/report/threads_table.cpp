#include "render/report/threads_table.h"

#include <algorithm>
#include <vector>

#include "render/report/html_text.h"
#include "render/report/report.h"

namespace hearth::report {
namespace {

// Threads by what they did: on CPU, then waiting for a CPU (runnable), then stopped, longest
// first; threads the scheduler did not see (no sched.states.tsv) after them, by samples. Every
// thread is sampled at the same rate, so samples alone would not tell them apart.
bool busier(const ThreadRow* a, const ThreadRow* b) {
  if (a->sched.has_value() != b->sched.has_value()) return a->sched.has_value();
  if (a->sched) {
    const sched_tsv::ThreadStates &x = *a->sched, &y = *b->sched;
    if (x.on_cpu_ns != y.on_cpu_ns) return x.on_cpu_ns > y.on_cpu_ns;
    if (x.runnable_ns != y.runnable_ns) return x.runnable_ns > y.runnable_ns;
    if (x.stopped_ns != y.stopped_ns) return x.stopped_ns > y.stopped_ns;
  }
  if (a->samples != b->samples) return a->samples > b->samples;
  if (a->name != b->name) return a->name < b->name;
  return a->tid < b->tid;
}

// What a process's threads did, summed: how processes are ordered.
struct ProcessLoad {
  uint64_t on_cpu_ns = 0;
  uint64_t runnable_ns = 0;
  double samples = 0;
};

// ROWS grouped by process, the busiest process first, then by pid; threads of no known process
// (pid < 0) last; within a process, busier().
void sort_by_process(std::vector<const ThreadRow*>* rows) {
  std::map<int64_t, ProcessLoad> load;
  for (const ThreadRow* r : *rows) {
    ProcessLoad& l = load[r->pid];
    l.samples += r->samples;
    if (r->sched) {
      l.on_cpu_ns += r->sched->on_cpu_ns;
      l.runnable_ns += r->sched->runnable_ns;
    }
  }
  std::sort(rows->begin(), rows->end(), [&load](const ThreadRow* a, const ThreadRow* b) {
    if (a->pid == b->pid) return busier(a, b);
    if ((a->pid < 0) != (b->pid < 0)) return a->pid >= 0;
    const ProcessLoad &x = load[a->pid], &y = load[b->pid];
    if (x.on_cpu_ns != y.on_cpu_ns) return x.on_cpu_ns > y.on_cpu_ns;
    if (x.runnable_ns != y.runnable_ns) return x.runnable_ns > y.runnable_ns;
    if (x.samples != y.samples) return x.samples > y.samples;
    return a->pid < b->pid;
  });
}

}  // namespace

std::string thread_key(int64_t tid, std::string_view name) {
  std::string key(1, tid >= 0 ? 't' : 'n');
  key += tid >= 0 ? std::to_string(tid) : std::string(name);
  return key;
}

std::string threads_table(const std::map<std::string, ThreadRow>& threads,
                          const std::string& window, charts::StoppedBy by, bool sched_chart) {
  std::vector<const ThreadRow*> rows;
  double total_samples = 0;
  for (const auto& [key, row] : threads) {
    rows.push_back(&row);
    total_samples += row.samples;
  }
  const bool by_process =
      std::any_of(rows.begin(), rows.end(), [](const ThreadRow* r) { return r->pid >= 0; });
  if (by_process) {
    sort_by_process(&rows);
  } else {
    std::sort(rows.begin(), rows.end(), busier);
  }
  std::string b =
      std::string("<table class=\"threads\"><thead><tr>") + (by_process ? "<th>process</th>" : "") +
      "<th>thread</th><th>tid</th><th>samples</th>"
      "<th>on CPU</th><th>runnable (preempted)</th><th>sleeping</th><th>blocked (D)</th><th>" +
      esc(charts::state_name(charts::State::kStopped, by)) +
      "</th><th>other</th></tr></thead><tbody>\n";
  for (const ThreadRow* r : rows) {
    b += "<tr>";
    if (by_process) {
      b += r->process_title.empty() ? "<td>" : "<td title=\"" + esc(r->process_title) + "\">";
      if (r->pid >= 0) {
        b += esc(r->process.empty() ? std::string("pid") : r->process) + " " +
             std::to_string(r->pid);
      }
      b += "</td>";
    }
    b += "<td>";
    if (!r->root.empty()) {
      b += "<a href=\"" + std::string(kFlameSvg) + "?s=" + url_encode(regex_literal(r->root)) +
           "\" title=\"highlight in the flamegraph\">" + esc(r->name) + "</a>";
    } else {
      b += esc(r->name);
    }
    b += "</td><td>";
    if (r->tid >= 0 && r->sched && sched_chart) {
      b += "<a href=\"" + std::string(kSchedSvg) + "#thread-" + std::to_string(r->tid) +
           "\" title=\"show in the scheduler charts\">" + std::to_string(r->tid) + "</a>";
    } else {
      b += r->tid >= 0 ? std::to_string(r->tid) : std::string("*");
    }
    b += "</td><td>";
    if (r->samples > 0) {
      b += fixed(r->samples, 0) + " (" + fixed(100 * r->samples / total_samples, 1) + "%)";
    }
    b += "</td>";
    if (r->sched) {
      const auto& s = *r->sched;
      for (uint64_t ns : {s.on_cpu_ns, s.runnable_ns, s.sleeping_ns, s.blocked_ns})
        b += "<td>" + duration_ns(static_cast<double>(ns)) + "</td>";
      if (r->sched_version < 2) {
        b += "<td title=\"not told apart by a version-1 sched.states.tsv: in "
             "other\">\xe2\x80\x93</td>";
      } else {
        b += "<td>" + duration_ns(static_cast<double>(s.stopped_ns)) + "</td>";
      }
      b += "<td>" + duration_ns(static_cast<double>(s.other_ns)) + "</td>";
    } else {
      b += "<td></td><td></td><td></td><td></td><td></td><td></td>";
    }
    b += "</tr>\n";
  }
  b += "</tbody></table>\n<p class=\"note\">Samples: stacks taken of the thread (click a name to "
       "highlight it in the flamegraph";
  if (sched_chart) b += ", a tid to find it in the scheduler charts";
  b += "). Times: exact, from every context switch";
  if (!window.empty()) b += " in the " + esc(window) + " window";
  b += by_process ? "; threads by process (the busiest first), then by time on CPU, then "
                    "runnable, then stopped.</p>\n"
                  : "; threads by time on CPU, then runnable, then stopped.</p>\n";
  return b;
}

}  // namespace hearth::report
