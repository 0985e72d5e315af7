#include "bin/hearth/cmd_record.h"

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>

#include "bin/hearth/input_checks.h"
#include "bin/hearth/sampler_cli.h"
#include "collectors/mmv/mmv_watch.h"
#include "common/atomic_file.h"
#include "common/shutdown.h"
#include "recording/recording.h"
#include "render/report/report.h"

namespace hearth::cli {

namespace fs = std::filesystem;

std::vector<std::string> validate_alloc_collector(const AllocCollectorArgs& a,
                                                  const SelectionArgs& selection) {
  std::vector<std::string> problems;
  if (!a.alloc.empty()) {
    if (auto v = recording::parse_alloc_views(a.alloc); !v) problems.push_back(v.error().message);
    if (selection.pids.size() != 1 || selection.children || !selection.comm.empty())
      problems.push_back("--alloc takes one process: one -p, without --children or --comm");
  }
  if (a.alloc_mean < 1 || a.alloc_mean > (uint64_t{1} << 34))
    problems.push_back("--alloc-mean must be between 1 and 17179869184 bytes");
  if (a.alloc_live_max < 1 || a.alloc_live_max > (1u << 24))
    problems.push_back("--alloc-live-max must be between 1 and 16777216 blocks");
  return problems;
}

std::vector<std::string> validate_record(const RecordArgs& a) {
  std::vector<std::string> problems;
  if (!selects_some(a)) problems.push_back("give -p PID (repeatable) or --comm REGEX");
  for (std::string& p : validate_selection(a)) problems.push_back(std::move(p));
  for (int pid : a.pids) {
    if (pid > 0 && !fs::exists("/proc/" + std::to_string(pid)))
      problems.push_back("no process " + std::to_string(pid) + " (check the pid with ps)");
  }
  if (!(a.duration > 0 && a.duration <= 24 * 3600))
    problems.push_back("-d must be above 0 and at most a day (in seconds)");
  if (!(a.frequency > 0 && a.frequency <= 1000))
    problems.push_back("-F must be above 0 and at most 1000 Hz");
  if (!method_of(a.method)) problems.push_back("--method must be auto, bpf or ptrace");
  if (!(a.mmv_interval >= 0.01 && a.mmv_interval <= 3600))
    problems.push_back("--mmv-interval must be between 0.01 and 3600 seconds");
  if (a.no_stacks && a.no_sched && a.no_mmv && a.alloc.empty())
    problems.push_back("every collector is turned off");
  if (!(a.intervals >= 0 && a.intervals <= 7 * 24 * 3600))
    problems.push_back("--intervals must be between 0 and a week (in seconds)");
  for (std::string& p : validate_alloc_collector(a, a)) problems.push_back(std::move(p));
  if (!a.baseline.empty() && !fs::is_directory(a.baseline))
    problems.push_back("--baseline " + a.baseline + ": not a directory");
  return problems;
}

int run_record(const RecordArgs& a) {
  std::vector<std::string> problems = validate_record(a);
  PushArgs push = a.push;
  if (!push.url.empty()) {
    if (push.service.empty() && !a.pids.empty()) push.service = service_of_process(a.pids[0]);
    if (a.no_stacks) problems.push_back("--push sends the stacks recorded: not with --no-stacks");
    push.hz = std::max(1, static_cast<int>(std::lround(a.frequency)));
    for (std::string& p : validate_push(push, true)) problems.push_back("--push: " + p);
  }
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth record: %s\n", p.c_str());
    return 2;
  }
  recording::Options o;
  o.selection = process_selection(a);  // validated
  o.title = a.title;
  // A selection that takes no process: one line, before anything is created.
  if (auto chosen = recording::selected_processes(o.selection); !chosen) {
    std::fprintf(stderr, "hearth record: %s\n", chosen.error().message.c_str());
    return 2;
  }
  // Inputs: the baseline's profile and the MMV files named (those found by pid are PCP's
  // files, never a report's); outputs: everything record and render_report write in DIR.
  std::vector<std::string> inputs;
  if (!a.baseline.empty())
    inputs.push_back((fs::path(a.baseline) / report::kStacksFolded).string());
  if (!a.no_mmv && !a.mmv.empty()) {
    if (auto sources = mmv::resolve_sources(a.mmv, mmv::default_mmv_dir())) {
      for (const std::string& f : mmv::source_files(*sources)) inputs.push_back(f);
    }
  }
  std::vector<std::string> outputs = report::recorded_files(a.output);
  for (std::string& f : report::rendered_files(a.output)) outputs.push_back(std::move(f));
  if (!outputs_are_new("record", inputs, outputs)) return 2;
  std::error_code ec;
  fs::create_directories(a.output, ec);
  if (ec) {
    std::fprintf(stderr, "hearth record: cannot create %s: %s\n", a.output.c_str(),
                 ec.message().c_str());
    return 1;
  }
  install_shutdown_handlers();
  unsetenv("DEBUGINFOD_URLS");  // symbols from this host's files only, never the network

  o.duration = a.duration;
  o.output = a.output;
  o.frequency = a.frequency;
  o.method = *method_of(a.method);  // validated
  o.symbol_cache = symbol_cache_dir(a.symbol_cache);
  o.mmv_interval = a.mmv_interval;
  o.mmv = a.mmv;
  o.no_stacks = a.no_stacks;
  o.no_sched = a.no_sched;
  o.no_mmv = a.no_mmv;
  o.wakeups = a.wakeups;
  if (!a.alloc.empty()) o.alloc = *recording::parse_alloc_views(a.alloc);  // validated
  o.alloc_mean = a.alloc_mean;
  o.alloc_live_max = a.alloc_live_max;
  o.intervals = a.intervals;
  o.command_line = a.command_line;
  o.sampler_summary = [](stacks::ProcessSet& set) { return sampler_summary("record", set); };
  o.note = [](const std::string& line) {
    std::fprintf(stderr, "hearth record: %s\n", line.c_str());
  };
  const bool on_terminal = isatty(STDERR_FILENO);
  recording::Progress progress;
  if (on_terminal) {
    progress = [&a](double elapsed, uint64_t samples) {
      std::fprintf(stderr, "\rhearth record: %.1f s of %.1f s, %llu stack samples   ", elapsed,
                   a.duration, static_cast<unsigned long long>(samples));
    };
  }
  recording::Recording rec =
      recording::record(o, progress, [&](bool interrupted, bool target_exited) {
        if (on_terminal) std::fputs("\n", stderr);
        if (interrupted) std::fprintf(stderr, "hearth record: interrupted: writing the report\n");
        if (!target_exited) return;
        if (a.pids.size() == 1 && !a.children && a.comm.empty()) {
          std::fprintf(stderr, "hearth record: pid %d exited: writing the report\n", a.pids[0]);
        } else {
          std::fprintf(stderr,
                       "hearth record: every selected process exited: writing the report\n");
        }
      });

  int ran = 0;
  for (const auto& [name, outcome] :
       {std::pair<const char*, const recording::Outcome*>{"stacks", &rec.stacks},
        {"sched", &rec.sched},
        {"mmv", &rec.mmv},
        {"alloc", &rec.alloc}}) {
    if (outcome == &rec.alloc && !o.alloc.any()) continue;
    std::string status = outcome->figures.value("status", "");
    std::string message = outcome->figures.value("message", "");
    if (outcome->ran()) ++ran;
    if (!outcome->ran() || !message.empty())
      std::fprintf(stderr, "hearth record: %s: %s%s%s\n", name, status.c_str(),
                   message.empty() ? "" : ": ", message.c_str());
  }
  std::fputs(rec.stacks.summary.c_str(), stderr);
  std::fputs(symbol_cache_warnings("record").c_str(), stderr);
  if (rec.cost) {
    std::fprintf(stderr, "hearth record: sampling cost: %s\n",
                 report::sampling_cost_text(*rec.cost).c_str());
  }
  if (auto r = write_file_atomically((fs::path(a.output) / report::kReportJson).string(),
                                     rec.meta.dump(2) + "\n");
      !r) {
    std::fprintf(stderr, "hearth record: %s\n", r.error().message.c_str());
    return 1;
  }
  report::RenderOptions ro;
  ro.dir = a.output;
  ro.baseline_dir = a.baseline;
  auto rendered = report::render_report(ro);
  if (!rendered) {
    std::fprintf(stderr, "hearth record: %s\n", rendered.error().message.c_str());
    return 1;
  }
  for (const std::string& p : rendered->problems)
    std::fprintf(stderr, "hearth record: %s\n", p.c_str());
  std::fprintf(stderr,
               "hearth record: wrote %s (%zu pictures, %zu threads); look at it with "
               "`hearth serve %s`\n",
               report::index_path(a.output).c_str(), rendered->pictures.size(), rendered->threads,
               a.output.c_str());
  if (ran == 0) return 1;
  const std::string stacks = (fs::path(a.output) / report::kStacksFolded).string();
  if (!push.url.empty() && fs::exists(stacks)) {
    push.inputs = {a.output};  // the report directory: its window (report.json) and stacks
    if (int pushed = run_push(push); pushed != kPushDelivered) return pushed;
  } else if (!push.url.empty()) {
    std::fprintf(stderr, "hearth record: --push: no stacks were recorded: nothing pushed\n");
    return kPushFailed;
  }
  return 0;
}

}  // namespace hearth::cli
