#include "bin/hearth/cmd_sched.h"

#include "bin/hearth/input_checks.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "collectors/proc/process_select.h"
#include "collectors/sched/ftrace_text.h"
#include "collectors/sched/recorder.h"
#include "collectors/sched/tracefs_instance.h"
#include "common/pattern.h"
#include "common/shutdown.h"
#include "formats/sched_tsv.h"

namespace hearth::cli {
namespace {

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

void print_summary(const sched::RecordResult& r, const std::string& dir) {
  const sched_tsv::SchedHeader& h = r.header;
  double window_s = static_cast<double>(h.window_end_ns - h.window_start_ns) / 1e9;
  std::fprintf(stderr,
               "hearth sched: %llu events (sched_switch %llu, sched_waking %llu, sched_wakeup "
               "%llu, sched_migrate_task %llu), %llu lost, %llu threads, window %.3f s%s -> %s\n",
               static_cast<unsigned long long>(r.events),
               static_cast<unsigned long long>(h.sched_switch),
               static_cast<unsigned long long>(h.sched_waking),
               static_cast<unsigned long long>(h.sched_wakeup),
               static_cast<unsigned long long>(h.sched_migrate_task),
               static_cast<unsigned long long>(h.lost), static_cast<unsigned long long>(r.threads),
               window_s, r.interrupted ? " (ended early)" : "", dir.c_str());
  std::string follow;
  if (const auto& f = r.follow_latency_ns; !f.empty()) {
    char buf[160];
    std::snprintf(
        buf, sizeof buf, "; %zu new thread%s selected %.2f ms after %s fork (median; max %.2f ms)",
        f.size(), f.size() == 1 ? "" : "s", static_cast<double>(f[(f.size() - 1) / 2]) / 1e6,
        f.size() == 1 ? "its" : "their", static_cast<double>(f.back()) / 1e6);
    follow = buf;
  }
  std::fprintf(stderr, "hearth sched: tasks selected in the kernel by %s%s\n", r.selection.c_str(),
               follow.c_str());
  if (h.lost > 0) {
    std::string per_cpu;
    for (const sched::CpuLoss& l : r.losses) {
      if (l.total() == 0) continue;
      per_cpu += " cpu" + std::to_string(l.cpu) + "=" + std::to_string(l.total());
    }
    std::fprintf(stderr,
                 "hearth sched: warning: events lost on%s — the figures undercount; record "
                 "fewer tasks (-p instead of -a) or a shorter window\n",
                 per_cpu.c_str());
  }
}

}  // namespace

std::vector<std::string> validate_sched(const SchedArgs& a) {
  std::vector<std::string> problems;
  const bool some = selects_some(a);
  if (!some && !a.all) problems.push_back("give -p PID (repeatable), --comm REGEX or -a");
  if (!a.pids.empty() && a.all) problems.push_back("-p and -a exclude each other");
  if (!a.comm.empty() && a.all) problems.push_back("--comm and -a exclude each other");
  if (a.children && !some) problems.push_back("--inherit needs -p or --comm");
  for (std::string& p : validate_selection(a)) problems.push_back(std::move(p));
  if (a.cpu != -1) {
    if (!a.all) problems.push_back("--cpu needs -a");
    long ncpus = ::sysconf(_SC_NPROCESSORS_CONF);
    if (a.cpu < 0 || a.cpu >= ncpus) {
      problems.push_back("--cpu must be between 0 and " + std::to_string(ncpus - 1));
    }
  }
  if (!(a.duration > 0 && a.duration <= 7 * 24 * 3600))
    problems.push_back("-d must be above 0 and at most a week (in seconds)");
  if (!(a.intervals >= 0 && a.intervals <= 7 * 24 * 3600))
    problems.push_back("--intervals must be between 0 and a week (in seconds)");
  if (a.output.empty()) problems.push_back("-o DIR is required (the output directory)");
  return problems;
}

int run_sched(const SchedArgs& a) {
  std::vector<std::string> problems = validate_sched(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth sched: %s\n", p.c_str());
    return 2;
  }
  if (!sched::may_trace()) {
    std::fprintf(stderr,
                 "hearth sched: tracing needs root or CAP_PERFMON/CAP_SYS_ADMIN — run as root "
                 "(sudo)\n");
    return 1;
  }
  // The processes matching now; with --inherit the recorder follows their descendants, those
  // alive now and those created in the window.
  std::vector<pid_t> pids;
  if (!a.all) {
    const proc::ProcessSelection sel = process_selection(a);  // validated
    auto roots = proc::roots_to_trace(sel);
    if (!roots) {
      std::fprintf(stderr, "hearth sched: %s\n", roots.error().message.c_str());
      return 1;
    }
    if (roots->empty()) {
      std::fprintf(stderr, "hearth sched: %s\n", proc::nothing_matches(sel).c_str());
      return 2;
    }
    pids = std::move(*roots);
  }
  std::error_code ec;
  std::filesystem::create_directories(a.output, ec);
  if (ec) {
    std::fprintf(stderr, "hearth sched: cannot create %s: %s\n", a.output.c_str(),
                 ec.message().c_str());
    return 1;
  }
  std::optional<sched::FtraceTextWriter> ftrace;
  if (a.ftrace) {
    auto created = sched::FtraceTextWriter::create(a.output + "/sched.ftrace.txt");
    if (!created) {
      std::fprintf(stderr, "hearth sched: %s\n", created.error().message.c_str());
      return 1;
    }
    ftrace.emplace(std::move(*created));
  }

  install_shutdown_handlers();
  sched::RecordOptions o;
  o.pids = pids;
  o.inherit = a.children;
  o.all = a.all;
  o.cpu = a.cpu;
  o.duration_s = a.duration;
  o.wakeups = a.wakeups;
  o.intervals_s = a.intervals;
  o.stop_requested = [] { return shutdown_requested(); };
  o.ftrace = ftrace ? &*ftrace : nullptr;
  o.spool_dir = a.output;
  auto recorded = sched::record_sched(o);
  if (!recorded) {
    std::fprintf(stderr, "hearth sched: %s\n", recorded.error().message.c_str());
    return 1;
  }
  if (!recorded->fork_watcher_failure.empty()) {
    std::fprintf(stderr, "hearth sched: %s; threads created after it were found by rescans\n",
                 recorded->fork_watcher_failure.c_str());
  }
  if (recorded->interrupted) {
    std::fprintf(stderr, "hearth sched: interrupted by %s: writing what was recorded\n",
                 signal_name(shutdown_signal()));
  }
  auto written = sched_tsv::write_sched_tsvs(a.output, recorded->header, recorded->model, a.wakeups,
                                             a.all && a.cpu >= 0);
  if (written) {
    auto files =
        sched::write_interval_files(a.output, recorded->header, *recorded->model.intervals);
    if (!files) written = std::unexpected(files.error());
  }
  if (written && ftrace) written = ftrace->commit();
  if (!written) {
    std::fprintf(stderr, "hearth sched: %s\n", written.error().message.c_str());
    return 1;
  }
  print_summary(*recorded, a.output);
  if (const sched::IntervalStore& iv = *recorded->model.intervals; iv.sliced()) {
    const sched_tsv::SchedHeader& h = recorded->header;
    std::fprintf(stderr,
                 "hearth sched: every interval of the last %.1f s kept (sched.intervals.tsv); "
                 "the %.1f s before in %.0f s slots (sched.slots.tsv) — --intervals SECS keeps "
                 "more\n",
                 static_cast<double>(h.window_end_ns - iv.keep.whole_from_ns) / 1e9,
                 static_cast<double>(iv.keep.whole_from_ns - h.window_start_ns) / 1e9,
                 static_cast<double>(iv.keep.slot_ns) / 1e9);
  }
  if (const uint64_t estimated = recorded->model.inferred_without_wakeup; estimated > 0) {
    uint64_t switch_ins = 0;
    for (const sched_tsv::TenancyRow& t : recorded->model.tenancy) switch_ins += t.switch_ins;
    std::fprintf(
        stderr,
        "hearth sched: note: this kernel did not record %llu of %llu switch-ins of the "
        "threads (%.2f%%); their times are estimated (on-CPU time may be overcounted) — "
        "add --wakeups to place them exactly\n",
        static_cast<unsigned long long>(estimated), static_cast<unsigned long long>(switch_ins),
        switch_ins > 0 ? 100.0 * static_cast<double>(estimated) / static_cast<double>(switch_ins)
                       : 0.0);
  }
  return 0;
}

}  // namespace hearth::cli
