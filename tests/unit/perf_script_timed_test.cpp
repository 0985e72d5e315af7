// perf script's samples in time (perf_script_timed.h) and a recording's samples as pprof with
// their times (pprof_timed.h).
#include "render/profile/perf_script_timed.h"

#include <gtest/gtest.h>
#include <protozero/pbf_reader.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/timed_samples.h"
#include "render/profile/pprof_reader.h"
#include "render/profile/pprof_timed.h"

namespace hearth::profile {
namespace {

// Two threads, the second sample printed before the first (perf's order is by time but a reader
// must not rely on it), a sample of another event, a line that is none of perf script's.
constexpr std::string_view kTimedPerf =
    "spin-0 25765 13264.915607:    2004008 cpu-clock:pppH: \n"
    "\t            4702 leaf_spin+0x2f (/t/stack_target-fp)\n"
    "\t            4f2d work+0x48 (/t/stack_target-fp)\n"
    "\n"
    "spin-1 25766 13264.900000:    2004008 cpu-clock:pppH: \n"
    "\tffffffff81c3a0b1 schedule+0x51 ([kernel.kallsyms])\n"
    "\t            4f2d work+0x48 (/t/stack_target-fp)\n"
    "\n"
    "spin-1 25766 13264.950000: sched:sched_switch: prev_comm=x prev_pid=1\n"
    "\tffffffff81c3a0b1 schedule+0x51 ([kernel.kallsyms])\n"
    "\n"
    "garbage\n"
    "spin-0 25765 13265.100000:    2004008 cpu-clock:pppH: \n"
    "\t            4702 leaf_spin+0x2f (/t/stack_target-fp)\n"
    "\t            4f2d work+0x48 (/t/stack_target-fp)\n"
    "\n";

struct TimedThreadSample {
  uint64_t time_ns;
  std::string root, stack;
  char state;
};

std::vector<TimedThreadSample> expand_all(const timed_samples::Samples& s) {
  std::vector<TimedThreadSample> out;
  timed_samples::expand(s, [&](size_t r, std::span<const timed_samples::Sample> th) {
    for (const auto& one : th) {
      out.push_back(
          {s.rounds[r].time_ns, s.threads[one.thread].root, s.stacks[one.stack], one.state});
    }
  });
  return out;
}

TEST(PerfScriptTimed, EachSampleIsOneThreadInTimeOrder) {
  auto timed = perf_script_timed(kTimedPerf, "perf.txt");
  ASSERT_TRUE(timed) << timed.error().message;
  EXPECT_EQ(timed->stats.samples, 3u);
  EXPECT_EQ(timed->stats.other_samples, 1u);
  EXPECT_EQ(timed->ignored_lines, 1u);
  EXPECT_EQ(timed->first_ignored_line, 12u);
  auto got = expand_all(timed->samples);
  ASSERT_EQ(got.size(), 3u);  // one thread a round, though a thread stays alive between
  EXPECT_EQ(got[0].time_ns, 0u);
  EXPECT_EQ(got[0].root, "[spin-1 tid=25766]");
  EXPECT_EQ(got[0].stack, "work;schedule_[k]");
  EXPECT_EQ(got[1].time_ns, 15'607'000u);
  EXPECT_EQ(got[1].root, "[spin-0 tid=25765]");
  EXPECT_EQ(got[1].stack, "work;leaf_spin");
  EXPECT_EQ(got[2].time_ns, 200'000'000u);
  for (const auto& g : got) EXPECT_EQ(g.state, 'R');
  EXPECT_EQ(timed->samples.mono_ns, 0u);  // perf's clock is not said to be CLOCK_MONOTONIC
}

TEST(PerfScriptTimed, PerfsPidGroupsThreadsIntoProcesses) {
  auto timed = perf_script_timed(
      "app 100/101 10.000000: 1 cycles: \n\t1 f+0x1 (/a)\n\n"
      "app 100/102 10.500000: 1 cycles: \n\t1 g+0x1 (/a)\n\n",
      "p");
  ASSERT_TRUE(timed) << timed.error().message;
  ASSERT_EQ(timed->samples.rounds.size(), 2u);
  EXPECT_EQ(timed->samples.rounds[1].pid, 100);
  EXPECT_EQ(expand_all(timed->samples).size(), 2u);  // 101 left the second round
}

TEST(PerfScriptTimed, SamplesWithoutTimesAreSkippedAndAnErrorWhenAllAre) {
  // perf prints -1 for a task it no longer knows: still a sample with its time.
  auto some = perf_script_timed(
      "app 7 10.000000: 1 cycles: \n\t1 f+0x1 (/a)\n\napp 7 12 cycles: \n\t1 g+0x1 (/a)\n\n"
      ":-1    -1 [000] 10.500000:    2004008 cycles: \n\t1 h+0x1 (/a)\n\n",
      "p");
  ASSERT_TRUE(some) << some.error().message;
  EXPECT_EQ(some->untimed_samples, 1u);
  EXPECT_EQ(some->first_untimed_line, 4u);
  auto got = expand_all(some->samples);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].root, "[:-1 tid=-1]");
  EXPECT_EQ(got[1].time_ns, 500'000'000u);
  auto untimed = perf_script_timed("app 7 12 cycles: \n\t1 g+0x1 (/a)\n\n", "p");
  ASSERT_FALSE(untimed);
  EXPECT_NE(untimed.error().message.find("p: line 1: a perf script sample without its time"),
            std::string::npos)
      << untimed.error().message;
  auto none = perf_script_timed("# just a comment\nnothing\n", "p");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "p: no perf script samples in it");
}

// The labels of each sample of a pprof profile: key -> string or number (with its unit).
struct PprofTimedSample {
  std::map<std::string, std::string> str;
  std::map<std::string, std::pair<int64_t, std::string>> num;
  std::vector<int64_t> values;
};

std::vector<PprofTimedSample> pprof_timed_samples(const std::string& data) {
  std::vector<std::string> strings;
  struct RawLabel {
    int64_t key = 0, str = 0, num = 0, unit = 0;
  };
  std::vector<std::vector<RawLabel>> labels;
  std::vector<std::vector<int64_t>> values;
  protozero::pbf_reader p(data);
  while (p.next()) {
    if (p.tag() == 6) {
      strings.push_back(std::string(p.get_view()));
    } else if (p.tag() == 2) {
      protozero::pbf_reader s = p.get_message();
      labels.emplace_back();
      values.emplace_back();
      while (s.next()) {
        if (s.tag() == 3) {
          protozero::pbf_reader l = s.get_message();
          RawLabel rl;
          while (l.next()) {
            switch (l.tag()) {
              case 1:
                rl.key = l.get_int64();
                break;
              case 2:
                rl.str = l.get_int64();
                break;
              case 3:
                rl.num = l.get_int64();
                break;
              case 4:
                rl.unit = l.get_int64();
                break;
              default:
                l.skip();
            }
          }
          labels.back().push_back(rl);
        } else if (s.tag() == 2) {
          auto r = s.get_packed_int64();
          values.back().assign(r.begin(), r.end());
        } else {
          s.skip();
        }
      }
    } else {
      p.skip();
    }
  }
  std::vector<PprofTimedSample> out(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    out[i].values = values[i];
    for (const RawLabel& l : labels[i]) {
      if (l.str != 0) {
        out[i].str[strings.at(l.key)] = strings.at(l.str);
      } else {
        out[i].num[strings.at(l.key)] = {l.num, strings.at(l.unit)};
      }
    }
  }
  return out;
}

TEST(PprofTimed, EachThreadSampleKeepsItsThreadStateAndTime) {
  timed_samples::Builder b(4242, "app", {}, 0, 1'795'762'269'000'000'000);
  b.add({.time_ns = 0, .pid = 4242},
        std::vector<timed_samples::Builder::Entry>{
            {.tid = 4242, .root = "[app tid=4242]", .frames = "main;tick", .state = 'R'},
            {.tid = 4243,
             .root = "[worker tid=4243]",
             .frames = "run;futex_wait_[k]",
             .state = 'D'}});
  b.add({.time_ns = 100'000'000, .pid = 4242},
        std::vector<timed_samples::Builder::Entry>{
            {.tid = 4242, .root = "[app tid=4242]", .frames = "main;tick", .state = 'S'},
            {.tid = 4243,
             .root = "[worker tid=4243]",
             .frames = "run;futex_wait_[k]",
             .state = 'D'}});
  const std::string data = timed_to_pprof(b.samples());
  auto got = pprof_timed_samples(data);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].str["thread"], "app");
  EXPECT_EQ(got[0].num["thread_id"].first, 4242);
  EXPECT_EQ(got[0].str["state"], "R");
  EXPECT_EQ(got[0].num["time"], (std::pair<int64_t, std::string>{0, "nanoseconds"}));
  EXPECT_EQ(got[1].str["thread"], "worker");
  EXPECT_EQ(got[1].str["state"], "D");
  EXPECT_EQ(got[2].str["state"], "S");
  EXPECT_EQ(got[3].num["time"].first, 100'000'000);
  EXPECT_EQ(got[3].values, (std::vector<int64_t>{1, 100'000'000}));
  // hearth's own reader takes the thread labels back as roots.
  std::map<std::string, int64_t> folded;
  auto stats = read_pprof(data, [&](std::span<const std::string_view> frames, int64_t v) {
    std::string line;
    for (std::string_view f : frames) line += (line.empty() ? "" : ";") + std::string(f);
    folded[line] += v;
  });
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(folded["[app tid=4242];main;tick"], 2);
  EXPECT_EQ(folded["[worker tid=4243];run;futex_wait_[k]"], 2);
}

}  // namespace
}  // namespace hearth::profile
