#include "bin/hearth/cmd_stacks.h"

#include "bin/hearth/figures.h"
#include "bin/hearth/input_checks.h"
#include "bin/hearth/profile_output.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <future>
#include <optional>

#include "bin/hearth/sampler_cli.h"
#include "bin/hearth/terminal.h"
#include "collectors/stacks/process_set.h"
#include "collectors/stacks/sampler.h"
#include "common/atomic_file.h"
#include "common/shutdown.h"
#include "render/live/live_view.h"
#include "render/profile/speedscope_writer.h"

namespace hearth::cli {
namespace {

using std::chrono::duration_cast;
using std::chrono::microseconds;
using Clock = std::chrono::steady_clock;

constexpr auto kLiveRefresh = std::chrono::milliseconds(500);
constexpr auto kReleasePoll = std::chrono::milliseconds(1);

}  // namespace

std::vector<std::string> validate_stacks(const StacksArgs& a) {
  std::vector<std::string> problems;
  if (!selects_some(a)) problems.push_back("give -p PID (repeatable) or --comm REGEX");
  for (std::string& p : validate_selection(a)) problems.push_back(std::move(p));
  if (a.count < 0) problems.push_back("-n must not be negative");
  if (!(a.duration >= 0 && a.duration <= 7 * 24 * 3600))
    problems.push_back("-d must be between 0 and a week");
  if (!(a.frequency > 0 && a.frequency <= 1000))
    problems.push_back("-F must be above 0 and at most 1000 Hz");
  if (!method_of(a.method)) problems.push_back("--method must be auto, bpf or ptrace");
  if (a.one_at_a_time && a.all_stop)
    problems.push_back("--one-at-a-time and --all-stop exclude each other");
  if (a.format != "folded" && a.format != "gdb")
    problems.push_back("--format must be folded or gdb");
  if (a.format == "gdb" && (is_pprof_path(a.output) || profile::is_speedscope_path(a.output)))
    problems.push_back("--format gdb writes gdb's text: -o names a pprof or speedscope file");
  if (a.threads != "split" && a.threads != "merge" && a.threads != "raw")
    problems.push_back("--threads must be split, merge or raw");
  if (a.max_frames < 1 || a.max_frames > 4096)
    problems.push_back("--max-frames must be between 1 and 4096");
  if (!(a.stop_timeout_ms >= 0.1 && a.stop_timeout_ms <= 10000)) {
    problems.push_back("--stop-timeout must be between 0.1 and 10000 ms");
  }
  if (a.stack_bytes < 4096 || a.stack_bytes > (64u << 20)) {
    problems.push_back("--stack-bytes must be between 4096 and 67108864");
  }
  return problems;
}

int run_stacks(const StacksArgs& a) {
  std::vector<std::string> problems = validate_stacks(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth stacks: %s\n", p.c_str());
    return 2;
  }
  std::vector<std::string> outputs = {a.output.empty() ? "-" : a.output};
  if (!a.raw.empty()) outputs.push_back(a.raw);
  if (!a.samples.empty()) outputs.push_back(a.samples);
  if (!outputs_are_new("stacks", {}, outputs)) return 2;
  bool live = a.output.empty() && a.format == "folded" && isatty(STDOUT_FILENO);
  int count = a.count;
  if (count == 0 && a.duration == 0 && !live) count = 1;

  const auto began = Clock::now();
  install_shutdown_handlers();
  // Symbols come from the host's files only: libdw must not download debug info from a
  // debuginfod server while we sample a production process.
  unsetenv("DEBUGINFOD_URLS");
  stacks::ProcessSetOptions po;
  po.selection = process_selection(a);
  stacks::SamplerOptions& so = po.sampler;
  so.read_title = a.title;
  so.method = *method_of(a.method);
  // ptrace: a one-shot snapshot stops every thread together (consistent across threads);
  // repeated sampling doesn't need that and stops one thread at a time, so that no thread
  // waits for the slowest (on a busy host, for a CPU) — see README "Stopping threads".
  so.one_at_a_time = a.one_at_a_time || (!a.all_stop && count != 1);
  so.max_frames = a.max_frames;
  so.stack_bytes = a.stack_bytes;
  so.max_stack_bytes = std::max<size_t>(a.stack_bytes, 1 << 20);
  so.stop_timeout = microseconds(static_cast<int64_t>(a.stop_timeout_ms * 1000));
  so.kernel_stacks = !a.no_kernel;
  so.symbol_cache = symbol_cache_dir(a.symbol_cache);
  auto sampler = stacks::ProcessSet::open(po);
  if (!sampler) {
    std::fprintf(stderr, "hearth stacks: %s\n", sampler.error().message.c_str());
    return sampler.error().errnum == ENOENT ? 2 : 1;  // ENOENT: the selection matched nothing
  }
  const auto attached = Clock::now();
  // Processes that joined, left or were left out: said as it happens (at the end in the live
  // view, which owns the terminal).
  std::vector<std::string> notices;
  auto say_notices = [&](bool now) {
    for (std::string& n : sampler->notices()) notices.push_back(std::move(n));
    if (!now) return;
    for (const std::string& n : notices) std::fprintf(stderr, "hearth stacks: %s\n", n.c_str());
    notices.clear();
  };
  say_notices(!live);
  if (!sampler->fallback_reason().empty()) {
    std::fprintf(stderr, "hearth stacks: %s; using ptrace (stops every thread briefly)\n",
                 sampler->fallback_reason().c_str());
  }
  stacks::AggregateOptions ao{.merge_threads = a.threads == "merge",
                              .state_frames = a.state,
                              .kernel_names = a.threads == "raw",
                              .process_roots = sampler->several(),
                              .title_frames = a.title};
  stacks::StackCounts counts;
  std::string ended_because;
  {
    std::unique_ptr<Terminal> term;
    if (live) term = std::make_unique<Terminal>();
    auto period = microseconds(static_cast<int64_t>(1e6 / a.frequency));
    auto start = Clock::now();
    auto next = start;
    auto next_refresh = start;
    for (int n = 0;; ++n) {
      if (count > 0 && n >= count) break;
      if (a.duration > 0 && Clock::now() - start >= std::chrono::duration<double>(a.duration))
        break;
      // Ctrl-C ends the run, after the first round: one taken while attaching outlasted the
      // wait (a large process, a busy host) gives an answer rather than "no sample taken".
      if (n > 0 && shutdown_requested()) break;
      // The last round of -n, or of -d (no other fits before its end), releases the target at
      // the end of its own stop. Runs that end otherwise (Ctrl-C, q) release it below, one
      // thread at a time (a stop of its own for each).
      bool last = count > 0 && n + 1 >= count;
      if (a.duration > 0 && std::max(next, Clock::now()) + period - start >=
                                std::chrono::duration<double>(a.duration))
        last = true;
      if (auto r = sampler->sample(last ? stacks::Release::kDetach : stacks::Release::kResume);
          !r) {
        ended_because = r.error().message;
        break;
      }
      say_notices(!live);
      if (term && Clock::now() >= next_refresh) {
        sampler->aggregate(&counts, ao);
        int cols, rows;
        term->size(&cols, &rows);
        const stacks::SamplerSummary sum = sampler->summary();
        live::LiveStatus st{.pid = sampler->first_pid(),
                            .process_name = sampler->first_name(),
                            .samples = sum.rounds,
                            .threads = sum.threads_seen,
                            .elapsed_s = sum.elapsed_s,
                            .stall_median_ms = median_of(sum.round_stall_ms),
                            .stall_max_ms = max_of(sum.round_stall_ms),
                            .processes = sampler->several() ? sampler->processes() : 0};
        std::vector<live::StackRow> rows_of_stacks;
        for (const stacks::StackCounts::Entry& e : counts.top(static_cast<size_t>(rows)))
          rows_of_stacks.push_back({e.stack, e.count});
        term->show(live::render(
            {.header = live::live_header(st), .stacks = rows_of_stacks, .total = counts.total()},
            cols, rows));
        next_refresh = Clock::now() + kLiveRefresh;
      }
      if (term) {
        char key = term->read_key();
        if (key == 'q' || key == 'Q') break;
      }
      next += period;
      if (last) break;
      auto wait = duration_cast<microseconds>(next - Clock::now());
      if (wait.count() > 0) {
        if (auto r = sampler->idle_for(wait); !r) {
          ended_because = r.error().message;
          break;
        }
        say_notices(!live);
      } else {
        next = Clock::now();  // we fell behind: don't try to catch up in a burst
      }
    }
  }
  const auto sampled = Clock::now();
  // Release the target before the slow part (symbolization, writing): nothing after this
  // touches it through ptrace.
  if (auto r = sampler->detach(); !r)
    std::fprintf(stderr, "hearth stacks: %s\n", r.error().message.c_str());
  say_notices(true);
  if (!ended_because.empty())
    std::fprintf(stderr, "hearth stacks: stopped: %s\n", ended_because.c_str());
  if (sampler->rounds() == 0) {
    std::fprintf(stderr, "hearth stacks: no sample taken\n");
    return 1;
  }
  // Symbolizes and writes; touches no ptrace state (see Sampler::detach()).
  auto write_outputs = [&]() -> int {
    sampler->aggregate(&counts, ao);
    std::string out_path = a.output.empty() ? "-" : a.output;
    if (!live || !a.output.empty()) {
      auto written = a.format == "gdb" ? write_file_atomically(out_path, sampler->gdb_text())
                     : is_pprof_path(out_path)
                         ? write_folded_as_pprof(counts.to_folded(), out_path, 1e9 / a.frequency)
                     : profile::is_speedscope_path(out_path)
                         ? write_folded_as_speedscope(counts.to_folded(), out_path)
                         : write_file_atomically(out_path, counts.to_folded());
      if (!written) {
        std::fprintf(stderr, "hearth stacks: %s\n", written.error().message.c_str());
        return 1;
      }
    }
    if (!a.raw.empty()) {
      auto written = write_file_atomically(a.raw, sampler->raw_text(ao));
      if (!written) {
        std::fprintf(stderr, "hearth stacks: %s\n", written.error().message.c_str());
        return 1;
      }
    }
    if (!a.samples.empty()) {
      auto written = write_file_atomically(a.samples, timed_samples::format(sampler->timed(ao)));
      if (!written) {
        std::fprintf(stderr, "hearth stacks: %s\n", written.error().message.c_str());
        return 1;
      }
    }
    return 0;
  };
  int status = 0;
  if (!sampler->holds_target()) {
    status = write_outputs();
  } else {
    // Threads that could not be stopped (D sleep) still have our interrupt pending: each
    // stops when it wakes and must be detached at once, not after the writing. The tracees
    // belong to this thread, so the writing goes to another one meanwhile.
    std::future<int> writing = std::async(std::launch::async, write_outputs);
    while (writing.wait_for(kReleasePoll) != std::future_status::ready) {
      if (sampler->holds_target()) (void)sampler->detach();
    }
    status = writing.get();
    if (sampler->holds_target() && sampler->detach()) {
      std::fprintf(stderr, "hearth stacks: every thread released\n");
    }
    // Still held: the kernel releases them as we exit.
  }
  if (status != 0) return status;
  std::fputs(sampler_summary("stacks", *sampler).c_str(), stderr);
  const std::string times =
      a.verbose
          ? time_summary(
                "stacks", sampler->summary(),
                {.began = began, .attached = attached, .sampled = sampled, .written = Clock::now()})
          : "";
  // Ending the samplers writes what their symbolizers learned to the symbol cache.
  sampler = std::unexpected(Error{});
  std::fputs(times.c_str(), stderr);
  if (a.verbose) std::fputs(symbol_cache_summary("stacks", so.symbol_cache).c_str(), stderr);
  std::fputs(symbol_cache_warnings("stacks").c_str(), stderr);
  return 0;
}

}  // namespace hearth::cli
