// A target program for integration tests: started with stdin and stdout on pipes (closing
// stdin ends it, so it never outlives its test), ready once it printed "ready PID", killed and
// reaped by the destructor.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace hearth::testing_support {

using namespace std::chrono_literals;

// A target program, killed and reaped by the destructor.
class Target {
 public:
  static std::unique_ptr<Target> start(const std::string& program,
                                       const std::vector<std::string>& args) {
    std::string path = program.starts_with("/") ? program : HEARTH_TARGETS_DIR "/" + program;
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return nullptr;
    std::vector<char*> argv = {path.data()};
    std::vector<std::string> copies = args;
    for (std::string& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      execv(path.c_str(), argv.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    auto target = std::unique_ptr<Target>(new Target(pid, in[1], out[0]));
    auto line = target->read_line(10s);
    if (!line || *line != "ready " + std::to_string(pid)) return nullptr;
    return target;
  }

  ~Target() {
    close_stdin();
    for (int i = 0; i < 200 && !reaped_; ++i) {  // 2 s to exit on its own
      reap(WNOHANG);
      if (!reaped_) std::this_thread::sleep_for(10ms);
    }
    if (!reaped_) {
      kill(pid_, SIGKILL);
      reap(0);
    }
    close(out_);
  }

  pid_t pid() const { return pid_; }
  // The write end of the target's stdin (commands for targets that read them), -1 once closed.
  int stdin_fd() const { return in_; }
  void close_stdin() {
    if (in_ >= 0) close(in_);
    in_ = -1;
  }
  // One line from the target's stdout, without the newline.
  std::optional<std::string> read_line(std::chrono::steady_clock::duration timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd fd = {out_, POLLIN, 0};
      if (poll(&fd, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <= 0) {
        if (left.count() <= 0) return std::nullopt;
        continue;
      }
      char chunk[256];
      ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  Target(pid_t pid, int in, int out) : pid_(pid), in_(in), out_(out) {}
  void reap(int flags) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, flags);
    // ECHILD: a session that traced it reaped it (tracer and parent are the same process).
    if (r == pid_ || (r < 0 && errno == ECHILD)) reaped_ = true;
  }

  pid_t pid_;
  int in_;
  int out_;
  bool reaped_ = false;
  std::string buffer_;
};

// The process's main thread has no tracer (TracerPid 0 in /proc/PID/status); false when the
// process can't be read.
inline bool released(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string l; std::getline(status, l);) {
    if (l.rfind("TracerPid:", 0) == 0) return std::stoi(l.substr(10)) == 0;
  }
  return false;
}

}  // namespace hearth::testing_support
