// The moment of a recording (formats/timed_samples.h moment()) on a real process whose threads
// are parked in known places at known times (targets/moment_target.cpp): at an instant inside
// each phase, every worker's stack is the one the phase put it in, in its state, with how long
// it has been there; and the instants line up with CLOCK_MONOTONIC through the file's mono_ns.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "formats/timed_samples.h"
#include "tests/integration/hearth_cli.h"
#include "tests/integration/target_process.h"

namespace {

using namespace std::chrono_literals;
using hearth::testing_support::start_hearth;
using hearth::testing_support::Target;
namespace ts = hearth::timed_samples;

uint64_t mono_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

// "phase K MONO_NS" -> MONO_NS, or 0.
uint64_t phase_time(Target& t, int k) {
  auto line = t.read_line(30s);
  const std::string prefix = "phase " + std::to_string(k) + " ";
  if (!line || !line->starts_with(prefix)) return 0;
  return std::stoull(line->substr(prefix.size()));
}

struct Window {
  uint64_t from_mono = 0, to_mono = 0;  // every worker is in its place between these
};

// The round of the file inside W nearest its middle, or -1.
long round_inside(const ts::Samples& s, const Window& w) {
  long best = -1;
  const uint64_t mid = w.from_mono / 2 + w.to_mono / 2;
  uint64_t best_distance = ~0ull;
  for (size_t i = 0; i < s.rounds.size(); ++i) {
    const uint64_t t = s.mono_ns + s.rounds[i].time_ns;
    if (t <= w.from_mono || t >= w.to_mono) continue;
    const uint64_t d = t > mid ? t - mid : mid - t;
    if (d < best_distance) {
      best_distance = d;
      best = static_cast<long>(i);
    }
  }
  return best;
}

// Worker name -> "STATE FUNCTION" of the phase's function found in its stack ("?" if none),
// at the moment of round R.
std::map<std::string, std::string> workers_at(const ts::Samples& s, size_t r,
                                              uint64_t* since_mono_min) {
  ts::Moment m = ts::moment(s, s.rounds[r].time_ns);
  EXPECT_EQ(m.rounds, (std::vector<size_t>{r}));
  std::map<std::string, std::string> out;
  *since_mono_min = ~0ull;
  for (const ts::Sample& smp : m.threads) {
    const std::string& root = s.threads[smp.thread].root;
    if (!root.starts_with("[mw-")) continue;
    const std::string name = root.substr(1, root.find(' ') - 1);
    std::string where = "?";
    for (const std::string& frame : hearth::testing_support::split(s.stacks[smp.stack], ';')) {
      for (const char* f : {"wait_for_work", "take_lock", "read_pipe", "nap"}) {
        if (frame == f) where = f;
      }
    }
    out[name] = std::string(1, smp.state) + " " + where;
    *since_mono_min = std::min(*since_mono_min, s.mono_ns + s.rounds[smp.since_round].time_ns);
  }
  return out;
}

TEST(Moment, EveryThreadIsWhereItWasParkedAtThatInstant) {
  auto target = Target::start("moment_target-fp", {"--workers", "4"});
  ASSERT_TRUE(target);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(target->read_line(10s));
  Window phase[4];
  phase[1].from_mono = phase_time(*target, 1);
  ASSERT_GT(phase[1].from_mono, 0u);

  const std::string dir = testing::TempDir();
  const std::string file = dir + "/moment.samples.txt", err = dir + "/moment.err";
  pid_t h = start_hearth({"stacks", "-p", std::to_string(target->pid()), "-F", "20", "-d", "60",
                          "--samples", file, "-o", dir + "/moment.folded"},
                         err);
  // Each phase is held 1.5 s: 30 samples at 20 Hz, a dozen or more even on a loaded machine,
  // where one inside the phase is all the test needs. (Phase 1 began before hearth attached:
  // only its end is sure to be sampled.)
  for (int k = 1; k <= 3; ++k) {
    std::this_thread::sleep_for(1500ms);
    phase[k].to_mono = mono_now_ns();
    if (k == 3) break;
    ASSERT_EQ(write(target->stdin_fd(), "next\n", 5), 5);
    phase[k + 1].from_mono = phase_time(*target, k + 1);
    ASSERT_GT(phase[k + 1].from_mono, 0u);
  }
  kill(h, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(h, &status, 0), h);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << hearth::testing_support::slurp(err);

  auto s = ts::read(file);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  ASSERT_TRUE(s->damage.empty()) << s->damage;
  const std::map<int, std::map<std::string, std::string>> expected = {
      {1,
       {{"mw-0", "S wait_for_work"},
        {"mw-1", "S wait_for_work"},
        {"mw-2", "S wait_for_work"},
        {"mw-3", "S wait_for_work"}}},
      {2,
       {{"mw-0", "S take_lock"},
        {"mw-1", "S read_pipe"},
        {"mw-2", "S take_lock"},
        {"mw-3", "S read_pipe"}}},
      {3, {{"mw-0", "S nap"}, {"mw-1", "S nap"}, {"mw-2", "S nap"}, {"mw-3", "S nap"}}},
  };
  for (int k = 1; k <= 3; ++k) {
    const long r = round_inside(*s, phase[k]);
    if (k == 1 && r < 0) continue;  // hearth attached after phase 1 ended
    ASSERT_GE(r, 0) << "no sample inside phase " << k;
    uint64_t since = 0;
    EXPECT_EQ(workers_at(*s, static_cast<size_t>(r), &since), expected.at(k)) << "phase " << k;
    // How long each has been there: not before the phase began (phase 1: since the first sample).
    if (k > 1) {
      EXPECT_GE(since, phase[k - 1].to_mono);
    }
  }
  std::filesystem::remove(file);
  std::filesystem::remove(err);
  std::filesystem::remove(dir + "/moment.folded");
}

}  // namespace
