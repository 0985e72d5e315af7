#include "collectors/proc/threads.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <utility>

#include "common/file_io.h"

namespace hearth::proc {
namespace {

// Owns a DIR*.
class Dir {
 public:
  explicit Dir(DIR* dir) : dir_(dir) {}
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  ~Dir() {
    if (dir_ != nullptr) ::closedir(dir_);
  }
  DIR* get() const { return dir_; }

 private:
  DIR* dir_;
};

std::string task_path(pid_t pid, pid_t tid, const char* file) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + file;
}

template <typename T>
bool parse_number(std::string_view text, T* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

Result<std::vector<pid_t>> list_threads(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/task";
  Dir dir(::opendir(path.c_str()));
  if (dir.get() == nullptr) {
    int e = errno;
    return fail_errno("cannot list threads of " + std::to_string(pid), e);
  }
  std::vector<pid_t> tids;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(dir.get());
    int e = errno;
    if (entry == nullptr) {
      // readdir on /proc/PID/task fails with ENOENT when the process exits mid-listing.
      if (e != 0) return fail_errno("cannot list threads of " + std::to_string(pid), e);
      break;
    }
    pid_t tid = 0;
    if (parse_number(std::string_view(entry->d_name), &tid) && tid > 0) tids.push_back(tid);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

Result<std::string> thread_name(pid_t pid, pid_t tid) {
  ASSIGN_OR_RETURN(std::string comm, read_file(task_path(pid, tid, "comm")));
  if (!comm.empty() && comm.back() == '\n') comm.pop_back();
  return comm;
}

Result<ThreadStat> parse_thread_stat(std::string_view text) {
  size_t close = text.rfind(')');
  if (close == std::string_view::npos) return fail("malformed stat line: no ')' after comm");
  std::string_view rest = text.substr(close + 1);
  // Fields 3.. after the comm, single-space separated; fields[i] is proc(5) field i + 3.
  constexpr size_t kPpid = 4 - 3, kThreads = 20 - 3, kStartTime = 22 - 3, kProcessor = 39 - 3;
  std::string_view fields[kProcessor + 1];
  size_t count = 0;
  while (count <= kProcessor) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n')) rest.remove_prefix(1);
    if (rest.empty()) break;
    size_t end = rest.find_first_of(" \n");
    if (end == std::string_view::npos) end = rest.size();
    fields[count++] = rest.substr(0, end);
    rest.remove_prefix(end);
  }
  ThreadStat stat;
  if (count <= kStartTime || fields[0].size() != 1) {
    return fail("malformed stat line: " + std::to_string(count + 2) + " fields");
  }
  stat.state = fields[0][0];
  if (!parse_number(fields[kPpid], &stat.ppid) ||
      !parse_number(fields[kThreads], &stat.threads) ||
      !parse_number(fields[kStartTime], &stat.start_time_ticks)) {
    return fail("malformed stat line: bad ppid, thread count or start time");
  }
  if (count > kProcessor && !parse_number(fields[kProcessor], &stat.processor)) {
    return fail("malformed stat line: bad processor");
  }
  return stat;
}

Result<ThreadStat> thread_stat(pid_t pid, pid_t tid) {
  std::string path = task_path(pid, tid, "stat");
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  auto stat = parse_thread_stat(text);
  if (!stat) return fail(path + ": " + stat.error().message);
  return stat;
}

Result<uint64_t> process_start_time(pid_t pid) {
  // The leader's own stat (the same start time), not /proc/PID/stat: that one adds up the CPU
  // time of every thread in the kernel, 4 ms at 10,000 threads, where a thread may wait.
  std::string path = task_path(pid, pid, "stat");
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  auto stat = parse_thread_stat(text);
  if (!stat) return fail(path + ": " + stat.error().message);
  return stat->start_time_ticks;
}

Result<pid_t> parse_tracer_pid(std::string_view status) {
  constexpr std::string_view kKey = "TracerPid:";
  size_t at = 0;
  while (at < status.size()) {
    size_t end = status.find('\n', at);
    if (end == std::string_view::npos) end = status.size();
    std::string_view line = status.substr(at, end - at);
    if (line.starts_with(kKey)) {
      pid_t tracer = 0;
      if (!parse_number(trim(line.substr(kKey.size())), &tracer)) {
        return fail("malformed TracerPid line");
      }
      return tracer;
    }
    at = end + 1;
  }
  return fail("no TracerPid line in status");
}

Result<pid_t> tracer_pid(pid_t pid, pid_t tid) {
  std::string path = task_path(pid, tid, "status");
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  auto tracer = parse_tracer_pid(text);
  if (!tracer) return fail(path + ": " + tracer.error().message);
  return tracer;
}

std::vector<std::string> parse_kernel_stack(std::string_view text) {
  std::vector<std::string> frames;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(at, end - at));
    at = end + 1;
    // "[<0>] " (addresses hidden) or "[<ffffffff81234567>] " (older kernels, kptr_restrict=0).
    if (line.starts_with("[<")) {
      size_t close = line.find("] ");
      line = close == std::string_view::npos ? std::string_view() : line.substr(close + 2);
    }
    line = line.substr(0, line.find(' '));  // " [module]"
    line = line.substr(0, line.find('+'));  // "+0x60/0x90"
    if (!line.empty()) frames.emplace_back(line);
  }
  return frames;
}

Result<std::vector<std::string>> kernel_stack(pid_t pid, pid_t tid) {
  ASSIGN_OR_RETURN(std::string text, read_file(task_path(pid, tid, "stack")));
  return parse_kernel_stack(text);
}

}  // namespace hearth::proc
