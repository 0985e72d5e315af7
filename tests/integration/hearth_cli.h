// Running the hearth executable from integration tests: one run to its end (stdout and stderr
// captured, SIGINT after a delay when asked, SIGKILL and a test failure after a bound so a bug
// shows as a failure, never a hung run), one started in the background, and the small file
// helpers the CLI tests share.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace hearth::testing_support {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Asks DONE every 100 ms until it says true, for at most 90 s: the bound of every wait of these
// tests for something hearth does (under TSan at a load of 16-19, pmdammv saw a watcher's grown
// MMV file more than 10 s late). False if DONE never said true.
template <typename Done>
bool poll_until(Done&& done) {
  for (int i = 0; i < 900; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Waits (bounded: 90 s) until FILE holds TEXT; false if it never does.
inline bool wait_for_text(const std::string& file, const std::string& text) {
  return poll_until([&] { return slurp(file).find(text) != std::string::npos; });
}

// The exit status of the hearth started as PID (-1: killed by a signal); after 60 s, a test
// failure and SIGKILL rather than a hung test.
inline int wait_exit(pid_t pid) {
  for (int i = 0; i < 600; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ADD_FAILURE() << "hearth did not end";
  return -1;
}

// NAME under the test's temporary directory, removed if it exists: a run's output directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
  std::filesystem::path d = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(d);
  return d;
}

// S split at every SEP (empty fields kept).
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// Runs ARGV[0] (an absolute path: javac, jcmd, …) with ARGV, stdin from /dev/null, stdout and
// stderr to LOG; its exit status, or -1.
inline int run_tool(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Removes, when it goes, what a test's JVMs and its runs of jcmd leave outside the test's
// directory DIR (removed too): each of PIDS' perf map, and the attach mechanism's socket and
// trigger files (the JVM removes its socket when it exits normally, not when killed).
struct JvmLitter {
  std::vector<pid_t> pids;
  std::string dir;
  ~JvmLitter() {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
    for (const pid_t pid : pids) {
      const std::string p = std::to_string(pid);
      for (const std::string& f :
           {"/tmp/perf-" + p + ".map", "/tmp/.java_pid" + p, "/tmp/.attach_pid" + p,
            fs::current_path(ec).string() + "/.attach_pid" + p})
        fs::remove(f, ec);
    }
  }
};

// Starts hearth with ARGS: stdin from /dev/null, stdout to OUT_PATH ("" /dev/null), stderr to
// ERR_PATH.
inline pid_t start_hearth(const std::vector<std::string>& args, const std::string& err_path,
                          const std::string& out_path = "") {
  pid_t pid = fork();
  if (pid == 0) {
    int n = open("/dev/null", O_RDWR);
    int o = out_path.empty() ? n : open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(n, 0);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv{const_cast<char*>(HEARTH_EXE)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(HEARTH_EXE, argv.data());
    _exit(127);
  }
  return pid;
}

struct HearthRun {
  int status = -1;  // wait status
  std::string out, err;
  pid_t pid = -1;  // the run's process id (names what it left behind, e.g. tracefs instances)
};

inline bool exited_with(const HearthRun& r, int code) {
  return WIFEXITED(r.status) && WEXITSTATUS(r.status) == code;
}

// Whether hearth PID's own tracefs instance (hearth-PID-…) traces: sched_switch enabled and
// tracing on, so its window has begun (`hearth sched`, and `hearth record` with its scheduler
// collector). A test waits for this rather than for a time: a loaded machine, or a sanitizer,
// may take seconds to get hearth there.
inline bool hearth_tracing(pid_t hearth) {
  const std::string root = "/sys/kernel/tracing/instances";
  const std::string prefix = "hearth-" + std::to_string(hearth) + "-";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    if (e.path().filename().string().rfind(prefix, 0) != 0) continue;
    if (slurp((e.path() / "events/sched/sched_switch/enable").string()).rfind("1", 0) == 0 &&
        slurp((e.path() / "tracing_on").string()).rfind("1", 0) == 0)
      return true;
  }
  return false;
}

// Waits (bounded: 60 s) until hearth PID traces (hearth_tracing), then FOR longer; false if it
// never did, or ended first.
inline bool wait_tracing(pid_t hearth,
                         std::chrono::milliseconds then = std::chrono::milliseconds(0)) {
  for (int i = 0; i < 6000; ++i) {
    if (hearth_tracing(hearth)) {
      std::this_thread::sleep_for(then);
      return true;
    }
    if (kill(hearth, 0) != 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Runs hearth with ARGS to its end; SIGINT once SIGINT_WHEN(pid) holds, when given (polled every
// 5 ms); SIGKILL (and a test failure) after 90 s. Output files are named after the running test.
inline HearthRun run_hearth(const std::vector<std::string>& args,
                            const std::function<bool(pid_t)>& sigint_when = nullptr) {
  using Clock = std::chrono::steady_clock;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name()
                                     : std::string("run");
  for (char& c : name) {
    if (c == '/' || c == '"' || c == ' ') c = '_';  // parameterised tests: "Builds/X.Y/"fp""
  }
  std::string base = ::testing::TempDir() + "/hearth-" + name;
  const std::string out = base + ".out", err = base + ".err";
  pid_t pid = start_hearth(args, err, out);
  HearthRun r;
  r.pid = pid;
  const auto start = Clock::now();
  bool signalled = false;
  while (waitpid(pid, &r.status, WNOHANG) == 0) {
    if (sigint_when && !signalled && sigint_when(pid)) {
      kill(pid, SIGINT);
      signalled = true;
    }
    if (Clock::now() - start > std::chrono::seconds(90)) {
      kill(pid, SIGKILL);
      waitpid(pid, &r.status, 0);
      ADD_FAILURE() << "hearth did not finish";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Whether process PID catches SIGINT (its /proc status's SigCgt): hearth's handlers are in
// place, so a SIGINT ends its run early rather than killing it.
inline bool handles_sigint(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SigCgt:", 0) == 0) {
      const unsigned long long mask = std::strtoull(line.c_str() + 7, nullptr, 16);
      return (mask >> (SIGINT - 1)) & 1;
    }
  }
  return false;
}

// A SIGINT_WHEN for run_hearth: once hearth has caught SIGINT for THEN (its handlers in place,
// then THEN of its run).
inline std::function<bool(pid_t)> once_handling_sigint_for(std::chrono::milliseconds then) {
  using Clock = std::chrono::steady_clock;
  auto since = std::make_shared<std::optional<Clock::time_point>>();
  return [since, then](pid_t pid) {
    if (!*since && handles_sigint(pid)) *since = Clock::now();
    return *since && Clock::now() - **since >= then;
  };
}

// A SIGINT_WHEN for run_hearth: once hearth has traced for FOR (its window begun, then FOR).
inline std::function<bool(pid_t)> once_tracing_for(std::chrono::milliseconds then) {
  using Clock = std::chrono::steady_clock;
  auto since = std::make_shared<std::optional<Clock::time_point>>();
  return [since, then](pid_t pid) {
    if (!*since && hearth_tracing(pid)) *since = Clock::now();
    return *since && Clock::now() - **since >= then;
  };
}

// PCP_TMP_DIR set to DIR for as long as it lives (hearth, and every process the test starts,
// publish their MMV files in DIR/mmv, never the host's), restored after.
class PcpTmpDir {
 public:
  explicit PcpTmpDir(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir / "mmv");
    if (const char* old = getenv("PCP_TMP_DIR")) old_ = old;
    setenv("PCP_TMP_DIR", dir.c_str(), 1);
  }
  ~PcpTmpDir() {
    if (old_) {
      setenv("PCP_TMP_DIR", old_->c_str(), 1);
    } else {
      unsetenv("PCP_TMP_DIR");
    }
  }
  PcpTmpDir(const PcpTmpDir&) = delete;
  PcpTmpDir& operator=(const PcpTmpDir&) = delete;

 private:
  std::optional<std::string> old_;
};

// The figures hearth watch publishes as NAME (single values, by metric), read once.
inline std::map<std::string, double> published(const std::string& name) {
  std::map<std::string, double> out;
  auto r = run_hearth({"mmv", name, "-n", "1", "-o", "-"});
  for (const std::string& line : split(r.out, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');  // time, series, metric, instance, value
    if (f.size() == 5 && f[3].empty()) out[f[2]] = std::atof(f[4].c_str());
  }
  return out;
}

}  // namespace hearth::testing_support
