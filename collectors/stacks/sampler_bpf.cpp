// The sampler's bpf method: one task-iterator pass copies every thread that is off a CPU
// without stopping it; only threads on a CPU are stopped, each alone, and released at once.
#include "collectors/stacks/sampler_impl.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>

#include "collectors/proc/maps.h"
#include "collectors/proc/processes.h"
#include "collectors/proc/threads.h"

namespace hearth::stacks {
namespace {

// Extra passes in one round for stacks deeper than their copy (each doubles the copy).
constexpr int kMaxDeeperPasses = 6;

// CPU time of the calling thread, ms.
double thread_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Minor page faults of the calling thread so far.
long thread_minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

}  // namespace

void Sampler::Impl::unwind_in_place(Slot& slot, const BpfThread& t, bool* deeper) {
  const auto began = Clock::now();
  const double cpu_began = thread_cpu_ms();
  slot.regs = *t.regs;
  slot.kernel_ips.assign(t.kernel.begin(), t.kernel.end());
  slot.kernel.clear();
  slot.last_stack = unwind_stack(slot, StackView{t.copy_base, t.stack}, deeper);
  slot.visited = slot.unwound = true;
  pass_unwind_ms += std::chrono::duration<double, std::milli>(Clock::now() - began).count();
  pass_unwind_cpu_ms += thread_cpu_ms() - cpu_began;
}

bool Sampler::Impl::take(const BpfThread& t, bool* skip, bool* deeper) {
  auto [it, added] = slots.try_emplace(t.tid);
  Slot& slot = it->second;
  if (added) slot.stack_bytes = options.stack_bytes;
  slot.seen = true;
  if (slot.comm != t.comm) {
    slot.comm = t.comm;
    slot.name = intern_name(slot.comm);
  }
  slot.state = t.state;
  if (t.copied()) {
    unwind_in_place(slot, t, deeper);
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

Result<void> Sampler::Impl::round_bpf() {
  RETURN_IF_ERROR(begin_pass());
  ASSIGN_OR_RETURN(size_t visited, bpf->pass([this](const BpfThread& t) { take_in_pass(t); }));
  (void)visited;  // counted per process in pass.visited
  return end_pass();
}

Result<void> Sampler::Impl::begin_pass() {
  pass = Pass{};
  if (!shared_capture) {
    // A process of its own: its maps are looked at before the pass, every round (a set's
    // members are looked at in the pass, by their change count: check_maps()).
    pass.maps_checked = true;
    if (auto fp = proc::maps_fingerprint(options.pid); fp && *fp != maps_fingerprint) {
      maps_fingerprint = *fp;
      RETURN_IF_ERROR(load_maps());
    }
  }
  for (auto& [tid, slot] : slots) {
    slot.seen = slot.visited = slot.stopped = slot.reuse = slot.unwound = false;
  }
  if (!shared_capture) {  // a set's pass is timed once, by the set (a clock read per member
                          // was a fifth of a 200-process set's steady CPU)
    pass.start = Clock::now();
    pass.cpu_start = thread_cpu_ms();
    pass.faults_start = thread_minor_faults();
  }
  pass.exec_id = leader_exec_id;
  pass_unwind_ms = pass_unwind_cpu_ms = 0;
  return {};
}

void Sampler::Impl::check_maps(const BpfThread& t) {
  pass.maps_checked = true;
  // An odd count: the mappings are being changed right now; read them, remember nothing.
  const bool counted = t.has_mm_seq() && t.mm_seq % 2 == 0;
  if (counted && t.mm_seq == maps_seq) return;  // not changed since they were last current
  auto fp = proc::maps_fingerprint(options.pid);
  if (fp && *fp != maps_fingerprint) {
    maps_fingerprint = *fp;
    if (pass.reload) pass.reload = load_maps();
  }
  maps_seq = counted && fp ? t.mm_seq : kNoMmSeq;
}

void Sampler::Impl::take_in_pass(const BpfThread& t) {
  if (pass.leader_reused) return;
  ++pass.visited;
  if (!t.exiting()) ++pass.live;
  if (t.tid == options.pid) {
    if (shared_capture) {
      // Every process of the host passes by: a leader started at another time is another
      // process that took the pid.
      if (leader_start_ns == 0) leader_start_ns = t.start_time;
      if (t.start_time != leader_start_ns) {
        pass.leader_reused = true;
        return;
      }
    }
    pass.exec_id = t.exec_id;
    if (leader_exec_id != kNoExecId && pass.exec_id != leader_exec_id && pass.reload) {
      // The target called execve since the last pass: its maps are new, and the copies of
      // this pass are of the new image: load its maps before unwinding them (the leader
      // comes first in the pass, before any other thread).
      ++summary.execs;
      exec_rounds.push_back(rounds.size());
      pass.reload = reopen_after_exec();
      leader_exec_id = pass.exec_id;
      pass.maps_checked = true;
      maps_seq = t.has_mm_seq() && t.mm_seq % 2 == 0 ? t.mm_seq : kNoMmSeq;
      pass.unwound_before_exec = std::count_if(slots.begin(), slots.end(), [](const auto& e) {
        return e.second.unwound;
      });
    }
  }
  // Before the first copy of this process is unwound: the maps it is unwound with are current.
  if (!pass.maps_checked && !t.exiting()) check_maps(t);
  bool skip = false, more = false;
  if (take(t, &skip, &more)) pass.to_stop.push_back(t.tid);
  if (skip) pass.unreadable.push_back(t.tid);
  if (more) pass.deeper.push_back(t.tid);
}

Result<void> Sampler::Impl::end_pass() {
  RETURN_IF_ERROR(pass.reload);
  bool gone = pass.visited == 0 || pass.leader_reused;
  if (shared_capture) {
    // A set's pass sees every process of the host: one with no live thread has exited (a
    // zombie its parent has not reaped yet). The first pass also compares the start time
    // /proc gave at attach (the pid may have been taken again since).
    gone = gone || pass.live == 0;
    if (!gone && pass.visited > 0 && !first_shared_pass_checked) {
      first_shared_pass_checked = true;
      auto st = proc::process_start_time(options.pid);
      gone = !st || *st != start_ticks;
    }
  } else {
    auto st = proc::process_start_time(options.pid);
    gone = gone || !st || *st != start_ticks;
  }
  if (gone) {
    if (shared_capture) {
      for (const auto& [tid, slot] : slots) bpf->forget(tid);
    }
    return fail("target " + std::to_string(options.pid) + " exited", ESRCH);
  }
  leader_exec_id = pass.exec_id;
  for (auto it = slots.begin(); it != slots.end();) {  // threads that are gone
    if (it->second.seen) {
      ++it;
      continue;
    }
    bpf->forget(it->first);
    it = slots.erase(it);
  }
  std::vector<pid_t>& deeper = pass.deeper;
  if (pass.unwound_before_exec > 0) {
    // Not reached while the leader comes first; if it ever does not, copies unwound with the
    // old image's maps are unwound again from a fresh copy (or left out of this round).
    for (auto& [tid, slot] : slots) {
      if (slot.unwound) {
        slot.unwound = slot.visited = false;
        bpf->forget(tid);
        deeper.push_back(tid);
      }
    }
  }
  // Threads on a CPU are stopped now, not looked at again later: most would have left the CPU
  // by then, and leaving it is going to sleep, mostly; a later look, taken because a thread
  // was running, would tilt the states towards sleep (4-6 points of R on a duty-cycle
  // target, against the scheduler's own account).
  std::vector<pid_t>& to_stop = pass.to_stop;
  std::sort(to_stop.begin(), to_stop.end());
  StopStats stats;
  if (!to_stop.empty()) stats = stop_running(to_stop);
  // The pass's own cost: its unwinding in place is counted under unwinding, as before. A set's
  // pass is the set's: ProcessSet counts it once.
  if (!shared_capture) {
    summary.capture_ms.push_back(std::max(
        0.0, std::chrono::duration<double, std::milli>(Clock::now() - pass.start).count() -
                 pass_unwind_ms));
    summary.capture_cpu_ms.push_back(
        std::max(0.0, thread_cpu_ms() - pass.cpu_start - pass_unwind_cpu_ms));
    summary.capture_faults.push_back(
        static_cast<uint64_t>(thread_minor_faults() - pass.faults_start));
  }
  for (pid_t tid : pass.unreadable) {
    note_skipped(tid, &slots[tid], "its stack could not be read");
    stats.skipped.push_back(tid);
  }
  RETURN_IF_ERROR(copy_deeper(std::move(deeper)));
  finish_round(stats);
  return {};
}

StopStats Sampler::Impl::stop_running(const std::vector<pid_t>& tids) {
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

void Sampler::Impl::visit_stopped(pid_t tid, const user_regs_struct& regs, char state) {
  visit(tid, regs, state);
  if (auto it = slots.find(tid); it != slots.end()) it->second.stopped = true;
}

Result<void> Sampler::Impl::copy_deeper(std::vector<pid_t> deeper) {
  for (int attempt = 0; !deeper.empty() && attempt < kMaxDeeperPasses; ++attempt) {
    std::sort(deeper.begin(), deeper.end());
    for (pid_t tid : deeper) {
      // Also: copied again in the next pass even if it has not run since.
      if (auto it = slots.find(tid); it != slots.end()) bpf->set_stack_bytes(tid, it->second.stack_bytes);
    }
    std::vector<pid_t> again;
    ASSIGN_OR_RETURN(size_t visited, bpf->pass([&](const BpfThread& t) {
      if (!t.copied()) return;  // unchanged, or it ran since: keep the first copy
      auto it = slots.find(t.tid);
      if (it == slots.end() || !std::binary_search(deeper.begin(), deeper.end(), t.tid)) {
        bpf->forget(t.tid);  // a newer copy than the one kept: the next round reads it anew
        return;
      }
      bool more = false;
      unwind_in_place(it->second, t, &more);
      if (more) again.push_back(t.tid);
    }));
    (void)visited;
    deeper = std::move(again);
  }
  for (pid_t tid : deeper) {  // still deeper than the copy after the last try: next round's
    if (auto it = slots.find(tid); it != slots.end()) bpf->set_stack_bytes(tid, it->second.stack_bytes);
  }
  return {};
}

}  // namespace hearth::stacks
