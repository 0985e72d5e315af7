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
#include <map>
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

// Waits (bounded: 90 s) until FILE holds TEXT; false if it never does.
inline bool wait_for_text(const std::string& file, const std::string& text) {
  for (int i = 0; i < 900; ++i) {
    if (slurp(file).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
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

// Runs hearth with ARGS to its end; SIGINT after SIGINT_AFTER when given; SIGKILL (and a test
// failure) after 60 s. Output files are named after the running test.
inline HearthRun run_hearth(const std::vector<std::string>& args,
                            std::chrono::milliseconds sigint_after = std::chrono::milliseconds(0)) {
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
    const auto now = Clock::now();
    if (sigint_after.count() > 0 && !signalled && now - start >= sigint_after) {
      kill(pid, SIGINT);
      signalled = true;
    }
    if (now - start > std::chrono::seconds(60)) {
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
