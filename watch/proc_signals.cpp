#include "watch/proc_signals.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/unique_fd.h"

namespace hearth::watch {
namespace {

// A stat line is ~300 bytes (52 numeric fields and a comm of at most 64 bytes), schedstat ~40.
constexpr size_t kFileBytes = 4096;
// The longest a sleeping thread's stat goes unread (ns): see ProcSignals::read.
constexpr int64_t kStatRefreshNs = 5'000'000'000;

// Owns a DIR* (and the descriptor under it).
class TaskDir {
 public:
  explicit TaskDir(DIR* dir) : dir_(dir) {}
  TaskDir(const TaskDir&) = delete;
  TaskDir& operator=(const TaskDir&) = delete;
  ~TaskDir() {
    if (dir_ != nullptr) ::closedir(dir_);
  }
  DIR* get() const { return dir_; }

 private:
  DIR* dir_;
};

// The bytes of one small /proc file into BUF (CAP bytes), or -1 with errno set. With *KEPT
// open, one pread at offset 0 (a /proc seq file reads afresh from 0); else one open of
// DIRFD/NAME, one read, and the descriptor kept in *KEPT when KEEP, closed otherwise. The
// whole text comes with the first read when the buffer holds it.
ssize_t read_small_file(int dirfd, const char* name, UniqueFd* kept, bool keep, char* buf,
                        size_t cap) {
  ssize_t n;
  if (kept->valid()) {
    do n = ::pread(kept->get(), buf, cap, 0);
    while (n < 0 && errno == EINTR);
    return n;
  }
  int fd;
  do fd = ::openat(dirfd, name, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  UniqueFd owner(fd);
  do n = ::read(fd, buf, cap);
  while (n < 0 && errno == EINTR);
  const int e = errno;
  if (n >= 0 && keep) *kept = std::move(owner);
  errno = e;
  return n;
}

// ENOENT / ESRCH: the thread (or process) ended between the listing and the read.
bool gone(int errnum) {
  return errnum == ENOENT || errnum == ESRCH;
}

// DIRFD/TID/FILE (DIRFD: /proc/PID/task; KEPT, KEEP: read_small_file's) read into BUFFER and parsed
// by PARSE (its result views into BUFFER). nullopt when the thread is gone (ENOENT, ESRCH: it ended
// after the listing), or with *ERROR set, one line, when the file cannot be read or parsed.
template <typename Parse>
auto read_thread_file(int dirfd, pid_t pid, pid_t tid, const char* file, UniqueFd* kept, bool keep,
                      std::string* buffer, Parse parse, std::string* error)
    -> std::optional<typename decltype(parse(std::string_view()))::value_type> {
  char name[40];
  std::snprintf(name, sizeof name, "%d/%s", static_cast<int>(tid), file);
  const ssize_t n = read_small_file(dirfd, name, kept, keep, buffer->data(), buffer->size());
  const int e = errno;
  if (n < 0 && gone(e)) return std::nullopt;
  auto path = [&] { return "/proc/" + std::to_string(pid) + "/task/" + name; };
  if (n < 0) {
    *error = "cannot read " + path() + ": " + std::strerror(e);
    return std::nullopt;
  }
  auto parsed = parse(std::string_view(buffer->data(), static_cast<size_t>(n)));
  if (!parsed) {
    *error = path() + ": " + parsed.error().message;
    return std::nullopt;
  }
  return *parsed;
}

// A state off a CPU that split_interval() knows: S, I (sleeping) or D (blocked).
bool asleep(char state) {
  return state == 'S' || state == 'I' || state == 'D';
}

double share_of(const ThreadShares& t, SchedState s) {
  switch (s) {
    case SchedState::running:
      return t.running;
    case SchedState::runnable:
      return t.runnable;
    case SchedState::sleeping:
      return t.sleeping;
    case SchedState::blocked:
      return t.blocked;
  }
  return 0;
}

}  // namespace

ProcSignals::ProcSignals() {
  rlimit limit{};
  const size_t soft = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                          ? static_cast<size_t>(limit.rlim_cur)
                          : 1024;
  max_open_files_ = soft / 2;
}

bool state_matches(SchedState s, char state) {
  switch (s) {
    case SchedState::running:
    case SchedState::runnable:
      return state == 'R';
    case SchedState::sleeping:
      return state == 'S' || state == 'I';
    case SchedState::blocked:
      return state == 'D';
  }
  return false;
}

// What one read() carries from thread to thread.
struct ProcSignals::Pass {
  ProcSample* out;
  int64_t t_ns = 0, interval_ns = 0;
  uint64_t cpu_ns = 0;          // run ns added over the interval, all threads
  size_t opened = 0, held = 0;  // descriptors newly kept; kept in all, at the end
  pid_t pid = 0;
  int dirfd = -1;          // /proc/PID/task
  bool pid_known = false;  // the process was read last time
  bool reported = false;   // an error of this process given already (one line each)
  long threads = -1;       // the process's thread count, from its leader's stat
};

ProcSignals::Outcome ProcSignals::read_thread(Pass& pass, pid_t tid) {
  const pid_t pid = pass.pid;
  const auto prev = seen_.find(tid);
  Seen now;
  if (prev != seen_.end()) {
    now.stat_fd = std::move(prev->second.stat_fd);
    now.sched_fd = std::move(prev->second.sched_fd);
  }
  auto failed = [&](std::string& error) {
    if (error.empty()) return Outcome::gone;
    if (!pass.reported) pass.out->errors.push_back(std::move(error));
    pass.reported = true;
    return Outcome::failed;
  };
  // Descriptors for a thread that has none, while two more stay within the budget.
  const bool keep = !now.stat_fd.valid() && held_fds_ + pass.opened + 2 <= max_open_files_;
  std::string error;
  const auto sched = read_thread_file(pass.dirfd, pid, tid, "schedstat", &now.sched_fd, keep,
                                      &buffer_, parse_schedstat, &error);
  if (!sched) return failed(error);
  now.run_ns = sched->run_ns;
  now.wait_ns = sched->wait_ns;
  now.slices = sched->slices;
  // A thread asleep at the last read that has not been on a CPU since is asleep in the same
  // state still (leaving it takes running), under the same name: its stat is not read again
  // (it costs 2.5 times its schedstat), but for one refresh every kStatRefreshNs, since a
  // thread woken and still queued for its first slice is R already. The leader's is always
  // read: it holds the process's thread count.
  const Seen* was = prev == seen_.end() ? nullptr : &prev->second;
  const bool unchanged = tid != pid && was != nullptr && was->run_ns == now.run_ns &&
                         was->wait_ns == now.wait_ns && was->slices == now.slices &&
                         asleep(was->state) &&
                         pass.t_ns - was->stat_t_ns < kStatRefreshNs;
  if (unchanged) {
    now.name = was->name;
    now.state = was->state;
    now.stat_t_ns = was->stat_t_ns;
  } else {
    const auto stat = read_thread_file(pass.dirfd, pid, tid, "stat", &now.stat_fd, keep, &buffer_,
                                       parse_stat_line, &error);
    if (!stat) return failed(error);
    now.name.assign(stat->comm);
    now.state = stat->state;
    now.stat_t_ns = pass.t_ns;
    if (tid == pid) pass.threads = stat->threads;
  }
  if (keep) pass.opened += now.stat_fd.valid() + now.sched_fd.valid();
  ThreadShares t;
  t.tid = tid;
  t.pid = pid;
  t.name = now.name;
  t.state = now.state;
  now.state_since_ns = pass.t_ns;
  now.queued_since_ns = pass.t_ns;
  // Counters that went back: another thread under a reused id, counted as new.
  const bool same = was != nullptr && now.run_ns >= was->run_ns && now.wait_ns >= was->wait_ns;
  if (same && pass.interval_ns > 0) {
    const uint64_t ran = now.run_ns - was->run_ns;
    pass.cpu_ns += ran;
    // The wait counted as runnable already (queued at the last read) comes with this
    // interval's wait once the thread has had a CPU (the kernel adds the wait and a slice
    // together): it is not counted twice. Still without a CPU, it waits on.
    const uint64_t waited = now.wait_ns - was->wait_ns;
    const bool had_cpu = now.slices != was->slices;
    const Split s =
        split_interval(pass.interval_ns, ran, waited > was->queued_ns ? waited - was->queued_ns : 0,
                       was->state, now.state);
    now.queued_ns = (had_cpu ? 0 : was->queued_ns) +
                    static_cast<uint64_t>(s.queued * static_cast<double>(pass.interval_ns));
    t.running = s.running;
    t.runnable = s.runnable;
    t.sleeping = s.sleeping;
    t.blocked = s.blocked;
    t.span_s = pass.out->interval_s;
    t.slices = now.slices >= was->slices ? now.slices - was->slices : 0;
    // Off a CPU, a streak survives only if the thread has not run since (it left the state to
    // run); in R, running is the state.
    const bool no_cpu = ran == 0 && !had_cpu;
    if (now.state == was->state && (now.state == 'R' || no_cpu)) {
      now.state_since_ns = was->state_since_ns;
    }
    if (now.state == 'R' && was->state == 'R' && no_cpu) now.queued_since_ns = was->queued_since_ns;
  } else if (!same && !pass.out->first && pass.pid_known && pass.interval_ns > 0) {
    pass.cpu_ns += now.run_ns;  // born in the interval: all its CPU is the interval's
  }
  t.in_state_s = static_cast<double>(pass.t_ns - now.state_since_ns) / 1e9;
  t.queued_s = static_cast<double>(pass.t_ns - now.queued_since_ns) / 1e9;
  pass.held += now.stat_fd.valid() + now.sched_fd.valid();
  next_[tid] = std::move(now);
  pass.out->threads.push_back(std::move(t));
  return Outcome::read;
}

ProcSample ProcSignals::read(const std::vector<pid_t>& pids, int64_t t_ns) {
  ProcSample out;
  out.t_ns = t_ns;
  out.first = !last_t_ns_;
  Pass pass;
  pass.out = &out;
  pass.t_ns = t_ns;
  pass.interval_ns = last_t_ns_ ? t_ns - *last_t_ns_ : 0;
  out.interval_s = pass.interval_ns > 0 ? static_cast<double>(pass.interval_ns) / 1e9 : 0;
  buffer_.resize(kFileBytes);
  next_.clear();
  tids_next_.clear();
  char name[32];
  for (const pid_t pid : pids) {
    if (tids_next_.contains(pid)) continue;  // named twice
    std::vector<pid_t>& alive = tids_next_[pid];
    std::snprintf(name, sizeof name, "/proc/%d/task", static_cast<int>(pid));
    TaskDir dir(::opendir(name));
    if (dir.get() == nullptr) {
      const int e = errno;
      out.errors.push_back(std::string("cannot read ") + name + ": " + std::strerror(e));
      tids_next_.erase(pid);  // not read: its threads, when it comes back, are not born now
      continue;
    }
    const size_t first_thread = out.threads.size();
    pass.pid = pid;
    pass.dirfd = ::dirfd(dir.get());
    pass.reported = false;
    pass.threads = -1;
    const auto known = tids_of_.find(pid);
    pass.pid_known = known != tids_of_.end();
    // The threads of the last read, the leader first (its stat has the thread count). The
    // directory is listed only when one of them is gone or the count is not theirs: listing
    // costs a third of a read.
    bool lost = !pass.pid_known;
    if (pass.pid_known) {
      for (const pid_t tid : known->second) {
        const Outcome o = read_thread(pass, tid);
        if (o == Outcome::read) alive.push_back(tid);
        lost = lost || o == Outcome::gone;
      }
    }
    if (lost || pass.threads < 0 || static_cast<size_t>(pass.threads) != alive.size()) {
      tids_.clear();
      for (;;) {
        const dirent* entry = ::readdir(dir.get());
        if (entry == nullptr) break;  // the end, or the process ended mid-listing: what was read
        pid_t tid = 0;
        const char* d = entry->d_name;
        auto [end, ec] = std::from_chars(d, d + std::char_traits<char>::length(d), tid);
        if (ec == std::errc() && *end == '\0' && tid > 0) tids_.push_back(tid);
      }
      // The leader first, then the others by id.
      std::sort(tids_.begin(), tids_.end(),
                [pid](pid_t a, pid_t b) { return (a == pid) != (b == pid) ? a == pid : a < b; });
      for (const pid_t tid : tids_) {
        if (!next_.contains(tid) && read_thread(pass, tid) == Outcome::read) alive.push_back(tid);
      }
    }
    std::sort(out.threads.begin() + static_cast<std::ptrdiff_t>(first_thread), out.threads.end(),
              [](const ThreadShares& a, const ThreadShares& b) { return a.tid < b.tid; });
    std::sort(alive.begin(), alive.end(),
              [pid](pid_t a, pid_t b) { return (a == pid) != (b == pid) ? a == pid : a < b; });
  }
  std::swap(seen_, next_);
  next_.clear();  // the threads gone: their descriptors closed now
  std::swap(tids_of_, tids_next_);
  held_fds_ = pass.held;
  last_t_ns_ = t_ns;
  out.cpu = pass.interval_ns > 0
                ? static_cast<double>(pass.cpu_ns) / static_cast<double>(pass.interval_ns)
                : 0;
  return out;
}

std::optional<double> signal_value(const Rule& rule, const ProcSample& sample) {
  if (sample.first || sample.interval_s <= 0) return std::nullopt;
  if (rule.kind == SignalKind::cpu) return sample.cpu;
  if (rule.kind != SignalKind::sched) return std::nullopt;
  const char* glob = rule.thread_glob.empty() ? nullptr : rule.thread_glob.c_str();
  bool matched = false;
  double weight = 0, sum = 0, longest = 0;
  for (const ThreadShares& t : sample.threads) {
    if (glob != nullptr && ::fnmatch(glob, t.name.c_str(), 0) != 0) continue;
    matched = true;
    if (rule.measure == Measure::duration) {
      if (!state_matches(rule.state, t.state)) continue;
      longest = std::max(longest, rule.state == SchedState::runnable ? t.queued_s : t.in_state_s);
    } else if (t.span_s > 0) {
      weight += t.span_s;
      sum += share_of(t, rule.state) * t.span_s;
    }
  }
  if (!matched) return std::nullopt;
  if (rule.measure == Measure::duration) return longest;
  if (weight <= 0) return std::nullopt;
  return sum / weight;
}

}  // namespace hearth::watch
