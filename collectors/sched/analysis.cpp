#include "collectors/sched/analysis.h"

#include <algorithm>
#include <utility>

namespace hearth::sched {

OffState classify_state(std::string_view letters) {
  if (letters.empty()) return OffState::kOther;
  switch (letters.front()) {
    case 'R':
      return OffState::kRunnable;
    case 'S':
      return OffState::kSleeping;
    case 'D':
      return OffState::kBlocked;
    case 't':  // case matters: 'T' is a job-control stop
      return OffState::kStopped;
    default:
      return OffState::kOther;
  }
}

uint64_t latency_bucket_bound_ns(int k) {
  return uint64_t{1000} << k;
}

int latency_bucket(uint64_t latency_ns) {
  for (int k = 0; k < sched_tsv::kWakeupBuckets - 1; ++k) {
    if (latency_ns <= latency_bucket_bound_ns(k)) return k;
  }
  return sched_tsv::kWakeupBuckets - 1;
}

uint64_t& off_ns(ThreadStates& row, OffState s) {
  switch (s) {
    case OffState::kRunnable:
      return row.runnable_ns;
    case OffState::kSleeping:
      return row.sleeping_ns;
    case OffState::kBlocked:
      return row.blocked_ns;
    case OffState::kStopped:
      return row.stopped_ns;
    case OffState::kOther:
      break;
  }
  return row.other_ns;
}

uint64_t& switches(ThreadStates& row, OffState s) {
  switch (s) {
    case OffState::kRunnable:
      return row.switches_runnable;
    case OffState::kSleeping:
      return row.switches_sleeping;
    case OffState::kBlocked:
      return row.switches_blocked;
    case OffState::kStopped:
      return row.switches_stopped;
    case OffState::kOther:
      break;
  }
  return row.switches_other;
}

uint64_t off_ns(const ThreadStates& row, OffState s) {
  return off_ns(const_cast<ThreadStates&>(row), s);
}

uint64_t switches(const ThreadStates& row, OffState s) {
  return switches(const_cast<ThreadStates&>(row), s);
}

namespace {

enum class Phase : uint8_t { kUnknown, kRunning, kOff, kExited };

struct TenancyAcc {
  uint64_t on_cpu_ns = 0;
  uint64_t switch_ins = 0;
};

struct PreemptAcc {
  pid_t pid = -1;
  std::string comm;
  uint64_t count = 0;
  uint64_t time_ns = 0;
};

constexpr size_t idx(OffState s) {
  return static_cast<size_t>(s);
}

// The interval state of off-CPU time after a switch-out in LETTERS (the kernel's, or proc(5)'s
// for a seed): its first letter, which classify_state reads the same way; '?' when there is none
// (or 'C', which is not the kernel's and would read as on CPU).
char off_letter(std::string_view letters) {
  if (letters.empty() || letters.front() == sched_intervals::kStateOnCpu) return '?';
  return sched_intervals::valid_state(letters.front()) ? letters.front() : '?';
}

}  // namespace

struct SchedAnalysis::Thread {
  pid_t tid = 0;
  pid_t pid = -1;     // tgid, -1 unknown
  int idle_cpu = -1;  // ≥ 0: this is the idle task of that CPU
  std::string comm;

  bool seeded = false;
  char seed_state = '?';
  int seed_cpu = -1;

  Phase phase = Phase::kUnknown;
  int cpu = -1;        // while running
  uint64_t since = 0;  // start of the current running or off interval, ns
  OffState off_state = OffState::kOther;
  char off_letter = '?';  // the interval state of the current off interval (off_letter())
  int off_cpu = -1;       // the CPU it left at that switch-out
  pid_t preemptor = -1;   // tid that ran next at a runnable switch-out, while off

  uint64_t on_cpu_ns = 0;
  std::array<uint64_t, kOffStates> off_ns{};
  std::array<uint64_t, kOffStates> switches{};
  std::map<int, TenancyAcc> tenancy;
  std::map<pid_t, PreemptAcc> preemptors;

  bool wake_pending = false;
  uint64_t wake_ts = 0;
  pid_t waker = -1;   // the task current when the pending wakeup fired
  int wake_cpu = -1;  // the run queue it put the thread on (sched_wakeup), else -1
  // A migration while off CPU (load balancing pulls runnable threads to idle CPUs): the thread
  // ran on the new CPU after it. Cleared at each switch.
  bool migrated_while_off = false;
  uint64_t migrate_ts = 0;
  std::vector<uint64_t> latencies;  // ns
  std::array<uint64_t, sched_tsv::kWakeupBuckets> histogram{};
  uint64_t migrations = 0;
  int last_run_cpu = -1;
  uint64_t inferred = 0;  // switch-ins the stream lacked (SchedModel::inferred_switch_ins)
  uint64_t inferred_without_wakeup = 0;

  // --cpu view
  bool view_ran = false;
  uint64_t view_last_off = 0;  // when it last left the view CPU (window start at first)
  uint64_t view_longest_off = 0;

  ThreadIntervals intervals;  // when keeps_intervals()
};

SchedAnalysis::SchedAnalysis(AnalysisOptions options)
    : options_(std::move(options)),
      reported_pids_(options_.target_pids.begin(), options_.target_pids.end()) {
  last_ts_ = options_.window_start_ns;
  const uint64_t start = options_.window_start_ns;
  keep_.window_start_ns = start;
  keep_.slot_ns = options_.slot_ns > 0 ? options_.slot_ns : 1'000'000'000;
  // A whole number of slots after the start (what the files' readers check).
  const uint64_t from = std::max(options_.intervals_whole_from_ns, start);
  keep_.whole_from_ns = start + (from - start) / keep_.slot_ns * keep_.slot_ns;
}

SchedAnalysis::~SchedAnalysis() = default;

size_t SchedAnalysis::threads_seen() const {
  return threads_.size();
}

SchedAnalysis::Thread& SchedAnalysis::thread(pid_t tid, int cpu) {
  int64_t key = tid > 0 ? tid : -(static_cast<int64_t>(cpu) + 1);
  auto& slot = threads_[key];
  if (!slot) {
    slot = std::make_unique<Thread>();
    slot->tid = tid;
    if (tid <= 0) {
      slot->tid = 0;
      slot->idle_cpu = cpu;
      slot->pid = 0;
      slot->comm = "swapper/" + std::to_string(cpu);
    }
    slot->view_last_off = options_.window_start_ns;
  }
  return *slot;
}

uint64_t SchedAnalysis::clamp_ts(uint64_t ts) {
  if (ts < last_ts_) return last_ts_;
  last_ts_ = ts;
  return ts;
}

void SchedAnalysis::seed(const ThreadSeed& s) {
  Thread& t = thread(s.tid, 0);
  t.pid = s.pid;
  t.comm = s.comm;
  t.seeded = true;
  t.seed_state = s.proc_state;
  t.seed_cpu = s.cpu;
}

namespace {

void note_identity(pid_t tgid, const std::string& comm, pid_t* pid, std::string* name, bool idle) {
  if (idle) return;
  if (tgid >= 0) *pid = tgid;
  if (!comm.empty()) *name = comm;
}

}  // namespace

void SchedAnalysis::add(const SchedEvent& event) {
  std::visit([this](const auto& e) { add(e); }, event);
}

void SchedAnalysis::add(const SwitchEvent& e) {
  uint64_t ts = clamp_ts(e.ctx.ts_ns);
  int cpu = e.ctx.cpu;
  Thread& prev = thread(e.prev_pid, cpu);
  Thread& next = thread(e.next_pid, cpu);
  note_identity(e.prev_tgid, e.prev_comm, &prev.pid, &prev.comm, prev.idle_cpu >= 0);
  note_identity(e.next_tgid, e.next_comm, &next.pid, &next.comm, next.idle_cpu >= 0);
  if (&prev == &next) return;  // not a switch; never emitted by the kernel

  if (prev.idle_cpu < 0) infer_missing_switch_in(prev, ts, cpu);
  OffState state = classify_state(e.prev_state);
  switch_out(prev, ts, cpu, state, off_letter(e.prev_state), e.next_pid);
  // "X" (dead) or "Z" (zombie): the thread exited; its time ends here.
  if (!e.prev_state.empty() && (e.prev_state[0] == 'X' || e.prev_state[0] == 'Z'))
    prev.phase = Phase::kExited;
  if (state == OffState::kRunnable) {
    PreemptAcc& p = prev.preemptors[e.next_pid];
    p.count++;
    if (e.next_pid == 0) {
      p.pid = 0;
    } else if (e.next_tgid >= 0) {
      p.pid = e.next_tgid;
    }
    if (!e.next_comm.empty()) p.comm = e.next_comm;
  }
  switch_in(next, ts, cpu);
  CpuState& c = cpus_[cpu];
  c.last_switch_ns = ts;
  c.current = next.idle_cpu >= 0 ? -(static_cast<int64_t>(cpu) + 1) : next.tid;
}

void SchedAnalysis::infer_missing_switch_in(Thread& t, uint64_t ts, int cpu) {
  auto cs = cpus_.find(cpu);
  bool running_here = t.phase == Phase::kRunning && t.cpu == cpu;
  // First event on this CPU and the thread's first event: it was on the CPU since the start.
  if (running_here || (t.phase == Phase::kUnknown && cs == cpus_.end())) return;
  uint64_t in = cs != cpus_.end() ? cs->second.last_switch_ns : options_.window_start_ns;
  // Not before what is known of the thread: off since its switch-out, or running elsewhere since
  // its switch-in there (a switch-out lost on that CPU), or exited (its tid reused). Earlier, its
  // time there would count twice.
  if (t.phase != Phase::kUnknown) in = std::max(in, t.since);
  ++t.inferred;
  // The latest thing known to come before the switch-in: its wakeup (or fork), or a migration
  // after it (a runnable thread pulled to an idle CPU, whose idle → task switch went missing).
  if (t.wake_pending) in = std::max(in, t.wake_ts);
  if (t.migrated_while_off) in = std::max(in, t.migrate_ts);
  if (!t.wake_pending && !t.migrated_while_off) ++t.inferred_without_wakeup;
  in = std::min(in, ts);
  if (cs != cpus_.end()) {
    // Whoever the stream left on this CPU (the idle task, usually) left it at IN.
    auto cur = threads_.find(cs->second.current);
    if (cur != threads_.end() && cur->second.get() != &t && cur->second->phase == Phase::kRunning &&
        cur->second->cpu == cpu) {
      switch_out(*cur->second, in, cpu, OffState::kOther, sched_intervals::kStateUnknown, t.tid);
    }
  }
  switch_in(t, in, cpu, /*observed=*/false);  // its latency is unknown
}

SchedAnalysis::Thread* SchedAnalysis::subject(pid_t pid, pid_t tgid, const std::string& comm,
                                              int cpu) {
  if (pid <= 0) return nullptr;
  Thread& t = thread(pid, cpu);
  note_identity(tgid, comm, &t.pid, &t.comm, false);
  return &t;
}

void SchedAnalysis::add(const WakingEvent& e) {
  uint64_t ts = clamp_ts(e.ctx.ts_ns);
  Thread* s = subject(e.pid, e.tgid, e.comm, e.ctx.cpu);
  if (s == nullptr) return;
  Thread& t = *s;
  if (t.phase != Phase::kRunning && !t.wake_pending) {
    t.wake_pending = true;
    t.wake_ts = ts;
    t.waker = e.ctx.common_pid;
    t.wake_cpu = e.enqueued ? e.target_cpu : -1;
  }
}

void SchedAnalysis::add(const MigrateEvent& e) {
  uint64_t ts = clamp_ts(e.ctx.ts_ns);
  Thread* s = subject(e.pid, e.tgid, e.comm, e.ctx.cpu);
  if (s == nullptr) return;
  Thread& t = *s;
  if (t.phase != Phase::kRunning) {
    t.migrated_while_off = true;
    t.migrate_ts = ts;
  }
}

void SchedAnalysis::add(const ForkEvent& e) {
  uint64_t ts = clamp_ts(e.ctx.ts_ns);
  if (e.child_pid <= 0) return;
  // A new process of a reported one: reported too with inherit (its own children follow it).
  if (options_.inherit && !e.thread && e.child_tgid > 0 && reported_pids_.count(e.parent_tgid)) {
    reported_pids_.insert(e.child_tgid);
  }
  Thread& t = thread(e.child_pid, e.ctx.cpu);
  // A tid seen before: seeded (the fork raced the seeding), or reused after an exit.
  if (t.seeded || (t.phase != Phase::kUnknown && t.phase != Phase::kExited)) return;
  if (e.child_tgid >= 0) t.pid = e.child_tgid;
  if (!e.child_comm.empty()) t.comm = e.child_comm;
  t.phase = Phase::kOff;
  t.since = ts;
  t.off_state = OffState::kRunnable;
  t.off_letter = sched_intervals::kStateRunnable;
  t.off_cpu = e.ctx.cpu;
  t.preemptor = -1;
  t.wake_pending = true;
  t.wake_ts = ts;
  t.waker = e.parent_pid;
  t.wake_cpu = -1;
  t.view_last_off = ts;
}

namespace {

void account_on(uint64_t from, uint64_t to, int cpu, uint64_t* on,
                std::map<int, TenancyAcc>* tenancy) {
  uint64_t d = to > from ? to - from : 0;
  *on += d;
  if (cpu >= 0) (*tenancy)[cpu].on_cpu_ns += d;
}

}  // namespace

bool SchedAnalysis::keeps_intervals(const Thread& t) const {
  if (t.idle_cpu >= 0) return false;
  // With inherit the reported processes grow: decided at finish().
  if (options_.target_pids.empty() || options_.inherit) return true;
  return t.pid < 0 || reported_pids_.count(t.pid) != 0;
}

void SchedAnalysis::on_cpu(Thread& t, uint64_t from, uint64_t to, int cpu) {
  account_on(from, to, cpu, &t.on_cpu_ns, &t.tenancy);
  if (keeps_intervals(t)) t.intervals.add(keep_, from, to, sched_intervals::kStateOnCpu, cpu, -1);
}

void SchedAnalysis::off_cpu(Thread& t, uint64_t from, uint64_t to, char letter, int cpu,
                            int64_t by) {
  if (to <= from) return;
  t.off_ns[idx(classify_state(std::string_view(&letter, 1)))] += to - from;
  if (keeps_intervals(t)) t.intervals.add(keep_, from, to, letter, cpu, by);
}

void SchedAnalysis::switch_out(Thread& t, uint64_t ts, int cpu, OffState state, char letter,
                               pid_t next_tid) {
  const uint64_t start = options_.window_start_ns;
  switch (t.phase) {
    case Phase::kRunning:
      on_cpu(t, t.since, ts, cpu);
      break;
    case Phase::kUnknown:
      // Running since the window start (or since a switch-in we never saw).
      on_cpu(t, start, ts, cpu);
      break;
    case Phase::kExited:
      break;
    case Phase::kOff: {
      // Two switch-outs in a row: a switch-in was lost. Close the off interval here.
      uint64_t d = ts - t.since;
      const bool preempted = t.off_state == OffState::kRunnable;
      off_cpu(t, t.since, ts, t.off_letter, t.off_cpu, preempted ? t.preemptor : -1);
      if (preempted && t.preemptor >= 0) t.preemptors[t.preemptor].time_ns += d;
      break;
    }
  }
  t.phase = Phase::kOff;
  t.since = ts;
  t.migrated_while_off = false;
  t.off_state = state;
  t.off_letter = letter;
  t.off_cpu = cpu;
  t.switches[idx(state)]++;
  if (keeps_intervals(t)) t.intervals.switch_out(keep_, ts);
  t.preemptor = state == OffState::kRunnable ? next_tid : -1;
  if (cpu == options_.cpu) t.view_last_off = ts;
}

void SchedAnalysis::switch_in(Thread& t, uint64_t ts, int cpu, bool observed) {
  const uint64_t start = options_.window_start_ns;
  // Woken before this switch-in: from the wakeup on, the thread was runnable, waiting for a
  // CPU (the kernel's state R), whatever state it had been switched out in.
  auto woke_since = [&](uint64_t from) {
    return t.wake_pending && t.wake_ts >= from && t.wake_ts <= ts;
  };
  const char kR = sched_intervals::kStateRunnable;
  switch (t.phase) {
    case Phase::kOff: {
      const bool woke = woke_since(t.since);
      const uint64_t woken = woke ? t.wake_ts : ts;
      uint64_t d = woken - t.since;
      const bool preempted = t.off_state == OffState::kRunnable;
      off_cpu(t, t.since, woken, t.off_letter, t.off_cpu,
              preempted ? t.preemptor : (woke ? t.waker : -1));
      off_cpu(t, woken, ts, kR, cpu, -1);  // woken: waited for a CPU, the one it got
      if (preempted && t.preemptor >= 0) t.preemptors[t.preemptor].time_ns += d;
      break;
    }
    case Phase::kUnknown:
      if (t.seeded) {
        const bool woke = woke_since(start);
        const uint64_t woken = woke ? t.wake_ts : ts;
        off_cpu(t, start, woken, off_letter(std::string_view(&t.seed_state, 1)), t.seed_cpu,
                woke ? t.waker : -1);
        off_cpu(t, woken, ts, kR, cpu, -1);
      }
      break;
    case Phase::kExited:  // the tid was reused: a new thread from here on
      break;
    case Phase::kRunning:
      // Two switch-ins in a row: a switch-out was lost. Count the time as on-CPU.
      on_cpu(t, t.since, ts, t.cpu);
      break;
  }
  if (t.wake_pending && observed) {
    uint64_t latency = ts - t.wake_ts;
    t.latencies.push_back(latency);
    t.histogram[static_cast<size_t>(latency_bucket(latency))]++;
  }
  t.wake_pending = false;
  if (t.last_run_cpu >= 0 && t.last_run_cpu != cpu) t.migrations++;
  t.last_run_cpu = cpu;
  t.tenancy[cpu].switch_ins++;
  if (cpu == options_.cpu) {
    t.view_longest_off = std::max(t.view_longest_off, ts - t.view_last_off);
    t.view_ran = true;
  }
  t.phase = Phase::kRunning;
  t.since = ts;
  t.migrated_while_off = false;
  t.cpu = cpu;
}

namespace {

uint64_t nearest_rank(const std::vector<uint64_t>& sorted, uint64_t percent) {
  if (sorted.empty()) return 0;
  uint64_t n = sorted.size();
  uint64_t rank = (percent * n + 99) / 100;  // ceil(p·n/100), ≥ 1
  return sorted[static_cast<size_t>(std::max<uint64_t>(rank, 1) - 1)];
}

}  // namespace

SchedModel SchedAnalysis::finish(uint64_t window_end_ns) {
  const uint64_t start = options_.window_start_ns;
  const uint64_t end = std::max(window_end_ns, last_ts_);
  const bool all = options_.target_pids.empty();
  SchedModel m;
  auto store = std::make_shared<IntervalStore>();
  store->keep = keep_;

  std::vector<Thread*> sorted;
  sorted.reserve(threads_.size());
  for (auto& [key, t] : threads_) sorted.push_back(t.get());
  std::sort(sorted.begin(), sorted.end(), [](const Thread* a, const Thread* b) {
    if (a->tid != b->tid) return a->tid < b->tid;
    return a->idle_cpu < b->idle_cpu;
  });

  for (Thread* tp : sorted) {
    Thread& t = *tp;
    // Close what is open at the window end.
    switch (t.phase) {
      case Phase::kRunning:
        on_cpu(t, t.since, end, t.cpu);
        break;
      case Phase::kOff: {
        // Woken and still waiting for a CPU at the end: runnable from its wakeup on.
        const bool woke = t.wake_pending && t.wake_ts >= t.since && t.wake_ts <= end;
        const uint64_t woken = woke ? t.wake_ts : end;
        uint64_t d = woken - t.since;
        const bool preempted = t.off_state == OffState::kRunnable;
        off_cpu(t, t.since, woken, t.off_letter, t.off_cpu,
                preempted ? t.preemptor : (woke ? t.waker : -1));
        off_cpu(t, woken, end, sched_intervals::kStateRunnable, t.wake_cpu, -1);
        if (preempted && t.preemptor >= 0) t.preemptors[t.preemptor].time_ns += d;
        break;
      }
      case Phase::kExited:
        break;
      case Phase::kUnknown:
        if (t.seeded && t.seed_state == 'R' && cpus_.count(t.seed_cpu) != 0) {
          // Its CPU switched other tasks and it never ran there: it waited all along (or ran on
          // a CPU that was not recorded, with --cpu).
          off_cpu(t, start, end, sched_intervals::kStateRunnable, t.seed_cpu, -1);
        } else if (t.seeded && t.seed_state == 'R') {
          // Never switched during the whole window: it had its CPU to itself.
          on_cpu(t, start, end, t.seed_cpu);
          if (t.seed_cpu >= 0 && t.seed_cpu == options_.cpu) t.view_ran = true;
        } else if (t.seeded) {
          off_cpu(t, start, end, off_letter(std::string_view(&t.seed_state, 1)), t.seed_cpu, -1);
        }
        break;
    }
    bool on_view_at_end =
        (t.phase == Phase::kRunning && t.cpu == options_.cpu) || t.phase == Phase::kExited;
    bool whole_window_on_view = t.phase == Phase::kUnknown && t.view_ran;
    if (!on_view_at_end && !whole_window_on_view)
      t.view_longest_off = std::max(t.view_longest_off, end - t.view_last_off);

    bool idle = t.idle_cpu >= 0;
    bool reported = idle ? all : (all || reported_pids_.count(t.pid) != 0);
    if (!reported) continue;
    pid_t pid = t.pid < 0 ? 0 : t.pid;
    // Only the reported threads' own: with -p, a task outside the targets appears in the stream
    // only next to a target's switch, so its other switch-ins are missing by design.
    m.inferred_switch_ins += t.inferred;
    m.inferred_without_wakeup += t.inferred_without_wakeup;

    for (const auto& [cpu, acc] : t.tenancy) {
      if (acc.on_cpu_ns == 0 && acc.switch_ins == 0) continue;
      m.tenancy.push_back({t.tid, t.comm, cpu, acc.on_cpu_ns, acc.switch_ins});
    }
    if (options_.cpu >= 0) {
      auto it = t.tenancy.find(options_.cpu);
      if (it != t.tenancy.end() && (it->second.on_cpu_ns > 0 || it->second.switch_ins > 0)) {
        m.cpu.push_back(
            {t.tid, pid, t.comm, it->second.on_cpu_ns, it->second.switch_ins, t.view_longest_off});
      }
    }
    if (idle) continue;

    t.intervals.finish();
    store->threads.push_back({t.tid, pid, std::move(t.intervals)});
    ThreadStates& row = m.states.emplace_back();
    row.tid = t.tid;
    row.comm = t.comm;
    row.pid = pid;
    row.on_cpu_ns = t.on_cpu_ns;
    for (size_t k = 0; k < kOffStates; ++k) {
      off_ns(row, static_cast<OffState>(k)) = t.off_ns[k];
      switches(row, static_cast<OffState>(k)) = t.switches[k];
    }
    for (const auto& [ptid, acc] : t.preemptors) {
      pid_t ppid = acc.pid < 0 ? 0 : acc.pid;
      std::string pcomm = acc.comm;
      m.preemptors.push_back({t.tid, t.comm, ppid, ptid, pcomm, acc.count, acc.time_ns});
    }
    WakeupRow w;
    w.tid = t.tid;
    w.comm = t.comm;
    std::sort(t.latencies.begin(), t.latencies.end());
    w.wakeups = t.latencies.size();
    w.p50_ns = nearest_rank(t.latencies, 50);
    w.p90_ns = nearest_rank(t.latencies, 90);
    w.p99_ns = nearest_rank(t.latencies, 99);
    w.max_ns = t.latencies.empty() ? 0 : t.latencies.back();
    w.migrations = t.migrations;
    w.histogram = t.histogram;
    m.wakeups.push_back(std::move(w));
  }

  std::stable_sort(m.tenancy.begin(), m.tenancy.end(), [](const auto& a, const auto& b) {
    return a.tid != b.tid ? a.tid < b.tid : a.cpu < b.cpu;
  });
  std::stable_sort(m.preemptors.begin(), m.preemptors.end(), [](const auto& a, const auto& b) {
    if (a.tid != b.tid) return a.tid < b.tid;
    if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
    return a.preemptor_tid < b.preemptor_tid;
  });
  std::stable_sort(m.cpu.begin(), m.cpu.end(),
                   [](const auto& a, const auto& b) { return a.tid < b.tid; });
  m.intervals = std::move(store);
  return m;
}

}  // namespace hearth::sched
