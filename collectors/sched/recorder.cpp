#include "collectors/sched/recorder.h"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "collectors/sched/tracefs_c.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "collectors/proc/threads.h"
#include "collectors/sched/decoder.h"
#include "collectors/sched/fork_watcher.h"
#include "collectors/sched/spool.h"
#include "common/clock.h"
#include "common/file_io.h"

namespace hearth::sched {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// ---- Per-CPU readers: trace_pipe_raw, non-blocking. ----

struct CloseCpu {
  void operator()(tracefs_cpu* tcpu) const { tracefs_cpu_close(tcpu); }
};

struct CpuReader {
  int cpu = 0;
  std::unique_ptr<tracefs_cpu, CloseCpu> tcpu;
  std::vector<char> page;
};

// Move-only (through the readers' owners): closes every reader on destruction or close().
class Readers {
 public:
  void close() { readers_.clear(); }

  Result<void> open(tracefs_instance* inst, int only_cpu) {
    long ncpus = ::sysconf(_SC_NPROCESSORS_CONF);
    for (int cpu = 0; cpu < ncpus; ++cpu) {
      if (only_cpu >= 0 && cpu != only_cpu) continue;
      tracefs_cpu* tcpu = tracefs_cpu_open(inst, cpu, true);
      if (tcpu == nullptr) continue;  // offline or absent CPU
      CpuReader r;
      r.cpu = cpu;
      r.tcpu.reset(tcpu);
      int size = tracefs_cpu_read_size(tcpu);
      r.page.resize(static_cast<size_t>(size > 0 ? size : 4096));
      readers_.push_back(std::move(r));
    }
    if (readers_.empty()) {
      int e = errno;
      return fail_errno("cannot open any per_cpu/cpuN/trace_pipe_raw of the tracefs instance", e);
    }
    return {};
  }

  // Moves everything committed so far on every CPU into SPOOL (partial sub-buffers included:
  // a read of trace_pipe_raw returns the committed part). Returns the bytes moved.
  uint64_t drain(Spool* spool) {
    uint64_t total = 0;
    for (CpuReader& r : readers_) {
      for (;;) {
        int n = tracefs_cpu_read(r.tcpu.get(), r.page.data(), true);
        if (n <= 0) break;  // EAGAIN: nothing more now
        spool->append(r.cpu, r.page.data(), static_cast<size_t>(n));
        total += static_cast<uint64_t>(n);
      }
    }
    return total;
  }

 private:
  std::vector<CpuReader> readers_;
};

// ---- Tasks: process ids and names, looked up once per task. ----

class TaskDirectory {
 public:
  pid_t tgid(pid_t tid) {
    if (tid <= 0) return 0;
    auto it = tgid_.find(tid);
    if (it != tgid_.end()) return it->second;
    pid_t found = -1;
    auto status = read_file("/proc/" + std::to_string(tid) + "/status");
    if (status) {
      size_t pos = status->find("\nTgid:");
      if (pos != std::string::npos) {
        pos += 6;
        while (pos < status->size() && ((*status)[pos] == '\t' || (*status)[pos] == ' ')) ++pos;
        std::from_chars(status->data() + pos, status->data() + status->size(), found);
      }
    }
    tgid_[tid] = found;
    return found;
  }

  void set_tgid(pid_t tid, pid_t tgid) { tgid_[tid] = tgid; }

  const std::string& comm(pid_t tid) {
    auto it = comm_.find(tid);
    if (it != comm_.end()) return it->second;
    std::string name;
    if (tid > 0) {
      auto c = read_file("/proc/" + std::to_string(tid) + "/comm");
      if (c) name = trim(*c);
    }
    return comm_.emplace(tid, std::move(name)).first->second;
  }

  void note_comm(pid_t tid, const std::string& comm) {
    if (tid > 0 && !comm.empty()) comm_[tid] = comm;
  }

  // A task created in the window: a thread is in its parent's process, a new process is its own
  // (exact, unlike a /proc lookup after the window, when short-lived children are gone).
  void note_fork(ForkEvent* f) {
    f->parent_tgid = tgid(f->parent_pid);
    f->child_tgid = f->thread ? f->parent_tgid : f->child_pid;
    if (f->child_pid > 0 && f->child_tgid > 0) tgid_[f->child_pid] = f->child_tgid;
  }

  // Fills in tgids and the current task's name, and learns names from the event.
  void annotate(SchedEvent* ev) {
    if (auto* s = std::get_if<SwitchEvent>(ev)) {
      note_comm(s->prev_pid, s->prev_comm);
      note_comm(s->next_pid, s->next_comm);
      s->prev_tgid = tgid(s->prev_pid);
      s->next_tgid = tgid(s->next_pid);
    } else if (auto* w = std::get_if<WakingEvent>(ev)) {
      note_comm(w->pid, w->comm);
      w->tgid = tgid(w->pid);
      w->ctx.common_comm = comm(w->ctx.common_pid);
    } else if (auto* m = std::get_if<MigrateEvent>(ev)) {
      note_comm(m->pid, m->comm);
      m->tgid = tgid(m->pid);
      m->ctx.common_comm = comm(m->ctx.common_pid);
    } else if (auto* f = std::get_if<ForkEvent>(ev)) {
      note_comm(f->parent_pid, f->parent_comm);
      note_comm(f->child_pid, f->child_comm);
      note_fork(f);
      f->ctx.common_comm = f->parent_comm;
    }
  }

 private:
  std::unordered_map<pid_t, pid_t> tgid_;  // -1: unknown
  std::unordered_map<pid_t, std::string> comm_;
};

std::vector<pid_t> all_pids() {
  std::vector<pid_t> pids;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return pids;
  while (const dirent* e = ::readdir(d)) {
    pid_t pid = 0;
    const char* n = e->d_name;
    auto r = std::from_chars(n, n + std::strlen(n), pid);
    if (r.ec == std::errc() && *r.ptr == '\0' && pid > 0) pids.push_back(pid);
  }
  ::closedir(d);
  std::sort(pids.begin(), pids.end());
  return pids;
}

// The processes descending from ROOTS now (children, theirs, …), ROOTS excluded, ascending.
std::vector<pid_t> descendant_processes(const std::vector<pid_t>& roots) {
  std::unordered_map<pid_t, std::vector<pid_t>> children;
  for (pid_t pid : all_pids()) {
    auto st = proc::thread_stat(pid, pid);
    if (st && st->ppid > 0) children[st->ppid].push_back(pid);
  }
  std::unordered_set<pid_t> seen(roots.begin(), roots.end());
  std::vector<pid_t> todo = roots, out;
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      if (!seen.insert(c).second) continue;
      out.push_back(c);
      todo.push_back(c);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// tid → process for every task alive now, from /proc/PID/task directory listings only.
void scan_all_tasks(TaskDirectory* tasks) {
  for (pid_t pid : all_pids()) {
    auto tids = proc::list_threads(pid);
    if (!tids) continue;
    for (pid_t tid : *tids) tasks->set_tgid(tid, pid);
  }
}

// Every thread of PIDS alive now, with its state: the state at the window start.
std::vector<ThreadSeed> seed_threads(const std::vector<pid_t>& pids, TaskDirectory* tasks) {
  std::vector<ThreadSeed> seeds;
  for (pid_t pid : pids) {
    auto tids = proc::list_threads(pid);
    if (!tids) continue;  // exited meanwhile
    for (pid_t tid : *tids) {
      auto st = proc::thread_stat(pid, tid);
      if (!st) continue;
      ThreadSeed s;
      s.tid = tid;
      s.pid = pid;
      auto name = proc::thread_name(pid, tid);
      s.comm = name ? *name : "";
      s.proc_state = st->state;
      s.cpu = st->processor;
      tasks->set_tgid(tid, pid);
      tasks->note_comm(tid, s.comm);
      seeds.push_back(std::move(s));
    }
  }
  return seeds;
}

}  // namespace

Result<RecordResult> record_sched(const RecordOptions& o) {
  RecordResult result;
  sched_tsv::SchedHeader& h = result.header;
  h.cpu = o.all ? o.cpu : -1;

  // Targets and their threads, before anything touches tracefs.
  std::vector<pid_t> tids;
  std::unordered_map<pid_t, pid_t> initial_tgid;  // tid → process
  for (pid_t pid : o.pids) {
    auto list = proc::list_threads(pid);
    if (!list) {
      return fail("no such process: " + std::to_string(pid) + " (" + list.error().message +
                      ") — check the pid with ps",
                  list.error().errnum);
    }
    tids.insert(tids.end(), list->begin(), list->end());
    for (pid_t tid : *list) initial_tgid[tid] = pid;
    auto comm = read_file("/proc/" + std::to_string(pid) + "/comm");
    h.targets.push_back({pid, comm ? trim(*comm) : ""});
  }
  h.inherit = o.inherit && !o.all;
  const bool inherit = h.inherit;
  // The processes whose threads are recorded: the targets, and with inherit their descendants
  // (those alive now, then those the fork watcher sees created).
  std::vector<pid_t> processes = o.all ? std::vector<pid_t>{} : o.pids;
  if (inherit) {
    for (pid_t pid : descendant_processes(o.pids)) {
      auto list = proc::list_threads(pid);
      if (!list) continue;  // exited meanwhile
      processes.push_back(pid);
      tids.insert(tids.end(), list->begin(), list->end());
      for (pid_t tid : *list) initial_tgid[tid] = pid;
    }
  }

  InstanceOptions io;
  io.tids = o.all ? std::vector<pid_t>{} : tids;
  io.cpu = o.all ? o.cpu : -1;
  // Wakeups: with --wakeups, every sched_waking of the selected tasks (latency, from the start
  // of the wakeup); without, every sched_wakeup (the moment the task is put on a run queue).
  // Either way a thread is runnable from its wakeup to its switch-in (analysis.h): on a busy
  // host that wait is often longer than the sleep, and it must not count as sleeping. The
  // wakeup also places a switch-in some virtual machines' kernels leave out of the stream (a
  // CPU's idle → task switches on this project's CI machines, CPU 1): without it, such a
  // thread's whole sleep would count as on-CPU time.
  io.waking = o.wakeups;
  io.wakeups = !o.wakeups;
  // Migrations always: few (none for pinned threads), and a runnable thread pulled to an idle
  // CPU by load balancing is switched in there after its migration, without a wakeup of its own.
  io.migrations = true;
  io.forks = !o.all;
  // With inherit, the pid list: the kernel adds each child at its fork (options/event-fork), so
  // a short-lived child's first run (its exec, its first sleep) is recorded too; the fork
  // watcher would select it a fraction of a millisecond late. A shell's stream of children also
  // outgrows the event filter within seconds.
  io.use_filter = !inherit;
  ASSIGN_OR_RETURN(TracefsInstance instance, TracefsInstance::create(io));
  result.instance_name = instance.name();

  // The selected threads: grown by the fork watcher's thread and by the /proc rescan. Under
  // selection_mutex: known, followed, task_tgid.
  std::mutex selection_mutex;
  std::unordered_set<pid_t> known(tids.begin(), tids.end());
  std::unordered_set<pid_t> followed(processes.begin(), processes.end());  // processes
  // tid → process of every known task, and of the tasks the fork watcher saw them create (from
  // the clone flags: exact, also for a child gone before the events are decoded).
  std::unordered_map<pid_t, pid_t> task_tgid = std::move(initial_tgid);
  auto select = [&](const std::vector<pid_t>& fresh) {
    std::lock_guard<std::mutex> lock(selection_mutex);
    (void)instance.add_tids(fresh);  // best effort: the rescan tries again
  };
  std::unique_ptr<ForkWatcher> watcher;
  if (!o.all && !instance.kernel_follows_forks()) {
    auto w = ForkWatcher::start([&](const std::vector<ForkEvent>& forks) {
      std::vector<pid_t> children;
      std::vector<uint64_t> forked_at;
      {
        std::lock_guard<std::mutex> lock(selection_mutex);
        // In fork order: a child's own children follow it in the same batch.
        for (const ForkEvent& f : forks) {
          if (known.count(f.parent_pid) == 0) continue;
          pid_t tgid = f.child_pid;  // a new process
          if (f.thread) {
            auto p = task_tgid.find(f.parent_pid);
            tgid = p != task_tgid.end() ? p->second : -1;
          }
          task_tgid[f.child_pid] = tgid;
          // A child process is followed only with inherit.
          if (!f.thread && !inherit) continue;
          if (!f.thread) followed.insert(f.child_pid);
          if (known.insert(f.child_pid).second) {
            children.push_back(f.child_pid);
            forked_at.push_back(f.ctx.ts_ns);
          }
        }
      }
      if (children.empty()) return;
      select(children);
      // How long after its fork each child was selected (both clocks CLOCK_MONOTONIC).
      const uint64_t now = monotonic_ns();
      std::lock_guard<std::mutex> lock(selection_mutex);
      for (uint64_t ts : forked_at) result.follow_latency_ns.push_back(now > ts ? now - ts : 0);
    });
    if (w) {
      watcher = std::move(*w);
    } else {
      // No second instance (an instance limit, a kernel without poll on trace_pipe_raw): the
      // pid list follows forks in the kernel, at its higher cost.
      RETURN_IF_ERROR(instance.use_pid_list());
    }
  }

  Decoder decoder;
  RETURN_IF_ERROR(decoder.init());
  ASSIGN_OR_RETURN(Spool spool, Spool::create(o.spool_dir.empty() ? "/tmp" : o.spool_dir));
  Readers readers;  // declared after the instance: closed before it is removed
  RETURN_IF_ERROR(readers.open(instance.get(), io.cpu));

  TaskDirectory tasks;
  const std::vector<pid_t> seed_pids = o.all ? all_pids() : processes;

  // The seeds describe the state right before tracing starts; events begin right after.
  std::vector<ThreadSeed> seeds = seed_threads(seed_pids, &tasks);
  if (!o.all) {
    std::vector<pid_t> seeded;
    for (const ThreadSeed& s : seeds) seeded.push_back(s.tid);
    {
      std::lock_guard<std::mutex> lock(selection_mutex);
      known.insert(seeded.begin(), seeded.end());
      for (const ThreadSeed& s : seeds) task_tgid[s.tid] = s.pid;
    }
    select(seeded);  // threads born between the listing above and the seeds
  }
  const uint64_t start_ns = monotonic_ns();
  RETURN_IF_ERROR(instance.start());

  // The window: only raw pages move (into the spool); decoding waits until it is over.
  const uint64_t poll_ns = static_cast<uint64_t>(std::max(1, o.poll_ms)) * 1000000ull;
  const uint64_t deadline = start_ns + static_cast<uint64_t>(o.duration_s * 1e9);
  constexpr uint64_t kRescanNs = 250000000ull;
  uint64_t next_rescan = start_ns + kRescanNs;
  for (;;) {
    uint64_t now = monotonic_ns();
    if (o.stop_requested && o.stop_requested()) {
      result.interrupted = true;
      break;
    }
    if (now >= deadline) break;
    sleep_ns(std::min(poll_ns, deadline - now));
    uint64_t round = monotonic_ns();
    readers.drain(&spool);
    if (round >= next_rescan) {
      // Learn the process of tasks while they live (decoding happens after the window, when
      // short-lived ones are gone). With -p, also a safety net behind event-fork.
      if (o.all) {
        scan_all_tasks(&tasks);
      } else {
        std::vector<pid_t> fresh;
        std::vector<pid_t> now_followed;
        {
          std::lock_guard<std::mutex> lock(selection_mutex);
          now_followed.assign(followed.begin(), followed.end());
        }
        for (pid_t pid : now_followed) {
          auto list = proc::list_threads(pid);
          if (!list) continue;
          for (pid_t tid : *list) {
            tasks.set_tgid(tid, pid);
            std::lock_guard<std::mutex> lock(selection_mutex);
            task_tgid[tid] = pid;
            if (known.insert(tid).second) fresh.push_back(tid);
          }
        }
        if (!fresh.empty()) select(fresh);  // missed by event-fork or the fork watcher
      }
      next_rescan = round + kRescanNs;
    }
  }
  const uint64_t end_ns = monotonic_ns();
  RETURN_IF_ERROR(instance.stop());
  if (watcher) {
    watcher->stop();
    result.fork_watcher_failure = watcher->failure();
  }
  result.selection = instance.describe_selection();
  std::sort(result.follow_latency_ns.begin(), result.follow_latency_ns.end());
  readers.drain(&spool);

  // After the window: decode, in timestamp order, into the analysis and the ftrace text.
  // (The watcher's thread has stopped: its sets are ours alone now.)
  for (const auto& [tid, tgid] : task_tgid) {
    if (tgid > 0) tasks.set_tgid(tid, tgid);
  }
  AnalysisOptions ao;
  ao.window_start_ns = start_ns;
  ao.target_pids.assign(followed.begin(), followed.end());
  std::sort(ao.target_pids.begin(), ao.target_pids.end());
  ao.inherit = inherit;
  ao.cpu = o.all ? o.cpu : -1;
  // The events are replayed after the window: its end is known, so the intervals before the
  // kept part are folded into slots as they come.
  const IntervalKeep keep =
      choose_keep(start_ns, end_ns, static_cast<uint64_t>(std::max(0.0, o.intervals_s) * 1e9));
  ao.intervals_whole_from_ns = keep.whole_from_ns;
  ao.slot_ns = keep.slot_ns;
  SchedAnalysis analysis(ao);
  for (const ThreadSeed& s : seeds) analysis.seed(s);
  seeds.clear();
  auto sink = [&](SchedEvent& ev) {
    uint64_t ts = context_of(ev).ts_ns;
    if (ts < start_ns || ts > end_ns) return;
    ++result.events;
    tasks.annotate(&ev);
    if (std::holds_alternative<SwitchEvent>(ev)) ++h.sched_switch;
    if (const auto* w = std::get_if<WakingEvent>(&ev))
      ++(w->enqueued ? h.sched_wakeup : h.sched_waking);
    if (std::holds_alternative<MigrateEvent>(ev)) ++h.sched_migrate_task;
    analysis.add(ev);
    if (o.ftrace != nullptr) o.ftrace->write(ev);
  };
  ASSIGN_OR_RETURN(result.losses, instance.losses());
  for (const CpuLoss& l : result.losses) h.lost += l.total();
  h.window_start_ns = start_ns;
  h.window_end_ns = end_ns;
  // The instance goes away before the slow part.
  readers.close();
  watcher.reset();
  instance.remove();
  result.spool_bytes = spool.bytes();
  ASSIGN_OR_RETURN(uint64_t missed, spool.replay(decoder, sink));
  (void)missed;  // the kernel's page-header count of the same losses the stats files give
  result.model = analysis.finish(end_ns);
  result.threads = result.model.states.size();
  return result;
}

}  // namespace hearth::sched
