#include "collectors/sched/tracefs_instance.h"

#include <signal.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "collectors/sched/tracefs_c.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "collectors/proc/threads.h"
#include "collectors/sched/task_filter.h"
#include "common/file_io.h"

namespace hearth::sched {
namespace {

constexpr long kTracefsMagic = 0x74726163;  // TRACEFS_MAGIC, <linux/magic.h>
constexpr const char* kPrefix = "hearth-";
constexpr const char* kPermissionHint = " — tracing needs root or CAP_PERFMON/CAP_SYS_ADMIN";

std::string with_hint(const std::string& what, int e) {
  std::string msg = what + ": " + std::strerror(e);
  if (e == EPERM || e == EACCES) msg += kPermissionHint;
  return msg;
}

bool is_tracefs(const char* path) {
  struct statfs st {};
  return ::statfs(path, &st) == 0 && static_cast<long>(st.f_type) == kTracefsMagic;
}

Result<void> write_file(tracefs_instance* inst, const char* file, const std::string& value) {
  if (tracefs_instance_file_write(inst, file, value.c_str()) < 0) {
    int e = errno;
    return fail(with_hint("cannot write '" + value + "' to " + file + " of tracefs instance " +
                              tracefs_instance_get_name(inst),
                          e),
                e);
  }
  return {};
}

Result<void> enable_event(tracefs_instance* inst, const char* event, const char* system = "sched") {
  if (tracefs_event_enable(inst, system, event) < 0) {
    int e = errno;
    return fail(std::string("cannot enable ") + system + ":" + event + ": " + std::strerror(e) +
                    " — the kernel lacks this tracepoint (CONFIG_TRACEPOINTS, CONFIG_SCHEDSTATS) "
                    "or tracefs events are not accessible",
                e);
  }
  return {};
}

std::string random_hex() {
  uint32_t r = 0;
  if (::getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r) {
    // Fallback: no entropy yet at early boot; uniqueness only needs to beat our own pid reuse.
    r = static_cast<uint32_t>(::getpid()) * 2654435761u ^ static_cast<uint32_t>(::time(nullptr));
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", r);
  return buf;
}

void teardown(tracefs_instance* inst) {
  tracefs_trace_off(inst);
  tracefs_event_disable(inst, nullptr, nullptr);
  tracefs_instance_destroy(inst);
  tracefs_instance_free(inst);
}

uint64_t stat_value(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':') {
      std::string_view v = line.substr(key.size() + 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      uint64_t n = 0;
      std::from_chars(v.data(), v.data() + v.size(), n);
      return n;
    }
    pos = eol + 1;
  }
  return 0;
}

}  // namespace

pid_t instance_owner(const std::string& name) {
  std::string_view n(name);
  if (!n.starts_with(kPrefix)) return 0;
  n.remove_prefix(std::string_view(kPrefix).size());
  pid_t pid = 0;
  auto r = std::from_chars(n.data(), n.data() + n.size(), pid);
  if (r.ec != std::errc() || r.ptr == n.data() + n.size() || *r.ptr != '-' || pid <= 0) return 0;
  return pid;
}

Result<void> ensure_tracefs_mounted(bool* mounted) {
  *mounted = false;
  if (is_tracefs(kTracingDir)) return {};
  if (::mount("nodev", kTracingDir, "tracefs", 0, nullptr) != 0) {
    int e = errno;
    return fail(std::string("cannot mount tracefs at ") + kTracingDir + ": " + std::strerror(e) +
                    (e == EPERM || e == EACCES
                         ? kPermissionHint
                         : " — mount it by hand: mount -t tracefs nodev /sys/kernel/tracing"),
                e);
  }
  *mounted = true;
  return {};
}

std::vector<std::string> remove_stale_instances() {
  std::vector<std::string> removed;
  char** names = tracefs_instances("^hearth-");
  if (names == nullptr) return removed;
  for (char** n = names; *n != nullptr; ++n) {
    std::string name = *n;
    pid_t owner = instance_owner(name);
    if (owner <= 0) continue;
    if (owner == ::getpid()) continue;
    // Alive: that pid exists and is a hearth (a reused pid of another program is not).
    auto comm = read_file("/proc/" + std::to_string(owner) + "/comm");
    if (comm && comm->rfind("hearth", 0) == 0) continue;
    tracefs_instance* inst = tracefs_instance_alloc(nullptr, name.c_str());
    if (inst == nullptr) continue;
    teardown(inst);
    removed.push_back(name);
  }
  tracefs_list_free(names);
  return removed;
}

Result<TracefsInstance> TracefsInstance::create(const InstanceOptions& options) {
  TracefsInstance self;
  bool mounted = false;
  RETURN_IF_ERROR(ensure_tracefs_mounted(&mounted));
  if (mounted) self.mount_.reset(kTracingDir);
  // libtracefs finds the mount through /proc/mounts; point it at ours explicitly.
  tracefs_set_tracing_dir(const_cast<char*>(kTracingDir));
  remove_stale_instances();

  self.name_ =
      std::string(kPrefix) + std::to_string(::getpid()) + "-" + random_hex() + options.name_suffix;
  self.options_ = options;
  self.instance_.reset(tracefs_instance_create(self.name_.c_str()));
  if (self.instance_ == nullptr) {
    int e = errno;
    return fail(with_hint("cannot create tracefs instance " + self.name_, e), e);
  }
  tracefs_instance* inst = self.instance_.get();
  // A new instance starts with tracing on: turn it off before anything is enabled.
  if (tracefs_trace_off(inst) < 0) {
    int e = errno;
    return fail(with_hint("cannot turn tracing off in " + self.name_, e), e);
  }
  // CLOCK_MONOTONIC timestamps: the window in the outputs is in that clock.
  if (auto r = write_file(inst, "trace_clock", "mono"); !r) {
    return fail("the kernel's tracefs has no 'mono' trace clock: " + r.error().message,
                r.error().errnum);
  }
  // Keep the oldest events when the buffer is full: what we have is contiguous from the start
  // and every loss shows up as "dropped events".
  tracefs_option_disable(inst, TRACEFS_OPTION_OVERWRITE);
  size_t kb = options.buffer_kb_per_cpu;
  if (kb == 0) kb = 16384;  // 16 MiB: ~230k records, ~85 ms of a pipe ping-pong at 2.7M events/s
  RETURN_IF_ERROR(write_file(inst, "buffer_size_kb", std::to_string(kb)));
  if (options.cpu >= 0) {
    if (tracefs_instance_set_affinity(inst, std::to_string(options.cpu).c_str()) < 0) {
      int e = errno;
      return fail(with_hint("cannot restrict tracing to CPU " + std::to_string(options.cpu), e), e);
    }
  }
  if (options.wake_on_every_event) RETURN_IF_ERROR(write_file(inst, "buffer_percent", "0"));
  if (!options.tids.empty()) {
    self.tids_ = options.tids;
    std::sort(self.tids_.begin(), self.tids_.end());
    self.tids_.erase(std::unique(self.tids_.begin(), self.tids_.end()), self.tids_.end());
    // The selection before the events: no moment in which an enabled event records every task.
    std::vector<TidRange> ranges = self.ranges();
    if (options.use_filter && filter_comparisons(ranges) <= kMaxFilterComparisons) {
      self.selection_ = Selection::kEventFilter;
      RETURN_IF_ERROR(self.write_filters(std::move(ranges)));
    } else {
      RETURN_IF_ERROR(self.move_to_pid_list());
    }
  }
  if (options.switches) RETURN_IF_ERROR(enable_event(inst, "sched_switch"));
  if (options.waking) RETURN_IF_ERROR(enable_event(inst, "sched_waking"));
  if (options.wakeups) RETURN_IF_ERROR(enable_event(inst, "sched_wakeup"));
  if (options.migrations) RETURN_IF_ERROR(enable_event(inst, "sched_migrate_task"));
  if (options.forks) RETURN_IF_ERROR(enable_event(inst, kNewTaskEvent, kNewTaskSystem));
  return self;
}

void TracefsInstance::Teardown::operator()(tracefs_instance* inst) const {
  teardown(inst);
}

void TracefsInstance::Unmount::operator()(const char* dir) const {
  // Leave the machine as we found it; EBUSY (someone else uses tracefs now) leaves it mounted.
  ::umount2(dir, 0);
}

TracefsInstance::TracefsInstance(TracefsInstance&&) noexcept = default;
TracefsInstance::~TracefsInstance() = default;

void TracefsInstance::destroy() {
  instance_.reset();  // first: the mount holds it
  mount_.reset();
}

Result<void> TracefsInstance::start() {
  if (tracefs_trace_on(instance_.get()) < 0) {
    int e = errno;
    return fail(with_hint("cannot turn tracing on in " + name_, e), e);
  }
  return {};
}

Result<void> TracefsInstance::stop() {
  if (tracefs_trace_off(instance_.get()) < 0) {
    int e = errno;
    return fail(with_hint("cannot turn tracing off in " + name_, e), e);
  }
  return {};
}

Result<void> TracefsInstance::add_tids(const std::vector<pid_t>& tids) {
  if (selection_ == Selection::kEveryTask) return {};
  std::vector<pid_t> fresh;
  for (pid_t t : tids) {
    if (t > 0 && !std::binary_search(tids_.begin(), tids_.end(), t)) fresh.push_back(t);
  }
  if (fresh.empty()) return {};
  tids_.insert(tids_.end(), fresh.begin(), fresh.end());
  std::sort(tids_.begin(), tids_.end());
  tids_.erase(std::unique(tids_.begin(), tids_.end()), tids_.end());
  if (selection_ == Selection::kPidList) return write_pid_list(fresh);
  std::vector<TidRange> ranges = this->ranges();  // one /proc check per gap id: once per change
  if (filter_comparisons(ranges) > kMaxFilterComparisons) return move_to_pid_list();
  return write_filters(std::move(ranges));
}

Result<void> TracefsInstance::write_filter(const char* event, const std::string& expr,
                                           const char* system) {
  const std::string text = expr.empty() ? "0" : expr;  // "0" removes the filter
  if (tracefs_event_file_write(instance_.get(), system, event, "filter", text.c_str()) < 0) {
    int e = errno;
    return fail(with_hint("cannot set the filter of " + std::string(system) + ":" + event + " in " +
                              name_ + " to '" + text + "'",
                          e),
                e);
  }
  return {};
}

Result<void> TracefsInstance::write_filters(std::vector<TidRange> ranges) {
  filter_ranges_ = std::move(ranges);
  const std::vector<TidRange>& ranges_now = filter_ranges_;
  // sched_switch first: a new thread's switches matter most. The kernel swaps each filter in
  // atomically (RCU); an event between two writes sees the old or the new filter.
  if (options_.switches) {
    RETURN_IF_ERROR(
        write_filter("sched_switch", filter_expression(ranges_now, {"prev_pid", "next_pid"})));
  }
  const std::string by_pid = filter_expression(ranges_now, {"pid"});
  if (options_.waking) RETURN_IF_ERROR(write_filter("sched_waking", by_pid));
  if (options_.wakeups) RETURN_IF_ERROR(write_filter("sched_wakeup", by_pid));
  if (options_.migrations) RETURN_IF_ERROR(write_filter("sched_migrate_task", by_pid));
  if (options_.forks) {
    // Current is the parent: the tasks the selected ones create.
    RETURN_IF_ERROR(
        write_filter(kNewTaskEvent, filter_expression(ranges_now, {"common_pid"}), kNewTaskSystem));
  }
  return {};
}

std::vector<TidRange> TracefsInstance::ranges() const {
  return bridge_free_gaps(tid_ranges(tids_), tid_is_free);
}

int TracefsInstance::ncpus() {
  return static_cast<int>(::sysconf(_SC_NPROCESSORS_CONF));
}

Result<void> TracefsInstance::move_to_pid_list() {
  // event-fork before the pid list: the kernel follows forks from the first listed task on.
  if (tracefs_option_enable(instance_.get(), TRACEFS_OPTION_EVENT_FORK) < 0) {
    int e = errno;
    return fail(with_hint("cannot enable options/event-fork in " + name_, e), e);
  }
  RETURN_IF_ERROR(write_file(instance_.get(), "set_event_pid", ""));
  RETURN_IF_ERROR(write_pid_list(tids_));
  const bool had_filters = selection_ == Selection::kEventFilter;
  selection_ = Selection::kPidList;
  if (had_filters) {
    // Until the filters are gone an event must pass both: a new task's events may be missed
    // for the length of these writes.
    for (const char* event :
         {"sched_switch", "sched_waking", "sched_wakeup", "sched_migrate_task"}) {
      (void)write_filter(event, "");
    }
    (void)write_filter(kNewTaskEvent, "", kNewTaskSystem);
  }
  return {};
}

Result<void> TracefsInstance::write_pid_list(const std::vector<pid_t>& tids) {
  // Appended in chunks below a page: the kernel parses each write on its own.
  std::string chunk;
  auto flush = [&]() -> Result<void> {
    if (chunk.empty()) return {};
    if (tracefs_instance_file_append(instance_.get(), "set_event_pid", chunk.c_str()) < 0) {
      int e = errno;
      return fail(with_hint("cannot add threads to set_event_pid of " + name_, e), e);
    }
    chunk.clear();
    return {};
  };
  for (pid_t tid : tids) {
    chunk += std::to_string(tid);
    chunk += ' ';
    if (chunk.size() > 3500) RETURN_IF_ERROR(flush());
  }
  return flush();
}

std::string TracefsInstance::describe_selection() const {
  switch (selection_) {
    case Selection::kEveryTask:
      return "every task";
    case Selection::kEventFilter: {
      size_t r = filter_ranges_.size();
      return "event filter, " + std::to_string(tids_.size()) + " threads in " + std::to_string(r) +
             (r == 1 ? " range" : " ranges");
    }
    case Selection::kPidList:
      return "pid list, " + std::to_string(tids_.size()) + " threads";
  }
  return "";
}

Result<std::vector<CpuLoss>> TracefsInstance::losses() const {
  std::vector<CpuLoss> out;
  long ncpus = ::sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < ncpus; ++cpu) {
    std::string file = "per_cpu/cpu" + std::to_string(cpu) + "/stats";
    int size = 0;
    char* text = tracefs_instance_file_read(instance_.get(), file.c_str(), &size);
    if (text == nullptr) continue;  // offline or absent CPU
    std::string_view t(text, static_cast<size_t>(size));
    CpuLoss l;
    l.cpu = cpu;
    l.overrun = stat_value(t, "overrun");
    l.commit_overrun = stat_value(t, "commit overrun");
    l.dropped = stat_value(t, "dropped events");
    std::free(text);
    out.push_back(l);
  }
  return out;
}

bool may_trace() {
  constexpr int kCapSysAdmin = 21;
  constexpr int kCapPerfmon = 38;
  if (::geteuid() == 0) return true;
  std::istringstream status(read_file("/proc/self/status").value_or(std::string()));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (caps >> kCapPerfmon & 1) || (caps >> kCapSysAdmin & 1);
  }
  return false;
}

}  // namespace hearth::sched
