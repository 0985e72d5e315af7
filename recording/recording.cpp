#include "recording/recording.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <filesystem>
#include <functional>
#include <future>
#include <thread>

#include "collectors/mmv/mmv_watch.h"
#include "collectors/mmv/series_output.h"
#include "collectors/sched/recorder.h"
#include "collectors/sched/stop_cost.h"
#include "common/atomic_file.h"
#include "common/file_io.h"
#include "common/shutdown.h"
#include "common/stats.h"
#include "common/version.h"
#include "formats/sched_tsv.h"

namespace hearth::recording {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::duration_cast;
using std::chrono::microseconds;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

// The file's bytes, or "" when it can't be read (the process is gone).
std::string slurp(const std::string& path) {
  return read_file(path).value_or(std::string());
}

std::string cmdline_of(pid_t pid) {
  std::string raw = slurp("/proc/" + std::to_string(pid) + "/cmdline");
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  return trim(raw);
}

std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The process has exited: gone, or a zombie its parent has not reaped yet.
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  char state = stat[paren + 2];
  return state == 'Z' || state == 'X';
}

// How often the window looks for processes a growing selection (--children, --comm) takes in.
constexpr auto kRescanPeriod = std::chrono::seconds(1);

double round3(double v) {
  return std::round(v * 1000) / 1000;
}

// The window every collector shares: ends at the deadline or on SIGINT/SIGTERM/SIGHUP.
struct Window {
  Clock::time_point start, deadline;
  std::atomic<bool> over{false};
  bool ended() const { return over.load() || shutdown_requested() || Clock::now() >= deadline; }
};

// ---- stacks ----

void run_stacks_collector(const Options& a, Window* w, std::atomic<uint64_t>* samples,
                          Outcome* out) {
  stacks::ProcessSetOptions po;
  po.selection = a.selection;
  po.sampler.method = a.method;
  po.sampler.one_at_a_time = true;  // ptrace: repeated sampling stops one thread at a time
  po.sampler.read_title = a.title;
  po.sampler.symbol_cache = a.symbol_cache;
  auto sampler = stacks::ProcessSet::open(po);
  if (!sampler) return out->failed(sampler.error().message);
  // Processes that joined, exited or were left out: said as it happens.
  auto say_notices = [&] {
    for (const std::string& n : sampler->notices()) {
      if (a.note) a.note("stacks: " + n);
    }
  };
  say_notices();
  if (!sampler->fallback_reason().empty()) {
    if (a.note) {
      a.note("stacks: " + sampler->fallback_reason() +
             "; using ptrace (stops every thread briefly)");
    }
  }
  std::string ended_because;
  auto period = microseconds(static_cast<int64_t>(1e6 / a.frequency));
  auto next = Clock::now();
  // The first sample is taken even when the window ended while the sampler attached (loading
  // a large process's symbols can outlast a short window on a busy host): a report with one
  // sample says more than a failed collector.
  for (bool first = true; first || !w->ended(); first = false) {
    // The window's last sample (no other fits before its end) releases the target at the end of
    // its own stop (ptrace: Release::kDetach). Released afterwards instead, each thread would be
    // stopped once more for it: stops the scheduler collector, still tracing, would count (one
    // per thread, seen on a loaded host as 279 't' switch-outs for the sampler's 270 stops). A
    // window cut short (Ctrl-C, a collector's failure) is released below, as before.
    const bool last = std::max(next, Clock::now()) + period >= w->deadline;
    if (auto r = sampler->sample(last ? stacks::Release::kDetach : stacks::Release::kResume); !r) {
      ended_because = r.error().message;
      break;
    }
    samples->store(sampler->rounds());
    say_notices();
    if (last) break;
    next += period;
    auto wait = duration_cast<microseconds>(std::min(next, w->deadline) - Clock::now());
    // Short naps so Ctrl-C ends the window quickly.
    while (wait.count() > 0 && !w->ended()) {
      auto nap = std::min(wait, microseconds(50000));
      if (auto r = sampler->idle_for(nap); !r) {
        ended_because = r.error().message;
        break;
      }
      wait = duration_cast<microseconds>(std::min(next, w->deadline) - Clock::now());
    }
    if (!ended_because.empty()) break;
    if (wait.count() <= 0) next = std::max(next, Clock::now() - period);
  }
  (void)sampler->detach();
  say_notices();
  if (sampler->summary().thread_samples == 0) {  // no round, or the target was already gone
    return out->failed(ended_because.empty() ? "no stack taken" : ended_because);
  }
  auto write = [&]() -> Result<void> { return write_stacks(*sampler, a.output, a.title); };
  Result<void> written;
  if (!sampler->holds_target()) {
    written = write();
  } else {
    // Threads that could not stop (D sleep) stop when they wake: release them as they do,
    // while another thread symbolizes (the tracees belong to this one).
    std::future<Result<void>> writing = std::async(std::launch::async, write);
    while (writing.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
      if (sampler->holds_target()) (void)sampler->detach();
    }
    written = writing.get();
    if (sampler->holds_target()) (void)sampler->detach();
  }
  if (!written) return out->failed(written.error().message);
  if (a.sampler_summary) out->summary = a.sampler_summary(*sampler);
  stacks_figures(*sampler, a.frequency, out);
  if (!ended_because.empty()) out->figures["message"] = "stopped early: " + ended_because;
}

// ---- sched ----

// COST: what the target's threads spent stopped by a tracer, from the recording.
void run_sched_collector(const Options& a, Window* w, Outcome* out,
                         std::optional<sched::StopCost>* cost) {
  if (!sched::may_trace()) return out->failed("tracing needs root or CAP_PERFMON/CAP_SYS_ADMIN");
  sched::RecordOptions o;
  // The processes selected now; with children the recorder follows their descendants itself
  // (those alive now and those created in the window, each under its own pid).
  auto roots = proc::roots_to_trace(a.selection);
  if (!roots) return out->failed(roots.error().message);
  if (roots->empty()) return out->skipped(proc::nothing_matches(a.selection));
  o.pids = std::move(*roots);
  o.duration_s = std::chrono::duration<double>(w->deadline - Clock::now()).count();
  if (o.duration_s <= 0) return out->skipped("the window ended before tracing could start");
  o.wakeups = a.wakeups;
  o.intervals_s = a.intervals;
  o.inherit = a.selection.children;
  o.stop_requested = [w] { return w->over.load() || shutdown_requested(); };
  o.spool_dir = a.output;
  auto r = sched::record_sched(o);
  if (!r) return out->failed(r.error().message);
  if (auto written = sched_tsv::write_sched_tsvs(a.output, r->header, r->model, a.wakeups, false);
      !written) {
    return out->failed(written.error().message);
  }
  std::optional<sched_intervals::UntracedSlots> before;
  if (a.sched_before) {
    before = a.sched_before(r->header.window_start_ns, r->model.intervals->keep.slot_ns);
  }
  auto files = sched::write_interval_files(a.output, r->header, *r->model.intervals,
                                           before ? &*before : nullptr);
  if (!files) return out->failed(files.error().message);
  *cost = sched::stop_cost(r->model.states);
  out->ok();
  out->figures["events"] = r->events;
  out->figures["sched_switch"] = r->header.sched_switch;
  out->figures["lost"] = r->header.lost;
  out->figures["threads"] = r->threads;
  out->figures["selection"] = r->selection;
  out->figures["estimated_switch_ins"] = r->model.inferred_without_wakeup;
  out->figures["window_s"] =
      round3(static_cast<double>(r->header.window_end_ns - r->header.window_start_ns) / 1e9);
  // What sched.intervals.tsv kept: every interval from intervals_whole_from_ns (CLOCK_MONOTONIC)
  // to the window end, intervals_whole_s of it; before it, sched.slots.tsv's slots.
  const sched::IntervalStore& iv = *r->model.intervals;
  out->figures["intervals"] = files->intervals;
  out->figures["intervals_whole_s"] =
      round3(static_cast<double>(r->header.window_end_ns - iv.keep.whole_from_ns) / 1e9);
  out->figures["intervals_whole_from_ns"] = iv.keep.whole_from_ns;
  out->figures["intervals_slot_s"] =
      iv.sliced() ? round3(static_cast<double>(iv.keep.slot_ns) / 1e9) : 0.0;
  out->figures["slots"] = files->slots;
  if (before && !before->slots.empty()) {  // of the slots, those from before the window
    out->figures["untraced_slots"] = before->slots.size();
  }
  if (r->header.lost > 0) out->figures["message"] = "events lost: the figures undercount";
  if (!r->fork_watcher_failure.empty()) out->figures["message"] = r->fork_watcher_failure;
}

// ---- mmv ----

// The MMV files to read: those named, or those in PCP's directory whose writer is one of PIDS.
Result<std::vector<mmv::Source>> mmv_sources(const Options& a, const std::vector<pid_t>& pids) {
  if (!a.mmv.empty()) return mmv::resolve_sources(a.mmv, mmv::default_mmv_dir());
  std::string dir = mmv::default_mmv_dir();
  std::vector<mmv::Source> found = mmv::sources_written_by(dir, pids);
  if (found.empty()) {
    std::string whose = pids.size() == 1 ? "pid " + std::to_string(pids.front())
                                         : "the " + std::to_string(pids.size()) + " processes";
    return fail("no MMV file of " + whose + " in " + dir + " (name files with --mmv)");
  }
  return found;
}

// Counts series and snapshots while the TSV writer writes.
class CountingSink : public mmv::SeriesSink {
 public:
  explicit CountingSink(mmv::SeriesTsvWriter* tsv) : tsv_(tsv) {}
  void on_series(const mmv::Series& s) override {
    ++series_;
    tsv_->on_series(s);
  }
  void on_values(const mmv::Series& s, const mmv::Snapshot& snap) override {
    ++snapshots_;
    tsv_->on_values(s, snap);
  }
  void on_event(uint64_t t, const mmv::Series* s, const std::string& path, mmv::EventKind k,
                std::string_view detail) override {
    if (k == mmv::EventKind::kError) ++errors_;
    tsv_->on_event(t, s, path, k, detail);
  }
  uint64_t series_ = 0, snapshots_ = 0, errors_ = 0;

 private:
  mmv::SeriesTsvWriter* tsv_;
};

void run_mmv_collector(const Options& a, const std::vector<pid_t>& pids, Window* w, Outcome* out) {
  auto sources = mmv_sources(a, pids);
  if (!sources) return out->skipped(sources.error().message);
  auto file = AtomicFile::create((fs::path(a.output) / report::kMmvSeries).string());
  if (!file) return out->failed(file.error().message);
  mmv::TsvOptions o;
  o.interval_ns = static_cast<uint64_t>(std::llround(a.mmv_interval * 1e9));
  mmv::SeriesTsvWriter tsv(o, [&](std::string_view s) { file->write(s); });
  CountingSink sink(&tsv);
  mmv::Watcher watcher(std::move(*sources));
  auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.mmv_interval));
  auto next = Clock::now();
  while (!w->ended()) {
    watcher.poll(sink);
    next += period;
    while (!w->ended() && Clock::now() < next) {
      std::this_thread::sleep_for(
          std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(50)));
    }
  }
  watcher.poll(sink);  // the window's last values
  if (sink.series_ == 0) return out->failed("no MMV file could be read");  // file not committed
  if (auto r = file->commit(); !r) return out->failed(r.error().message);
  out->ok();
  out->figures["files"] = sink.series_;
  out->figures["snapshots"] = sink.snapshots_;
  out->figures["errors"] = sink.errors_;
  out->figures["interval_s"] = a.mmv_interval;
}

// A collector thread's body: RUN, with an exception caught and reported as the collector's
// failure (uncaught, it would end the process and leave no report).
void guarded(Outcome* out, const std::function<void()>& run) {
  try {
    run();
  } catch (const std::exception& e) {
    out->failed(std::string("internal error: ") + e.what());
  } catch (...) {
    out->failed("internal error: an unknown exception");
  }
}

}  // namespace

void Outcome::ok() {
  figures["status"] = "ok";
}

void Outcome::failed(const std::string& why) {
  figures["status"] = "failed";
  figures["message"] = why;
}

void Outcome::skipped(const std::string& why) {
  figures["status"] = "skipped";
  figures["message"] = why;
}

bool Outcome::ran() const {
  return figures.value("status", "") == "ok";
}

Result<std::vector<pid_t>> selected_processes(const proc::ProcessSelection& selection) {
  ASSIGN_OR_RETURN(std::vector<pid_t> pids, proc::select_now(selection));
  if (pids.empty()) {
    if (!selection.pids.empty()) {
      return fail(
          "no process " + std::to_string(selection.pids.front()) + " (check the pid with ps)",
          ENOENT);
    }
    return fail(proc::nothing_matches(selection), ENOENT);
  }
  return pids;
}

Result<void> write_stacks(stacks::ProcessSet& set, const std::string& dir, bool title) {
  stacks::AggregateOptions ao;
  ao.process_roots = set.several();  // roots carry the process (README "The root frame")
  ao.title_frames = title;
  stacks::StackCounts counts;
  set.aggregate(&counts, ao);
  RETURN_IF_ERROR(
      write_file_atomically((fs::path(dir) / report::kStacksFolded).string(), counts.to_folded()));
  return write_file_atomically((fs::path(dir) / report::kStacksSamples).string(),
                               timed_samples::format(set.timed(ao)));
}

void stacks_figures(const stacks::ProcessSet& set, double frequency, Outcome* out) {
  const stacks::SamplerSummary s = set.summary();
  out->ok();
  out->figures["samples"] = s.rounds;
  out->figures["frequency_hz"] = frequency;
  out->figures["threads"] = s.threads_seen;
  out->figures["stacks"] = s.thread_samples;
  out->figures["truncated_stacks"] = s.truncated;
  out->figures["skipped_threads"] = s.skipped;
  out->figures["stall_median_ms"] = round3(median_of(s.round_stall_ms));
  out->figures["stall_max_ms"] = round3(max_of(s.round_stall_ms));
  out->figures["stall_per_thread_median_us"] = std::round(median_of(s.thread_stall_us));
  out->figures["method"] = std::string(set.method());
  if (!set.fallback_reason().empty()) out->figures["fallback"] = set.fallback_reason();
  out->figures["copied_without_stop"] = s.copied;
  out->figures["unchanged"] = s.reused;
  out->figures["stopped"] = s.stopped;
  if (!s.skipped_threads.empty()) out->figures["skipped_thread_names"] = s.skipped_threads;
  if (s.taken_alone > 0) out->figures["threads_taken_alone"] = s.taken_alone;
  if (!s.alone_threads.empty()) out->figures["alone_thread_names"] = s.alone_threads;
  if (set.several()) {
    out->figures["processes"] = set.processes();
    out->figures["processes_joined"] = set.joined();
    out->figures["processes_exited"] = set.exited();
  }
}

Recording record(const Options& a, const Progress& progress, const WindowEnded& window_ended) {
  Recording rec;
  json& meta = rec.meta;
  meta = json::object();
  meta["format"] = "hearth report 1";
  const proc::ProcessSelection& sel = a.selection;
  std::vector<pid_t> selected = selected_processes(sel).value_or(std::vector<pid_t>());
  // The target: the first -p (or the first process selected); one -p alone is all there is.
  const pid_t first = !sel.pids.empty()   ? sel.pids.front()
                      : !selected.empty() ? selected.front()
                                          : 0;
  if (selected.empty()) selected.push_back(first);
  auto process_json = [](pid_t pid) {
    return json{{"pid", pid},
                {"comm", trim(slurp("/proc/" + std::to_string(pid) + "/comm"))},
                {"cmdline", cmdline_of(pid)}};
  };
  meta["target"] = process_json(first);
  const bool one = sel.pids.size() == 1 && !proc::selection_grows(sel);
  if (!one) {
    json& target = meta["target"];
    target["processes"] = json::array();
    for (pid_t pid : selected) target["processes"].push_back(process_json(pid));
    json how = {{"pids", sel.pids}, {"children", sel.children}};
    if (sel.comm) how["comm"] = sel.comm->text();
    target["selection"] = how;
  }
  meta["command"] = a.command_line;
  utsname u{};
  if (::uname(&u) == 0) {
    meta["host"] = u.nodename;
    meta["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  }
  meta["started"] = utc_now_iso();
  meta["hearth_version"] = std::string(kVersion) + " (" + kGitRevision + ")";

  Window w;
  w.start = Clock::now();
  w.deadline = w.start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(a.duration));
  std::atomic<uint64_t> samples{0};
  Outcome& stacks_out = rec.stacks;
  Outcome& sched_out = rec.sched;
  Outcome& mmv_out = rec.mmv;
  std::optional<sched::StopCost> stop_cost;
  std::vector<std::thread> threads;
  if (a.stacks_by_caller) {
    // rec.stacks is the caller's
  } else if (a.no_stacks)
    stacks_out.skipped("turned off (--no-stacks)");
  else
    threads.emplace_back(guarded, &stacks_out,
                         [&] { run_stacks_collector(a, &w, &samples, &stacks_out); });
  if (a.no_sched)
    sched_out.skipped("turned off (--no-sched)");
  else
    threads.emplace_back(guarded, &sched_out,
                         [&] { run_sched_collector(a, &w, &sched_out, &stop_cost); });
  if (a.no_mmv)
    mmv_out.skipped("turned off (--no-mmv)");
  else
    threads.emplace_back(guarded, &mmv_out, [&] { run_mmv_collector(a, selected, &w, &mmv_out); });

  Outcome& alloc_out = rec.alloc;
  if (a.alloc.any()) {
    threads.emplace_back(guarded, &alloc_out, [&] {
      run_alloc_collector({.pid = first,
                           .views = a.alloc,
                           .mean_bytes = a.alloc_mean,
                           .live_max = a.alloc_live_max,
                           .output = a.output,
                           .symbol_cache = a.symbol_cache,
                           .ended = [&w] { return w.ended(); },
                           .note = a.note},
                          &alloc_out);
    });
  }

  // The window ends when every selected process has exited: those selected at the start, and
  // with a growing selection those it took in since (looked for every kRescanPeriod, and once
  // more before the window ends for want of a process).
  bool target_exited = false;
  std::vector<pid_t> alive = selected;
  auto last_scan = Clock::now();
  while (!w.ended()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(progress ? 250 : 50));
    std::erase_if(alive, process_gone);
    if (proc::selection_grows(sel) &&
        (alive.empty() || Clock::now() - last_scan >= kRescanPeriod)) {
      if (auto procs = proc::scan_processes(sel.comm.has_value())) {
        alive = proc::select_processes(*procs, sel, alive, ::getpid());
      }
      last_scan = Clock::now();
    }
    if (alive.empty()) {  // nothing left to record
      target_exited = true;
      break;
    }
    if (progress) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - w.start).count();
      progress(std::min(elapsed, a.duration), samples.load());
    }
  }
  w.over = true;
  const Clock::time_point window_end = Clock::now();
  const bool interrupted = shutdown_requested() && Clock::now() < w.deadline;
  if (window_ended) window_ended(interrupted, target_exited);
  for (std::thread& t : threads) t.join();
  meta["window_s"] = round3(std::chrono::duration<double>(window_end - w.start).count());
  meta["interrupted"] = interrupted;
  meta["target_exited"] = target_exited;
  meta["collectors"] = {
      {"stacks", stacks_out.figures}, {"sched", sched_out.figures}, {"mmv", mmv_out.figures}};
  if (a.alloc.any()) meta["collectors"]["alloc"] = alloc_out.figures;
  // The sampler's stops as the target's threads felt them: only when both ran over the window
  // (without the sampler, any stopped time is another tracer's).
  std::optional<report::SamplingCost>& cost = rec.cost;
  if (stop_cost && (stacks_out.ran() || a.stacks_by_caller)) {
    cost = report::SamplingCost{.window_pct = stop_cost->share * 100,
                                .stop_median_us = stop_cost->median_stop_ns / 1e3,
                                .threads = stop_cost->threads,
                                .stopped_threads = stop_cost->stopped_threads,
                                .stops = stop_cost->stops};
    meta["sampling_cost"] = {
        {"window_pct", std::round(cost->window_pct * 1e6) / 1e6},  // small shares stay above 0
        {"stop_median_us", std::round(cost->stop_median_us * 10) / 10},
        {"threads", cost->threads},
        {"stopped_threads", cost->stopped_threads},
        {"stops", cost->stops},
        {"stopped_ms", round3(static_cast<double>(stop_cost->stopped_ns) / 1e6)}};
  }
  rec.interrupted = interrupted;
  rec.target_exited = target_exited;
  return rec;
}

}  // namespace hearth::recording
