#include "collectors/stacks/sampler.h"

#include <time.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "collectors/proc/kallsyms.h"
#include "collectors/proc/maps.h"
#include "collectors/proc/processes.h"
#include "collectors/proc/threads.h"
#include "collectors/stacks/capture_bpf.h"
#include "collectors/stacks/ptrace_session.h"
#include "collectors/stacks/raw_stack.h"
#include "collectors/stacks/remote_memory.h"
#include "collectors/stacks/symbolizer.h"
#include "collectors/stacks/thread_roles.h"
#include "collectors/stacks/unwinder.h"
#include "common/shutdown.h"
#include "formats/raw_samples.h"

namespace hearth::stacks {
namespace {

using Clock = std::chrono::steady_clock;

// Thread names are re-read every this many rounds (and for every new thread).
constexpr uint64_t kNameRefreshRounds = 16;
// Sleeping between rounds without a session: how often a shutdown request is looked at.
constexpr std::chrono::milliseconds kIdleCheck{10};
// Skipped threads named in the summary, at most.
constexpr size_t kMaxSkippedNamed = 64;
// bpf: extra passes in one round for stacks deeper than their copy (each doubles the copy).
constexpr int kMaxDeeperPasses = 6;

// CPU time of the calling thread, ms.
double thread_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct ThreadSample {
  pid_t tid;
  uint32_t name;  // index into Impl::names
  char state;
  uint32_t stack;  // index into Impl::stacks
};

constexpr uint32_t kNoTitle = ~uint32_t{0};

struct Round {
  uint64_t time_ns;           // since the first round (or SamplerOptions::epoch)
  uint32_t title = kNoTitle;  // the process title then (an index into Impl::names)
  std::vector<ThreadSample> threads;
  uint32_t copied = 0, reused = 0, stopped = 0;
  uint64_t stall_ns = 0;  // the round's stall (see SamplerSummary::round_stall_ms)
};

// Per-thread buffers, reused every round so the stop window allocates nothing.
struct Slot {
  user_regs_struct regs{};
  StackCopy copy;
  size_t stack_bytes = 0;
  bool visited = false;  // regs and copy hold this round's capture
  bool stopped = false;  // bpf: the capture needed a ptrace stop (it was on a CPU)
  bool reuse = false;    // bpf: not run since the last copy: count last_stack again
  bool seen = false;     // bpf: in this round's pass
  bool unwound = false;  // bpf: last_stack is this round's copy, unwound
  char state = '?';
  uint32_t name = 0;
  std::string comm;                  // bpf: the name as the pass read it
  std::vector<std::string> kernel;   // ptrace: from /proc
  std::vector<uint64_t> kernel_ips;  // bpf: from the pass
  int64_t last_stack = -1;           // bpf: stack id of its last copy
};

}  // namespace

struct Sampler::Impl {
  SamplerOptions options;
  std::optional<BpfCapture> bpf;                   // the bpf method; else session
  std::string fallback;                            // why auto did not use bpf
  std::shared_ptr<const proc::Kallsyms> kallsyms;  // bpf: kernel frame names, on first use
  bool kallsyms_tried = false;
  std::optional<PtraceSession> session;
  std::unique_ptr<RemoteMemory> memory;  // stable address: the Unwinder keeps a pointer
  std::optional<Unwinder> unwinder;
  std::optional<Symbolizer> symbolizer;
  uint64_t maps_fingerprint = 0;
  uint64_t start_ticks = 0;  // the target's start time: tells its exit from a reused PID
  static constexpr uint64_t kNoExecId = ~uint64_t{0};
  uint64_t leader_exec_id = kNoExecId;  // bpf: the leader's self_exec_id at the last pass
  std::vector<size_t> exec_rounds;      // rounds taken first after an execve
  bool reopen_pending = false;          // ptrace: an execve was seen; reopen before the next round
  std::string process_name;

  std::unordered_map<pid_t, Slot> slots;
  std::vector<std::string> names;
  std::unordered_map<std::string, uint32_t> name_ids;
  std::vector<RawStack> stacks;
  std::unordered_map<std::string, uint32_t> stack_ids;
  std::vector<std::vector<std::string>> symbolized;  // per stack id, root first; lazily
  std::vector<Round> rounds;
  size_t aggregated = 0;  // rounds already added by aggregate()
  // Thread roles (thread_roles.h): entry functions per thread over the rounds tallied so far,
  // each stack's entry (computed once), and the entry each thread's root had when aggregate()
  // added its samples (a change makes it add every round again, under the new roots).
  EntryTally entries;
  size_t tallied = 0;
  std::vector<std::string> stack_entry;
  std::vector<uint8_t> stack_entry_known;
  std::unordered_map<pid_t, std::string> entries_aggregated;
  bool multi_aggregated = false;  // process roots: the added samples have thread roots under it
  Clock::time_point start;
  SamplerSummary summary;

  uint32_t intern_name(const std::string& n) {
    auto [it, added] = name_ids.try_emplace(n, static_cast<uint32_t>(names.size()));
    if (added) names.push_back(n);
    return it->second;
  }

  uint32_t intern_stack(RawStack&& s) {
    std::string key = stack_key(s);
    auto [it, added] = stack_ids.try_emplace(std::move(key), static_cast<uint32_t>(stacks.size()));
    if (added) stacks.push_back(std::move(s));
    return it->second;
  }

  Result<void> load_maps() {
    ASSIGN_OR_RETURN(std::vector<proc::Mapping> maps, proc::read_maps(options.pid));
    // Stacks taken so far belong to the maps loaded now: name them before the maps change (an
    // exec or a dlclose would otherwise have them looked up in the new image).
    for (uint32_t id = 0; id < stacks.size(); ++id) (void)frames_of(id);
    RETURN_IF_ERROR(unwinder->prepare(maps));
    RETURN_IF_ERROR(symbolizer->set_maps(options.pid, maps, memory.get()));
    return {};
  }

  // After an execve the target has a new address space: /proc/PID/mem opened before reads the
  // old one (nothing), so open it again (same RemoteMemory object: the unwinder points to it),
  // then load the new maps.
  Result<void> reopen_after_exec() {
    for (uint32_t id = 0; id < stacks.size(); ++id) (void)frames_of(id);  // old image's names
    ASSIGN_OR_RETURN(RemoteMemory fresh, RemoteMemory::open(options.pid));
    *memory = std::move(fresh);
    if (auto fp = proc::maps_fingerprint(options.pid); fp) maps_fingerprint = *fp;
    return load_maps();
  }

  // Outside the stop window: new threads, their names and states, kernel stacks, maps.
  Result<void> prepare_round() {
    RETURN_IF_ERROR(session->refresh_threads());
    if (reopen_pending) {
      reopen_pending = false;
      RETURN_IF_ERROR(reopen_after_exec());
    }
    if (auto fp = proc::maps_fingerprint(options.pid); fp && *fp != maps_fingerprint) {
      maps_fingerprint = *fp;
      RETURN_IF_ERROR(load_maps());
    }
    std::vector<pid_t> tids = session->threads();
    for (auto it = slots.begin(); it != slots.end();) {  // forget threads that are gone
      it =
          std::binary_search(tids.begin(), tids.end(), it->first) ? std::next(it) : slots.erase(it);
    }
    bool refresh_names = summary.rounds % kNameRefreshRounds == 0;
    for (pid_t tid : tids) {
      auto [it, added] = slots.try_emplace(tid);
      Slot& slot = it->second;
      if (added) {
        slot.stack_bytes = options.stack_bytes;
        slot.copy.bytes.reserve(slot.stack_bytes + 4096);
      }
      if (added || refresh_names) {
        auto name = proc::thread_name(options.pid, tid);
        slot.name = intern_name(name ? *name : std::string("?"));
      }
      auto st = proc::thread_stat(options.pid, tid);
      slot.state = st ? st->state : '?';
      slot.kernel.clear();
      if (options.kernel_stacks && (slot.state == 'S' || slot.state == 'D')) {
        if (auto k = proc::kernel_stack(options.pid, tid)) slot.kernel = std::move(*k);
      }
      slot.visited = false;
    }
    return {};
  }

  // The stop window's work for one thread: registers and the top of its stack.
  // STATE: the thread's at the moment of the stop (PtraceSession::sampled_state).
  void visit(pid_t tid, const user_regs_struct& regs, char state) {
    auto it = slots.find(tid);
    if (it == slots.end()) return;  // seized after prepare_round: sampled next round
    Slot& slot = it->second;
    slot.regs = regs;
    slot.visited = memory->copy_stack(regs.rsp, slot.stack_bytes, slot.copy).has_value();
    // The state of this moment, not of the /proc read before the stop (a thread seen
    // sleeping then may have been running when stopped, and the other way round). A kernel
    // stack read before belongs to this stop only if the thread still slept in the kernel.
    const char before = slot.state;
    slot.state = state;
    if (slot.state != 'S' || before != 'S') slot.kernel.clear();
  }

  void note_skipped(pid_t tid, const Slot* slot, std::string_view why) {
    if (summary.skipped_threads.size() >= kMaxSkippedNamed) return;
    std::string name = slot != nullptr ? names[slot->name] : "?";
    auto st = proc::thread_stat(options.pid, tid);
    std::string line = std::to_string(tid) + " (" + name + ") " + (st ? st->state : '?');
    if (auto k = proc::kernel_stack(options.pid, tid); k && !k->empty())
      line += " in " + k->front();
    line += ": ";
    line += why;
    summary.skipped_threads.push_back(std::move(line));
  }

  // Unwinds SLOT's copy into a stack id. *DEEPER: the stack goes on past the copy and the
  // copy may grow (then the next copy is larger).
  uint32_t unwind_slot(Slot& slot, bool* deeper) {
    RawStack raw;
    UnwindStatus status;
    raw.ips = unwinder->unwind(slot.regs, slot.copy, options.max_frames, &status);
    raw.exact_ips = std::move(status.exact_ips);
    raw.truncated = status.stop != UnwindStop::kEndOfStack;
    raw.lost = status.stop == UnwindStop::kNoUnwindInfo || status.stop == UnwindStop::kBadFrame;
    *deeper = status.stop == UnwindStop::kOutsideCopy && slot.stack_bytes < options.max_stack_bytes;
    if (*deeper) {
      slot.stack_bytes = std::min(slot.stack_bytes * 2, options.max_stack_bytes);
      slot.copy.bytes.reserve(slot.stack_bytes + 4096);
    }
    raw.kernel = slot.kernel;
    raw.kernel_ips = slot.kernel_ips;
    return intern_stack(std::move(raw));
  }

  void finish_round(const StopStats& stats) {
    Round round;
    round.time_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    std::unordered_map<pid_t, uint64_t> stall_of;
    for (const ThreadStall& t : stats.stalls) stall_of[t.tid] = t.stall_ns;
    for (auto& [tid, slot] : slots) {
      uint32_t id;
      if (slot.reuse) {
        id = static_cast<uint32_t>(slot.last_stack);
        ++round.reused;
      } else if (slot.visited) {
        if (!slot.unwound) {
          bool deeper = false;
          slot.last_stack = unwind_slot(slot, &deeper);
          // bpf: the copy grows from the next pass on (the thread is copied again then).
          if (deeper && bpf) bpf->set_stack_bytes(tid, slot.stack_bytes);
        }
        id = static_cast<uint32_t>(slot.last_stack);
        bool stopped = !bpf || slot.stopped;
        ++(stopped ? round.stopped : round.copied);
        summary.thread_stall_us.push_back(stopped ? static_cast<double>(stall_of[tid]) / 1e3 : 0.0);
      } else {
        continue;
      }
      if (slot.reuse) summary.thread_stall_us.push_back(0.0);
      summary.truncated += stacks[id].truncated;
      round.threads.push_back({tid, slot.name, slot.state, id});
    }
    std::sort(round.threads.begin(), round.threads.end(),
              [](const ThreadSample& a, const ThreadSample& b) { return a.tid < b.tid; });
    for (pid_t tid : stats.skipped) {
      auto it = slots.find(tid);
      note_skipped(tid, it == slots.end() ? nullptr : &it->second, "did not stop in time");
    }
    round.stall_ns = stats.total_stall_ns;
    summary.rounds++;
    summary.thread_samples += round.threads.size();
    summary.copied += round.copied;
    summary.reused += round.reused;
    summary.stopped += round.stopped;
    summary.skipped += stats.skipped.size();
    summary.threads_seen = std::max(summary.threads_seen, slots.size());
    summary.round_stall_ms.push_back(static_cast<double>(stats.total_stall_ns) / 1e6);
    summary.elapsed_s = static_cast<double>(round.time_ns) / 1e9;
    rounds.push_back(std::move(round));
  }

  // --- The bpf method ---

  // Takes one thread of a pass into its slot. Returns true when the thread needs a stop.
  bool take(const BpfThread& t, bool* skip) {
    auto [it, added] = slots.try_emplace(t.tid);
    Slot& slot = it->second;
    if (added) {
      slot.stack_bytes = options.stack_bytes;
      slot.copy.bytes.reserve(slot.stack_bytes + 4096);
    }
    slot.seen = true;
    if (slot.comm != t.comm) {
      slot.comm = t.comm;
      slot.name = intern_name(slot.comm);
    }
    slot.state = t.state;
    if (t.copied()) {
      slot.regs = *t.regs;
      slot.copy.base = t.copy_base;
      slot.copy.bytes.assign(t.stack.begin(), t.stack.end());
      slot.kernel_ips.assign(t.kernel.begin(), t.kernel.end());
      slot.kernel.clear();
      slot.visited = true;
      return false;
    }
    if (t.unchanged() && slot.last_stack >= 0) {
      slot.reuse = true;
      return false;
    }
    if (t.exiting()) return false;
    if (t.on_cpu() || t.unchanged()) {
      if (t.unchanged()) bpf->forget(t.tid);  // we lost its copy: read it afresh next time
      slot.kernel_ips.clear();
      slot.kernel.clear();
      return true;
    }
    *skip = true;  // its stack could not be read (an exiting thread, most likely)
    return false;
  }

  // A pass over the target's threads: copies of those that did not run, stops for the others.
  Result<void> round_bpf() {
    if (auto fp = proc::maps_fingerprint(options.pid); fp && *fp != maps_fingerprint) {
      maps_fingerprint = *fp;
      RETURN_IF_ERROR(load_maps());
    }
    for (auto& [tid, slot] : slots) {
      slot.seen = slot.visited = slot.stopped = slot.reuse = slot.unwound = false;
    }
    const Clock::time_point pass_start = Clock::now();
    const double pass_cpu_start = thread_cpu_ms();
    std::vector<pid_t> to_stop, unreadable;
    uint64_t exec_id = leader_exec_id;
    ASSIGN_OR_RETURN(size_t visited, bpf->pass([&](const BpfThread& t) {
      if (t.tid == options.pid) exec_id = t.exec_id;
      bool skip = false;
      if (take(t, &skip)) to_stop.push_back(t.tid);
      if (skip) unreadable.push_back(t.tid);
    }));
    auto st = proc::process_start_time(options.pid);
    if (visited == 0 || !st || *st != start_ticks) {
      return fail("target " + std::to_string(options.pid) + " exited", ESRCH);
    }
    if (leader_exec_id != kNoExecId && exec_id != leader_exec_id) {
      // The target called execve since the last pass: its maps are new, and the copies of this
      // pass were taken in the new image: load its maps before unwinding them.
      ++summary.execs;
      exec_rounds.push_back(rounds.size());
      RETURN_IF_ERROR(reopen_after_exec());
    }
    leader_exec_id = exec_id;
    for (auto it = slots.begin(); it != slots.end();) {  // threads that are gone
      if (it->second.seen) {
        ++it;
        continue;
      }
      bpf->forget(it->first);
      it = slots.erase(it);
    }
    // Threads on a CPU are stopped now, not looked at again later: most would have left the CPU
    // by then, and leaving it is going to sleep, mostly; a later look, taken because a thread
    // was running, would tilt the states towards sleep (4-6 points of R on a duty-cycle
    // target, against the scheduler's own account).
    std::sort(to_stop.begin(), to_stop.end());
    StopStats stats;
    if (!to_stop.empty()) stats = stop_running(to_stop);
    summary.capture_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - pass_start).count());
    summary.capture_cpu_ms.push_back(thread_cpu_ms() - pass_cpu_start);
    for (pid_t tid : unreadable) {
      note_skipped(tid, &slots[tid], "its stack could not be read");
      stats.skipped.push_back(tid);
    }
    RETURN_IF_ERROR(unwind_copies());
    finish_round(stats);
    return {};
  }

  // Threads that were on a CPU: each is stopped alone, copied and released at once.
  StopStats stop_running(const std::vector<pid_t>& tids) {
    StopStats stats;
    auto stopper = PtraceSession::attach_threads(options.pid, tids);
    std::vector<pid_t> held = stopper ? stopper->threads() : std::vector<pid_t>{};
    for (pid_t tid : tids) {
      if (!std::binary_search(held.begin(), held.end(), tid)) {
        auto tracer = proc::tracer_pid(options.pid, tid);
        if (tracer && *tracer != 0) {
          note_skipped(tid, &slots[tid], "on a CPU and traced by another process");
          stats.skipped.push_back(tid);
        }
      }
    }
    if (held.empty()) return stats;
    PtraceSession* session_of_stops = stopper ? &*stopper : nullptr;
    auto visit = [this, session_of_stops](pid_t tid, const user_regs_struct& regs) {
      visit_stopped(tid, regs, session_of_stops->sampled_state(tid));
    };
    auto r = stopper->stop_each(options.stop_timeout, visit, Release::kDetach);
    // A failure means the target is exiting: the next pass says so.
    if (r) {
      stats.stalls = std::move(r->stalls);
      stats.total_stall_ns = r->total_stall_ns;
      stats.skipped.insert(stats.skipped.end(), r->skipped.begin(), r->skipped.end());
    }
    return stats;  // the session's end releases any thread whose stop is still pending
  }

  void visit_stopped(pid_t tid, const user_regs_struct& regs, char state) {
    visit(tid, regs, state);
    if (auto it = slots.find(tid); it != slots.end()) it->second.stopped = true;
  }

  // Unwinds this round's copies. Stacks deeper than their copy: threads that have not run
  // since are copied again, larger, in this same round (the same moment, since they did not
  // run), so that one snapshot has them whole.
  Result<void> unwind_copies() {
    std::vector<pid_t> todo;
    for (auto& [tid, slot] : slots) {
      if (slot.visited && !slot.stopped) todo.push_back(tid);
    }
    for (int pass = 0;; ++pass) {
      std::vector<pid_t> deeper;
      for (pid_t tid : todo) {
        Slot& slot = slots[tid];
        bool more = false;
        slot.last_stack = unwind_slot(slot, &more);
        slot.unwound = true;
        if (!more) continue;
        bpf->set_stack_bytes(tid, slot.stack_bytes);  // also: copy it again even if unchanged
        deeper.push_back(tid);
      }
      if (deeper.empty() || pass == kMaxDeeperPasses) return {};
      std::sort(deeper.begin(), deeper.end());
      todo.clear();
      ASSIGN_OR_RETURN(size_t visited, bpf->pass([&](const BpfThread& t) {
        if (!t.copied()) return;  // unchanged, or it ran since: keep the first copy
        if (!std::binary_search(deeper.begin(), deeper.end(), t.tid)) {
          bpf->forget(t.tid);  // a newer copy than the one kept: the next round reads it anew
          return;
        }
        Slot& slot = slots[t.tid];
        slot.regs = *t.regs;
        slot.copy.base = t.copy_base;
        slot.copy.bytes.assign(t.stack.begin(), t.stack.end());
        todo.push_back(t.tid);
      }));
      (void)visited;
    }
  }

  const std::vector<std::string>& frames_of(uint32_t id) {
    if (symbolized.size() <= id) symbolized.resize(stacks.size());
    std::vector<std::string>& out = symbolized[id];
    if (!out.empty()) return out;
    const RawStack& s = stacks[id];
    UnwindStatus status;
    status.exact_ips = s.exact_ips;
    if (s.truncated) out.push_back("[truncated]");
    for (size_t i = s.ips.size(); i-- > 0;) {
      const bool ret = is_return_address(status, i);
      if (i + 1 < s.ips.size() && is_return_address(status, i + 1)) {
        // Functions its caller called that left by a tail call into it.
        for (const Frame& f : symbolizer->tail_calls(s.ips[i + 1], s.ips[i], ret))
          out.push_back(folded_safe(f.name));
      }
      for (const Frame& f : symbolizer->symbolize(s.ips[i], ret)) {
        // A run of frames nothing names (JIT code without a perf map) is one frame.
        if (f.name == "[unknown]" && !out.empty() && out.back() == "[unknown]") continue;
        out.push_back(folded_safe(f.name) + (f.inlined ? "_[i]" : f.jit ? "_[j]" : ""));
      }
    }
    for (auto k = s.kernel.rbegin(); k != s.kernel.rend(); ++k)
      out.push_back(folded_safe(*k) + "_[k]");
    if (!s.kernel_ips.empty() && !kallsyms_tried) {
      kallsyms_tried = true;
      kallsyms = proc::Kallsyms::shared();
    }
    for (auto k = s.kernel_ips.rbegin(); kallsyms && k != s.kernel_ips.rend(); ++k) {
      std::string_view name = kallsyms->name_of_return_address(*k);
      if (!name.empty()) out.push_back(folded_safe(std::string(name)) + "_[k]");
    }
    if (out.empty()) out.push_back("[unknown]");
    return out;
  }

  std::vector<std::string> sample_frames(const ThreadSample& t, const AggregateOptions& o) {
    std::vector<std::string> frames;
    if (o.state_frames) frames.emplace_back(state_frame(t.state));
    const std::vector<std::string>& user = frames_of(t.stack);
    frames.insert(frames.end(), user.begin(), user.end());
    return frames;
  }

  const std::string& entry_of_stack(uint32_t id) {
    if (stack_entry.size() <= id) {
      stack_entry.resize(stacks.size());
      stack_entry_known.resize(stacks.size());
    }
    if (!stack_entry_known[id]) {
      stack_entry[id] = entry_function(frames_of(id));
      stack_entry_known[id] = 1;
    }
    return stack_entry[id];
  }

  // Counts the entry functions of the rounds not tallied yet.
  void tally_entries() {
    for (; tallied < rounds.size(); ++tallied) {
      for (const ThreadSample& t : rounds[tallied].threads)
        entries.add(t.tid, entry_of_stack(t.stack));
    }
  }

  // The name a sample's root shows: its role, or its name (comm) with kernel_names. ENTRY: the
  // thread's entry function (EntryTally::entry_of).
  std::string root_name(const Round& r, const ThreadSample& t, const AggregateOptions& o,
                        const std::string& entry) const {
    const std::string& name = names[t.name];
    if (o.kernel_names) return name;
    return thread_role(name, process_name_in(r), t.tid == options.pid, entry);
  }

  // The process's name is its main thread's, as read in the same round.
  std::string_view process_name_in(const Round& r) const {
    auto leader = std::lower_bound(r.threads.begin(), r.threads.end(), options.pid,
                                   [](const ThreadSample& a, pid_t tid) { return a.tid < tid; });
    if (leader != r.threads.end() && leader->tid == options.pid) return names[leader->name];
    return process_name;
  }

  // The root frames of sample T of round R (roots.h).
  std::string root_of(const Round& r, const ThreadSample& t, const AggregateOptions& o,
                      const std::string& entry) const {
    return sample_root({.process = process_name_in(r),
                        .pid = options.pid,
                        .title = r.title == kNoTitle ? std::string_view() : names[r.title],
                        .thread = root_name(r, t, o, entry),
                        .tid = t.tid,
                        .multi_threaded = summary.threads_seen > 1},
                       o);
  }

  // Outside the stop window: the process title of the round just taken.
  void note_title() {
    auto title = proc::process_title(options.pid);
    if (title && !rounds.empty()) rounds.back().title = intern_name(*title);
  }

  Result<void> round_ptrace(Release release) {
    if (!session) return fail("the target was released");
    RETURN_IF_ERROR(prepare_round());
    auto visit_one = [this](pid_t tid, const user_regs_struct& regs) {
      visit(tid, regs, session->sampled_state(tid));
    };
    Result<StopStats> stats = options.one_at_a_time
                                  ? session->stop_each(options.stop_timeout, visit_one, release)
                                  : session->stop_all(options.stop_timeout, visit_one, release);
    if (!stats) return std::unexpected(stats.error());
    finish_round(*stats);
    if (stats->exec_seen) {
      reopen_pending = true;  // new memory, maps and symbols before the next round
      ++summary.execs;
      exec_rounds.push_back(rounds.size());
    }
    return {};
  }

  // Entry functions of every thread, as of the rounds tallied: a cache for one pass over them.
  const std::string& current_entry(pid_t tid, std::unordered_map<pid_t, std::string>* cache) {
    auto [it, added] = cache->try_emplace(tid);
    if (added) it->second = entries.entry_of(tid);
    return it->second;
  }
};

Sampler::Sampler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;
Sampler::~Sampler() {
  if (impl_) (void)detach();
}

Result<Sampler> Sampler::attach(const SamplerOptions& options) {
  auto s = std::make_unique<Impl>();
  s->options = options;
  auto name = proc::thread_name(options.pid, options.pid);
  s->process_name = name ? *name : "?";
  // Everything slow first, while nothing is stopped: files, tables, symbols.
  auto memory = RemoteMemory::open(options.pid);
  if (!memory) {
    int e = memory.error().errnum;
    if (e == EACCES || e == EPERM) {
      return fail("cannot read the memory of " + std::to_string(options.pid) +
                      ": permission denied — run as root, or grant CAP_SYS_PTRACE (and "
                      "CAP_BPF + CAP_PERFMON for the stop-free capture)",
                  e);
    }
    if (e == ENOENT || e == ESRCH) {
      return fail("cannot attach to " + std::to_string(options.pid) + ": no such process", ESRCH);
    }
    return std::unexpected(memory.error());
  }
  s->memory = std::make_unique<RemoteMemory>(std::move(*memory));
  ASSIGN_OR_RETURN(Unwinder unwinder, Unwinder::create(s->memory.get()));
  s->unwinder.emplace(std::move(unwinder));
  ASSIGN_OR_RETURN(Symbolizer symbolizer, Symbolizer::create());
  s->symbolizer.emplace(std::move(symbolizer));
  auto start_ticks = proc::process_start_time(options.pid);
  if (!start_ticks) {
    return fail("cannot attach to " + std::to_string(options.pid) + ": no such process", ESRCH);
  }
  s->start_ticks = *start_ticks;
  if (options.method != CaptureMethod::kPtrace) {
    auto tids = proc::list_threads(options.pid);
    auto bpf = BpfCapture::open({.pid = options.pid,
                                 .stack_bytes = options.stack_bytes,
                                 .kernel_stacks = options.kernel_stacks,
                                 .threads_hint = tids ? tids->size() : 0});
    if (bpf) {
      s->bpf.emplace(std::move(*bpf));
    } else if (options.method == CaptureMethod::kBpf || bpf.error().errnum == ESRCH) {
      return std::unexpected(bpf.error());
    } else {
      s->fallback = bpf.error().message;
    }
  }
  if (!s->bpf) {
    ASSIGN_OR_RETURN(PtraceSession session, PtraceSession::attach(options.pid));
    s->session.emplace(std::move(session));
  }
  if (auto fp = proc::maps_fingerprint(options.pid)) s->maps_fingerprint = *fp;
  RETURN_IF_ERROR(s->load_maps());
  s->start = options.epoch.value_or(Clock::now());
  return Sampler(std::move(s));
}

Result<void> Sampler::sample(Release release) {
  Impl& s = *impl_;
  const size_t before = s.rounds.size();
  // bpf holds nothing between rounds: no release to make.
  Result<void> r = s.bpf ? s.round_bpf() : s.round_ptrace(release);
  if (s.options.read_title && s.rounds.size() > before) s.note_title();
  return r;
}

Result<void> Sampler::idle_for(std::chrono::microseconds duration) {
  if (impl_->session) return impl_->session->idle_for(duration);
  // Nothing held: nothing to serve meanwhile.
  auto deadline = Clock::now() + duration;
  while (!shutdown_requested()) {
    auto now = Clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(deadline - now, kIdleCheck));
  }
  return {};
}

Result<void> Sampler::detach() {
  Impl& s = *impl_;
  if (!s.session) return {};
  Result<void> r = s.session->detach(PtraceSession::kDetachTimeout);
  if (r || s.session->target_exited()) s.session.reset();  // else: threads with a stop pending
  return r;
}

bool Sampler::holds_target() const {
  return impl_->session.has_value();
}

UnnamedFrames Sampler::unnamed_frames() {
  Impl& s = *impl_;
  std::unordered_map<uint32_t, uint64_t> samples_of;  // stack id → thread samples
  for (const Round& r : s.rounds) {
    for (const ThreadSample& t : r.threads) ++samples_of[t.stack];
  }
  UnnamedTally tally;
  for (const auto& [id, n] : samples_of) tally.add_stack(s.frames_of(id), n, s.stacks[id].lost);
  tally.perf_map = s.symbolizer && s.symbolizer->perf_map_found();
  tally.perf_map_path = s.symbolizer ? s.symbolizer->perf_map_path() : "";
  return tally.result();
}

void Sampler::aggregate(StackCounts* counts, const AggregateOptions& options) {
  Impl& s = *impl_;
  std::unordered_map<pid_t, std::string> entry;
  if (!options.kernel_names) {
    s.tally_entries();
    // A thread whose most frequent entry changed since its samples were added has them under
    // its old root: add everything again. Rare after the first rounds (entries settle fast).
    for (const auto& [tid, used] : s.entries_aggregated) {
      if (s.current_entry(tid, &entry) == used) continue;
      *counts = StackCounts();
      s.aggregated = 0;
      s.entries_aggregated.clear();
      break;
    }
  }
  // A process seen with one thread so far has none under its root: once a second thread
  // appears, every sample goes under a thread root, so the samples so far are added again.
  const bool multi = s.summary.threads_seen > 1;
  if (options.process_roots && s.aggregated > 0 && multi != s.multi_aggregated) {
    *counts = StackCounts();
    s.aggregated = 0;
    s.entries_aggregated.clear();
  }
  s.multi_aggregated = multi;
  static const std::string kNone;
  for (; s.aggregated < s.rounds.size(); ++s.aggregated) {
    const Round& r = s.rounds[s.aggregated];
    for (const ThreadSample& t : r.threads) {
      const std::string& e = options.kernel_names ? kNone : s.current_entry(t.tid, &entry);
      if (!options.kernel_names) s.entries_aggregated.try_emplace(t.tid, e);
      counts->add(s.root_of(r, t, options, e), s.sample_frames(t, options));
    }
  }
}

std::string Sampler::raw_text(const AggregateOptions& options) {
  Impl& s = *impl_;
  std::string out;
  raw_samples::append_header(&out, s.options.pid, s.process_name);
  for (const RawRound& r : raw_rounds(options)) out += r.text;
  return out;
}

std::vector<Sampler::RawRound> Sampler::raw_rounds(const AggregateOptions& options) {
  Impl& s = *impl_;
  if (!options.kernel_names) s.tally_entries();
  std::unordered_map<pid_t, std::string> entry;
  static const std::string kNone;
  std::vector<RawRound> rounds;
  rounds.reserve(s.rounds.size());
  raw_samples::Sample line;
  for (size_t i = 0; i < s.rounds.size(); ++i) {
    const Round& r = s.rounds[i];
    std::string out;
    // How this round's stacks were taken, and what the stops cost: a comment, so readers of
    // the rows need not know it.
    raw_samples::append_round(
        &out, {r.time_ns, r.copied, r.reused, r.stopped, r.stall_ns,
               std::find(s.exec_rounds.begin(), s.exec_rounds.end(), i) != s.exec_rounds.end()});
    line.time_ns = r.time_ns;
    for (const ThreadSample& t : r.threads) {
      const std::string& e = options.kernel_names ? kNone : s.current_entry(t.tid, &entry);
      line.tid = t.tid;
      line.state = t.state;
      line.stack = s.root_of(r, t, options, e);
      for (const std::string& f : s.sample_frames(t, options)) {
        line.stack += ';';
        line.stack += f;
      }
      raw_samples::append_sample(&out, line);
    }
    rounds.push_back({r.time_ns, std::move(out)});
  }
  return rounds;
}

size_t Sampler::round_count() const {
  return impl_->rounds.size();
}
uint64_t Sampler::round_time_ns(size_t round) const {
  return impl_->rounds[round].time_ns;
}

void Sampler::add_timed_round(size_t round, const AggregateOptions& options,
                              timed_samples::Builder* builder, std::vector<uint32_t>* stack_ids) {
  Impl& s = *impl_;
  if (!options.kernel_names) s.tally_entries();
  AggregateOptions o = options;
  o.state_frames = false;  // the state is a column of its own
  const Round& r = s.rounds[round];
  std::unordered_map<pid_t, std::string> entry;
  static const std::string kNone;
  std::vector<std::string> roots;
  roots.reserve(r.threads.size());
  if (stack_ids->size() < s.stacks.size())
    stack_ids->resize(s.stacks.size(), timed_samples::Builder::kNoStack);
  std::vector<timed_samples::Builder::Entry> entries;
  entries.reserve(r.threads.size());
  for (const ThreadSample& t : r.threads) {
    const std::string& e = o.kernel_names ? kNone : s.current_entry(t.tid, &entry);
    roots.push_back(s.root_of(r, t, o, e));
    uint32_t& id = (*stack_ids)[t.stack];
    if (id == timed_samples::Builder::kNoStack) {
      std::string joined;
      for (const std::string& f : s.frames_of(t.stack)) {
        if (!joined.empty()) joined += ';';
        joined += f;
      }
      id = builder->intern_stack(joined);
    }
    entries.push_back({.tid = t.tid, .state = t.state, .stack = id});
  }
  for (size_t i = 0; i < entries.size(); ++i) entries[i].root = roots[i];
  const bool after_exec =
      std::find(s.exec_rounds.begin(), s.exec_rounds.end(), round) != s.exec_rounds.end();
  builder->add({.time_ns = r.time_ns,
                .pid = s.options.pid,
                .copied = r.copied,
                .reused = r.reused,
                .stopped = r.stopped,
                .stall_ns = r.stall_ns,
                .after_exec = after_exec},
               entries);
}

uint64_t Sampler::epoch_mono_ns() const {
  // steady_clock is CLOCK_MONOTONIC (libstdc++ on Linux), the scheduler tracer's trace clock.
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(impl_->start.time_since_epoch())
          .count());
}

uint64_t Sampler::epoch_real_ns() const {
  const auto since = Clock::now() - impl_->start;
  const auto real = std::chrono::system_clock::now() - since;
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(real.time_since_epoch()).count());
}

const SamplerSummary& Sampler::summary() const {
  return impl_->summary;
}
std::string_view Sampler::method() const {
  return impl_->bpf ? "bpf" : "ptrace";
}
const std::string& Sampler::fallback_reason() const {
  return impl_->fallback;
}
pid_t Sampler::pid() const {
  return impl_->options.pid;
}
std::string Sampler::process_name() const {
  return impl_->process_name;
}

}  // namespace hearth::stacks
