#include "bin/hearth/cmd_watch.h"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "bin/hearth/push_children.h"
#include "bin/hearth/sampler_cli.h"
#include "common/file_io.h"
#include "common/shutdown.h"
#include "recording/alloc_collector.h"
#include "watch/rules.h"
#include "watch/watcher.h"

namespace hearth::cli {

namespace fs = std::filesystem;

namespace {

// --push's destination: --service defaults to the first -p process's name, as for record.
PushArgs push_destination(const WatchArgs& a) {
  PushArgs push = a.push;
  if (push.service.empty() && !a.pids.empty()) push.service = service_of_process(a.pids[0]);
  return push;
}

}  // namespace

std::vector<std::string> validate_watch(const WatchArgs& a) {
  std::vector<std::string> problems;
  if (a.rules.empty() && a.rule_files.empty())
    problems.push_back("give a rule: --rule EXPR or --rules FILE (README, \"Rules\")");
  if (a.check) return problems;
  if (!selects_some(a)) problems.push_back("give -p PID (repeatable) or --comm REGEX");
  for (std::string& p : validate_selection(a)) problems.push_back(std::move(p));
  for (int pid : a.pids) {
    if (pid > 0 && !fs::exists("/proc/" + std::to_string(pid)))
      problems.push_back("no process " + std::to_string(pid) + " (check the pid with ps)");
  }
  if (a.output.empty()) problems.push_back("give -o DIR: the directory reports are written in");
  if (!(a.ring >= 0 && a.ring <= 24 * 3600))
    problems.push_back("--ring must be between 0 and a day (in seconds)");
  if (!(a.rate >= 0.01 && a.rate <= 100)) problems.push_back("--rate must be 0.01 to 100 Hz");
  if (!(a.frequency > 0 && a.frequency <= 1000))
    problems.push_back("-F must be above 0 and at most 1000 Hz");
  if (!(a.after > 0 && a.after <= 3600))
    problems.push_back("--after must be above 0 and at most an hour (in seconds)");
  if (!(a.cooldown >= 0)) problems.push_back("--cooldown must be 0 or more seconds");
  if (a.per_hour < 1) problems.push_back("--per-hour must be at least 1");
  if (!(a.disk_budget_mb > 0)) problems.push_back("--disk-budget must be above 0 MB");
  if (!(a.memory_budget_mb > 0 && a.memory_budget_mb <= 1 << 20))
    problems.push_back("--memory-budget must be above 0 MB (and at most 1 TB)");
  for (std::string& p : validate_alloc_collector(a, a)) problems.push_back(std::move(p));
  if (!a.push.url.empty()) {
    PushArgs push = push_destination(a);
    for (std::string& p : validate_push(push, true)) problems.push_back("--push: " + p);
  }
  auto method = method_of(a.method);
  if (!method) problems.push_back("--method must be bpf or ptrace");
  if (method && *method == stacks::CaptureMethod::kAuto)
    problems.push_back(
        "--method auto would fall back to ptrace, which stops every thread at every sample: say "
        "--method bpf or --method ptrace");
  return problems;
}

int run_watch(const WatchArgs& a) {
  std::vector<std::string> problems = validate_watch(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth watch: %s\n", p.c_str());
    return 2;
  }
  if (a.check) {  // the rules as the watcher reads them, canonical; errors as when watching
    int bad = 0;
    size_t n = 1;
    auto show = [&](const watch::RuleSet& set) {
      for (const std::string& e : set.errors) std::fprintf(stderr, "hearth watch: %s\n", e.c_str());
      bad += static_cast<int>(set.errors.size());
      for (const watch::Rule& r : set.rules) std::printf("%s\n", watch::to_text(r).c_str());
      n += set.rules.size();
    };
    for (const std::string& f : a.rule_files) {
      auto text = read_file(f);
      if (!text) {
        std::fprintf(stderr, "hearth watch: %s: %s\n", f.c_str(), text.error().message.c_str());
        ++bad;
        continue;
      }
      show(watch::parse_rules(*text, f, n));
    }
    for (size_t i = 0; i < a.rules.size(); ++i)
      show(watch::parse_rules(a.rules[i], "--rule " + std::to_string(i + 1), n));
    return bad ? 2 : 0;
  }
  std::error_code ec;
  fs::create_directories(a.output, ec);
  if (ec) {
    std::fprintf(stderr, "hearth watch: cannot create %s: %s\n", a.output.c_str(),
                 ec.message().c_str());
    return 1;
  }
  install_shutdown_handlers();
  install_reload_handler();
  unsetenv("DEBUGINFOD_URLS");  // symbols from this host's files only, never the network

  watch::WatchOptions o;
  o.selection = process_selection(a);
  o.output = a.output;
  o.rule_files = a.rule_files;
  o.rule_texts = a.rules;
  o.ring_s = a.ring;
  o.rate_hz = a.rate;
  o.record_hz = a.frequency;
  o.after_s = a.after;
  o.budget.cooldown_s = a.cooldown;
  o.budget.per_hour = a.per_hour;
  o.budget.total = a.max_reports;
  o.budget.disk_bytes = static_cast<uint64_t>(a.disk_budget_mb * 1024 * 1024);
  o.memory_budget_bytes = static_cast<uint64_t>(a.memory_budget_mb * 1024 * 1024);
  o.method = *method_of(a.method);
  o.symbol_cache = symbol_cache_dir(a.symbol_cache);
  o.mmv = a.mmv;
  o.pcp_host = a.pcp_host;
  o.no_sched = a.no_sched;
  o.publish = a.no_publish ? "" : a.publish;
  if (!a.alloc.empty()) o.alloc = *recording::parse_alloc_views(a.alloc);  // validated
  o.alloc_mean = a.alloc_mean;
  o.alloc_live_max = a.alloc_live_max;
  o.command_line = a.command_line;
  const bool on_terminal = isatty(STDERR_FILENO);
  std::atomic<bool> status_shown{false};
  o.log = [&](const std::string& line) {
    if (status_shown.exchange(false)) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "hearth watch: %s\n", line.c_str());
  };
  if (on_terminal) {
    o.status = [&](const std::string& line) {
      std::fprintf(stderr, "\r\033[Khearth watch: %s", line.c_str());
      status_shown = true;
    };
  }
  std::optional<BackgroundPushes> pushes;
  if (!a.push.url.empty()) {
    pushes.emplace(push_destination(a), o.log);
    o.report_written = [&](const std::string& dir) { pushes->start(dir); };
    o.tick = [&] { pushes->reap(); };
  }
  const int status = watch::watch(o);
  if (pushes) {
    if (pushes->running() > 0) {
      o.log("--push: waiting up to 30 s for " + std::to_string(pushes->running()) +
            " push(es) still going");
    }
    pushes->finish(std::chrono::seconds(30));
  }
  if (status_shown) std::fputs("\n", stderr);
  return status;
}

}  // namespace hearth::cli
