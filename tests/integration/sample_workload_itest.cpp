// The sample workload (samples/workload) as hearth's users meet it: its threads carry the pools'
// names, its db threads really contend on one mutex, its MMV file is published and its counters
// move (read back with `hearth mmv`), `hearth stacks` shows the lock waits, and it shuts down
// cleanly, removing its MMV file.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::Target;

#ifdef HEARTH_SAMPLE_WORKLOAD
constexpr const char* kWorkload = HEARTH_SAMPLE_WORKLOAD;
#else
constexpr const char* kWorkload = "";
#endif

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

using hearth::testing_support::split;

// tid -> comm, for every thread of PID.
std::map<std::string, std::string> threads_of(pid_t pid) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::string tid = e.path().filename().string();
    out[tid] = trim(read_file(e.path().string() + "/comm"));
  }
  return out;
}

// Waits (bounded) for PID to exit; its wait status, or -1 if it did not.
int wait_exit(pid_t pid, std::chrono::seconds bound) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(10ms);
  }
  return -1;
}

using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;

// One snapshot of an MMV file through `hearth mmv FILE -n 1` (TSV): "metric[instance]" -> value,
// and the "# metric" declaration lines by metric name.
struct MmvSnapshot {
  std::map<std::string, std::string> values;
  std::map<std::string, std::vector<std::string>> metrics;
};

MmvSnapshot read_mmv(const std::string& file) {
  MmvSnapshot s;
  HearthRun r = run_hearth({"mmv", file, "-n", "1", "-o", "-"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const std::string& line : split(r.out, '\n')) {
    auto f = split(line, '\t');
    if (line.rfind("# metric\t", 0) == 0 && f.size() >= 4) {
      s.metrics[f[2]] = f;
    } else if (!line.empty() && line[0] != '#' && f.size() == 5 && f[0] != "time_ns") {
      s.values[f[3].empty() ? f[2] : f[2] + "[" + f[3] + "]"] = f[4];
    }
  }
  return s;
}

uint64_t number(const MmvSnapshot& s, const std::string& key) {
  auto it = s.values.find(key);
  return it == s.values.end() ? 0 : std::stoull(it->second);
}

class SampleWorkload : public testing::Test {
 protected:
  void SetUp() override {
    if (!*kWorkload) GTEST_SKIP() << "the sample workload is not built (libpcp_mmv missing)";
    std::string tmpl = testing::TempDir() + "/sample-mmv-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    mmv_dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!mmv_dir_.empty()) std::filesystem::remove_all(mmv_dir_, ec);
  }

  // The workload, gentle on a shared machine: the burners take 0.2 CPU together.
  std::unique_ptr<Target> start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--ready", "--mmv-dir", mmv_dir_, "--burn-cores", "0.2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Target::start(kWorkload, args);
  }
  std::string mmv_file(pid_t pid) const {
    return mmv_dir_ + "/hearth-sample-" + std::to_string(pid);
  }

  std::string mmv_dir_;
};

TEST_F(SampleWorkload, ThreadsCarryThePoolsNames) {
  auto t = start();
  ASSERT_TRUE(t);
  std::multiset<std::string> names;
  for (const auto& [tid, comm] : threads_of(t->pid())) names.insert(comm);
  for (const char* name :
       {"http-1", "http-2", "http-3", "http-4", "db-1", "db-2", "db-3", "sleeper-1", "sleeper-2",
        "burner-1", "burner-2", "io-wait", "acceptor", "metrics"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
  EXPECT_EQ(names.size(), 15u);  // and the main thread
}

TEST_F(SampleWorkload, ScaleMultipliesThePools) {
  auto t = start({"--scale", "2"});
  ASSERT_TRUE(t);
  std::multiset<std::string> names;
  for (const auto& [tid, comm] : threads_of(t->pid())) names.insert(comm);
  EXPECT_EQ(names.count("http-8"), 1u);
  EXPECT_EQ(names.count("db-6"), 1u);
  EXPECT_EQ(names.count("burner-4"), 1u);
  EXPECT_EQ(names.count("io-wait"), 1u);
  EXPECT_EQ(names.size(), 2u * 11 + 4);
}

// At some instant, at least two db threads sleep in futex at once: waiting for the one mutex
// (the third holds it). Read from /proc until seen, within a generous bound.
TEST_F(SampleWorkload, DbThreadsContendOnOneMutex) {
  auto t = start();
  ASSERT_TRUE(t);
  std::vector<std::string> db;
  for (const auto& [tid, comm] : threads_of(t->pid())) {
    if (comm.rfind("db-", 0) == 0) db.push_back(tid);
  }
  ASSERT_EQ(db.size(), 3u);
  std::string task = "/proc/" + std::to_string(t->pid()) + "/task/";
  int best = 0;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (best < 2 && std::chrono::steady_clock::now() < deadline) {
    int in_futex = 0;
    for (const std::string& tid : db) {
      std::string stat = read_file(task + tid + "/stat");
      size_t paren = stat.rfind(')');
      char state = paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : '?';
      std::string wchan = read_file(task + tid + "/wchan");
      std::string syscall = split(read_file(task + tid + "/syscall"), ' ')[0];
      if (state == 'S' && (wchan.find("futex") != std::string::npos || syscall == "202"))
        ++in_futex;
    }
    best = std::max(best, in_futex);
    std::this_thread::sleep_for(2ms);
  }
  EXPECT_GE(best, 2) << "never saw two db threads waiting in futex at once";
}

TEST_F(SampleWorkload, MetricsFileIsPublishedAndItsCountersMove) {
  auto t = start();
  ASSERT_TRUE(t);
  std::string file = mmv_file(t->pid());
  struct stat st {};
  ASSERT_EQ(stat(file.c_str(), &st), 0) << file << " not there once ready";

  MmvSnapshot first = read_mmv(file);
  // Declarations: types, semantics, units, the pools' instance domain, help text.
  ASSERT_TRUE(first.metrics.count("requests"));
  EXPECT_EQ(first.metrics["requests"][3], "u64");
  EXPECT_EQ(first.metrics["requests"][4], "counter");
  EXPECT_EQ(first.metrics["requests"][5], "count");
  EXPECT_NE(first.metrics["requests"].back(), "");
  ASSERT_TRUE(first.metrics.count("lock.wait_time"));
  EXPECT_EQ(first.metrics["lock.wait_time"][5], "nanosec");
  ASSERT_TRUE(first.metrics.count("io.bytes_written"));
  EXPECT_EQ(first.metrics["io.bytes_written"][5], "byte");
  ASSERT_TRUE(first.metrics.count("http.queue.depth"));
  EXPECT_EQ(first.metrics["http.queue.depth"][4], "instant");
  ASSERT_TRUE(first.metrics.count("phase"));
  EXPECT_EQ(first.metrics["phase"][3], "string");
  for (const char* pool : {"http", "db", "sleeper", "burner", "io"})
    EXPECT_TRUE(first.values.count(std::string("requests[") + pool + "]")) << pool;
  EXPECT_EQ(first.values["threads"], "14");
  std::set<std::string> phases = {"warmup", "steady", "burst"};
  EXPECT_TRUE(phases.count(first.values["phase"])) << first.values["phase"];

  // Every counter the pools drive moves on: read again until each has (bounded).
  const std::vector<std::string> counters = {
      "requests[http]",    "requests[db]",   "requests[burner]", "requests[io]",
      "lock.acquisitions", "lock.wait_time", "io.bytes_written"};
  std::set<std::string> moved;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (moved.size() < counters.size() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(200ms);
    MmvSnapshot now = read_mmv(file);
    for (const std::string& c : counters) {
      EXPECT_GE(number(now, c), number(first, c)) << c << " went backwards";
      if (number(now, c) > number(first, c)) moved.insert(c);
    }
  }
  for (const std::string& c : counters) EXPECT_TRUE(moved.count(c)) << c << " never increased";
}

TEST_F(SampleWorkload, StacksShowThreadsAndTheLockWaits) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (ptrace of another process)";
  auto t = start();
  ASSERT_TRUE(t);
  // One snapshot shows every thread; a db thread waiting for the mutex is very likely in any
  // one of them (two of three wait most of the time): a few snapshots make it certain enough.
  bool lock_wait = false;
  for (int attempt = 0; attempt < 20 && !lock_wait; ++attempt) {
    HearthRun r = run_hearth({"stacks", "-p", std::to_string(t->pid()), "-n", "1", "-o", "-"});
    ASSERT_EQ(WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, 0) << r.err;
    EXPECT_NE(r.out.find("[db-1 tid="), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[http-1 tid="), std::string::npos);
    EXPECT_NE(r.out.find("[io-wait tid="), std::string::npos);
    EXPECT_NE(r.out.find(";sample::db::Session::run();"), std::string::npos);
    for (const std::string& line : split(r.out, '\n')) {
      if (line.rfind("[db-", 0) != 0) continue;
      bool mutex_lock = line.find("std::mutex::lock") != std::string::npos ||
                        line.find("__lll_lock_wait") != std::string::npos;
      if (mutex_lock && line.find("sample::db::Session::commit") != std::string::npos &&
          line.find("futex") != std::string::npos)
        lock_wait = true;
    }
  }
  EXPECT_TRUE(lock_wait) << "no db thread seen waiting in std::mutex::lock";
  EXPECT_EQ(kill(t->pid(), 0), 0) << "the workload survived sampling";
}

// SIGTERM, SIGINT and the end of stdin: exit status 0, MMV file removed.
class SampleWorkloadShutdown : public SampleWorkload,
                               public testing::WithParamInterface<std::string> {};

TEST_P(SampleWorkloadShutdown, ExitsCleanlyAndRemovesItsMetricsFile) {
  auto t = start();
  ASSERT_TRUE(t);
  std::string file = mmv_file(t->pid());
  ASSERT_TRUE(std::filesystem::exists(file));
  if (GetParam() == "SIGTERM") kill(t->pid(), SIGTERM);
  if (GetParam() == "SIGINT") kill(t->pid(), SIGINT);
  if (GetParam() == "stdin") t->close_stdin();
  int status = wait_exit(t->pid(), 20s);
  ASSERT_NE(status, -1) << "did not exit";
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(std::filesystem::exists(file));
}

INSTANTIATE_TEST_SUITE_P(SampleWorkloadEnds, SampleWorkloadShutdown,
                         testing::Values("SIGTERM", "SIGINT", "stdin"));

TEST_F(SampleWorkload, SecondsEndTheRunWithStdinOpen) {
  auto t = start({"--seconds", "1", "--mmv-name", "timed"});
  ASSERT_TRUE(t);
  EXPECT_TRUE(std::filesystem::exists(mmv_dir_ + "/timed"));
  int status = wait_exit(t->pid(), 30s);
  ASSERT_NE(status, -1) << "did not exit";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_FALSE(std::filesystem::exists(mmv_dir_ + "/timed"));
}

TEST_F(SampleWorkload, AnUnwritableMetricsDirectoryIsStatus1) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 1);
    dup2(null, 2);
    execl(kWorkload, kWorkload, "--mmv-dir", "/nonexistent/hearth-sample", "--seconds", "1",
          nullptr);
    _exit(127);
  }
  int status = wait_exit(pid, 30s);
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "status " << status;
}

}  // namespace
