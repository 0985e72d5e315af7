// The timed samples format (formats/timed_samples.h): the builder's changes, the writer's bytes
// as the README shows them, the round trip, expand(), the conversion of raw samples, and the
// reader's errors and damaged files.
#include "formats/timed_samples.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hearth::timed_samples {
namespace {

using E = Builder::Entry;

// Three samples of 4242: a worker that stays parked, main that moves, a thread that appears
// then exits, and a rename of the worker in the last sample.
Samples built() {
  Builder b(4242, "app;x", {}, 81234000000000, 1795762269000000000);
  std::vector<E> one = {{4243, "[worker-1 tid=4243]", "start_thread;futex_wait_[k]", 'S'},
                        {4242, "[app tid=4242]", "main;run", 'R'}};
  b.add({.time_ns = 0, .pid = 4242, .copied = 2}, one);
  std::vector<E> two = {{4244, "[io tid=4244]", "start_thread;read_[k]", 'D'},
                        {4242, "[app tid=4242]", "main;run", 'R'},
                        {4243, "[worker-1 tid=4243]", "start_thread;futex_wait_[k]", 'S'}};
  b.add({.time_ns = 100000000, .pid = 4242, .copied = 1, .reused = 2}, two);
  std::vector<E> three = {{4242, "[app tid=4242]", "main;wait", 'S'},
                          {4243, "[pool-1 tid=4243]", "start_thread;futex_wait_[k]", 'S'}};
  b.add({.time_ns = 200000000, .pid = 4242, .stopped = 1, .stall_ns = 900, .after_exec = true},
        three);
  return b.take();
}

constexpr std::string_view kWritten =
    "# hearth samples "
    "2\tpid=4242\tname=app:x\tmono_ns=81234000000000\treal_ns=1795762269000000000\n"
    "# lines: s ID FRAMES | t TID PID ROOT | r TIME_NS PID copied= reused= stopped= stall_ns= | "
    "TID STATE STACK_ID | - TID\n"
    "s\t0\tmain;run\n"
    "t\t4242\t4242\t[app tid=4242]\n"
    "s\t1\tstart_thread;futex_wait_[k]\n"
    "t\t4243\t4242\t[worker-1 tid=4243]\n"
    "r\t0\t4242\tcopied=2\treused=0\tstopped=0\tstall_ns=0\n"
    "4242\tR\t0\n"
    "4243\tS\t1\n"
    "s\t2\tstart_thread;read_[k]\n"
    "t\t4244\t4242\t[io tid=4244]\n"
    "r\t100000000\t4242\tcopied=1\treused=2\tstopped=0\tstall_ns=0\n"
    "4244\tD\t2\n"
    "s\t3\tmain;wait\n"
    "t\t4243\t4242\t[pool-1 tid=4243]\n"
    "e\n"
    "r\t200000000\t4242\tcopied=0\treused=0\tstopped=1\tstall_ns=900\n"
    "4242\tS\t3\n"
    "4243\tS\t1\n"
    "-\t4244\n";

TEST(TimedSamples, BuilderKeepsOnlyChanges) {
  Samples s = built();
  ASSERT_EQ(s.rounds.size(), 3u);
  EXPECT_EQ(s.rounds[0].first_change, 0u);
  EXPECT_EQ(s.rounds[1].first_change, 2u);  // only the new thread changed
  EXPECT_EQ(s.rounds[2].first_change, 3u);
  EXPECT_EQ(s.changes.size(), 6u);
  EXPECT_EQ(s.stacks.size(), 4u);
  ASSERT_EQ(s.threads.size(), 4u);  // the renamed worker is a thread of its own
  EXPECT_EQ(s.threads[3].root, "[pool-1 tid=4243]");
  EXPECT_EQ(s.changes.back().state, kGone);
}

TEST(TimedSamples, WriterBytes) {
  EXPECT_EQ(format(built()), kWritten);
}

bool same(const Samples& a, const Samples& b) {
  if (a.pid != b.pid || a.name != b.name || a.mono_ns != b.mono_ns || a.real_ns != b.real_ns ||
      a.stacks != b.stacks || a.threads.size() != b.threads.size() ||
      a.rounds.size() != b.rounds.size() || a.changes.size() != b.changes.size()) {
    return false;
  }
  for (size_t i = 0; i < a.threads.size(); ++i) {
    if (a.threads[i].tid != b.threads[i].tid || a.threads[i].pid != b.threads[i].pid ||
        a.threads[i].root != b.threads[i].root)
      return false;
  }
  for (size_t i = 0; i < a.rounds.size(); ++i) {
    const Round &x = a.rounds[i], &y = b.rounds[i];
    if (x.time_ns != y.time_ns || x.pid != y.pid || x.copied != y.copied || x.reused != y.reused ||
        x.stopped != y.stopped || x.stall_ns != y.stall_ns || x.after_exec != y.after_exec ||
        x.first_change != y.first_change)
      return false;
  }
  for (size_t i = 0; i < a.changes.size(); ++i) {
    const Change &x = a.changes[i], &y = b.changes[i];
    if (x.thread != y.thread || x.state != y.state || (x.state != kGone && x.stack != y.stack))
      return false;
  }
  return true;
}

TEST(TimedSamples, RoundTrip) {
  Result<Samples> r = parse(kWritten, "x.samples.txt");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->damage.empty()) << r->damage;
  EXPECT_EQ(r->name, "app:x");
  Samples b = built();
  b.name = "app:x";  // the writer made it folded-safe
  EXPECT_TRUE(same(*r, b));
  EXPECT_EQ(format(*r), kWritten);
}

// Every sample, expanded: what a heatmap counts.
std::vector<std::string> expanded(const Samples& s) {
  std::vector<std::string> out;
  expand(s, [&](size_t round, std::span<const Sample> threads) {
    for (const Sample& t : threads) {
      out.push_back(std::to_string(round) + " " + s.threads[t.thread].root + " " + t.state + " " +
                    s.stacks[t.stack] + " since " + std::to_string(t.since_round));
    }
  });
  return out;
}

TEST(TimedSamples, ExpandGivesEveryThreadOfEverySample) {
  EXPECT_EQ(expanded(built()), (std::vector<std::string>{
                                   "0 [app tid=4242] R main;run since 0",
                                   "0 [worker-1 tid=4243] S start_thread;futex_wait_[k] since 0",
                                   "1 [app tid=4242] R main;run since 0",
                                   "1 [worker-1 tid=4243] S start_thread;futex_wait_[k] since 0",
                                   "1 [io tid=4244] D start_thread;read_[k] since 1",
                                   "2 [app tid=4242] S main;wait since 2",
                                   // renamed, same state and stack: still since the first sample
                                   "2 [pool-1 tid=4243] S start_thread;futex_wait_[k] since 0",
                               }));
}

TEST(TimedSamples, MomentIsTheNearestSampleOfEachProcess) {
  Samples s = built();
  Moment m = moment(s, 140000000);  // nearer the second sample (100 ms) than the third (200 ms)
  EXPECT_EQ(m.rounds, (std::vector<size_t>{1}));
  ASSERT_EQ(m.threads.size(), 3u);
  EXPECT_EQ(s.stacks[m.threads[2].stack], "start_thread;read_[k]");
  EXPECT_EQ(moment(s, 150000000).rounds, (std::vector<size_t>{1}));  // a tie: the earlier
  EXPECT_EQ(moment(s, 999999999).rounds, (std::vector<size_t>{2}));
  EXPECT_TRUE(moment(Samples{}, 5).threads.empty());
}

TEST(TimedSamples, SetsKeepEachProcessesThreads) {
  Builder b(0, "", {{100, "java"}, {200, "postgres"}}, 0, 0);
  std::vector<E> a = {{101, "[java pid=100];[w tid=101]", "run", 'S'}};
  std::vector<E> p = {{200, "[postgres pid=200]", "main;poll", 'S'}};
  b.add({.time_ns = 10, .pid = 100}, a);
  b.add({.time_ns = 12, .pid = 200}, p);
  b.add({.time_ns = 110, .pid = 100}, a);
  b.add({.time_ns = 112, .pid = 200}, {});  // postgres's thread gone
  Samples s = b.take();
  std::string text = format(s);
  EXPECT_NE(text.find("processes=2"), std::string::npos);
  EXPECT_NE(text.find("# process\tpid=200\tname=postgres\n"), std::string::npos);
  Result<Samples> r = parse(text, "set.samples.txt");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(same(*r, s));
  ASSERT_EQ(r->processes.size(), 2u);
  Moment m = moment(*r, 111);  // one sample of each process: 110 (java) and 112 (postgres)
  EXPECT_EQ(m.rounds, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(m.threads.size(), 1u);  // postgres's thread is gone by 112
  EXPECT_EQ(expanded(*r), (std::vector<std::string>{
                              "0 [java pid=100];[w tid=101] S run since 0",
                              "1 [postgres pid=200] S main;poll since 1",
                              "2 [java pid=100];[w tid=101] S run since 0",
                          }));
}

TEST(TimedSamples, Version2KeepsEachProcessesTitle) {
  Builder b(0, "", {{100, "postgres", "postgres: checkpointer"}, {200, "postgres", ""}}, 0, 0);
  b.add({.time_ns = 10, .pid = 100}, std::vector<E>{{100, "[postgres pid=100]", "main", 'S'}});
  Samples s = b.take();
  const std::string text = format(s);
  EXPECT_TRUE(text.starts_with("# hearth samples 2\t")) << text;
  EXPECT_NE(text.find("# process\tpid=100\tname=postgres\ttitle=postgres: checkpointer\n"),
            std::string::npos);
  EXPECT_NE(text.find("# process\tpid=200\tname=postgres\n"), std::string::npos);  // none known
  Result<Samples> r = parse(text, "t.samples.txt");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->version, 2);
  ASSERT_EQ(r->processes.size(), 2u);
  EXPECT_EQ(r->processes[0].title, "postgres: checkpointer");
  EXPECT_EQ(r->processes[1].title, "");
  // A title with a control byte (no writer of ours makes one): the file is read up to it.
  std::string bad = text;
  bad.replace(bad.find("checkpointer"), 1, "\x01");
  Result<Samples> damaged = parse(bad, "b.samples.txt");
  EXPECT_FALSE(damaged.has_value() && damaged->damage.empty());
}

TEST(TimedSamples, Version1FilesStillRead) {
  const std::string v1 =
      "# hearth samples 1\tprocesses=1\tmono_ns=5\treal_ns=6\n"
      "# process\tpid=100\tname=postgres\n"
      "s\t0\tmain\n"
      "t\t100\t100\t[postgres pid=100]\n"
      "r\t10\t100\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
      "100\tS\t0\n";
  Result<Samples> r = parse(v1, "v1.samples.txt");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->version, 1);
  EXPECT_TRUE(r->damage.empty()) << r->damage;
  ASSERT_EQ(r->processes.size(), 1u);
  EXPECT_EQ(r->processes[0].name, "postgres");
  EXPECT_EQ(r->processes[0].title, "");
  EXPECT_EQ(r->rounds.size(), 1u);
  Result<Samples> v3 = parse("# hearth samples 3\n", "v3.samples.txt");
  ASSERT_FALSE(v3.has_value());
  EXPECT_EQ(v3.error().message,
            "v3.samples.txt:1: samples version 3 is not supported (this hearth reads versions 1 "
            "and 2)");
}

TEST(TimedSamples, FromRawCarriesTitles) {
  const std::string raw_text =
      "# hearth stacks raw 1\tprocesses=1\n"
      "# process\tpid=100\tname=postgres\ttitle=postgres: walwriter\n"
      "# time_ns\ttid\tstate\tstack\n"
      "1\t100\tS\t[postgres pid=100];main\n";
  Result<raw_samples::RawFile> raw = raw_samples::parse_raw_samples(raw_text, "x.raw.txt");
  ASSERT_TRUE(raw.has_value()) << raw.error().message;
  ASSERT_EQ(raw->processes.size(), 1u);
  EXPECT_EQ(raw->processes[0].title, "postgres: walwriter");
  Samples s = from_raw(*raw);
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].title, "postgres: walwriter");
  std::string written;
  raw_samples::append_set_header(&written, raw->processes);
  EXPECT_NE(written.find("# process\tpid=100\tname=postgres\ttitle=postgres: walwriter\n"),
            std::string::npos);
}

TEST(TimedSamples, FromRaw) {
  std::string raw_text =
      "# hearth stacks raw 1\tpid=7\tname=app\n"
      "# time_ns\ttid\tstate\tstack\n"
      "# round 5\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
      "5\t7\tR\t[app tid=7];main\n"
      "5\t8\tS\t[w tid=8];start;wait\n"
      "# round 9\tcopied=0\treused=2\tstopped=0\tstall_ns=0\n"
      "9\t7\tR\t[app tid=7];main\n"
      "9\t8\tS\t[w tid=8];start;wait\n";
  Result<raw_samples::RawFile> raw = raw_samples::parse_raw_samples(raw_text, "x.raw.txt");
  ASSERT_TRUE(raw.has_value()) << raw.error().message;
  Samples s = from_raw(*raw);
  EXPECT_EQ(s.pid, 7);
  EXPECT_EQ(s.changes.size(), 2u);  // the second sample changed nothing
  EXPECT_EQ(expanded(s), (std::vector<std::string>{
                             "0 [app tid=7] R main since 0",
                             "0 [w tid=8] S start;wait since 0",
                             "1 [app tid=7] R main since 0",
                             "1 [w tid=8] S start;wait since 0",
                         }));
}

TEST(TimedSamples, FromRawOfASetSplitsProcessRoots) {
  std::string raw_text =
      "# hearth stacks raw 1\tprocesses=2\n"
      "# process\tpid=100\tname=java\n"
      "# process\tpid=200\tname=pg\n"
      "# time_ns\ttid\tstate\tstack\n"
      "1\t101\tS\t[java pid=100];[w tid=101];run\n"
      "3\t200\tS\t[pg pid=200];main;poll\n";
  Result<raw_samples::RawFile> raw = raw_samples::parse_raw_samples(raw_text, "x.raw.txt");
  ASSERT_TRUE(raw.has_value()) << raw.error().message;
  Samples s = from_raw(*raw);
  ASSERT_EQ(s.threads.size(), 2u);
  EXPECT_EQ(s.threads[0].root, "[java pid=100];[w tid=101]");
  EXPECT_EQ(s.threads[0].pid, 100);
  EXPECT_EQ(s.threads[1].root, "[pg pid=200]");
  EXPECT_EQ(s.threads[1].pid, 200);
  EXPECT_EQ(s.stacks, (std::vector<std::string>{"run", "main;poll"}));
}

std::string error_of(std::string_view text) {
  Result<Samples> r = parse(text, "x.samples.txt");
  if (!r) return r.error().message;
  return r->damage;
}

TEST(TimedSamples, BadFirstLineIsAnError) {
  Result<Samples> r = parse("hello\n", "x.samples.txt");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "x.samples.txt:1: not a hearth timed samples file: expected `# hearth samples 1` "
            "first, found `hello`");
  EXPECT_FALSE(parse("# hearth samples 3\n", "x").has_value());
  EXPECT_FALSE(parse("", "x").has_value());
}

TEST(TimedSamples, DamageKeepsWhatCameBefore) {
  std::string text(kWritten);
  // Line 13 (the io thread's change) broken: the first sample stays, the second is dropped.
  size_t at = text.find("4244\tD\t2\n");
  std::string broken = text.substr(0, at) + "4244\tD\t9\n" + text.substr(at + 9);
  Result<Samples> r = parse(broken, "x.samples.txt");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->damage, "x.samples.txt:13: stack `9` is not declared by an `s` line before");
  EXPECT_EQ(r->rounds.size(), 1u);
  EXPECT_EQ(r->changes.size(), 2u);
}

TEST(TimedSamples, TruncatedFileSaysSo) {
  std::string text(kWritten);
  Result<Samples> r = parse(text.substr(0, text.size() - 3), "x.samples.txt");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->damage, "x.samples.txt:20: the file ends inside this line: it was cut short");
  EXPECT_EQ(r->rounds.size(), 2u);  // the last sample, whose lines may be missing, is dropped
}

TEST(TimedSamples, ReaderErrors) {
  const std::string head =
      "# hearth samples 1\tpid=1\tname=a\tmono_ns=0\treal_ns=0\n"
      "s\t0\tmain\n"
      "t\t1\t1\t[a tid=1]\n";
  EXPECT_EQ(error_of(head + "1\tR\t0\n"),
            "x.samples.txt:4: a thread's sample before the first `r` line");
  const std::string r0 = "r\t5\t1\tcopied=0\treused=0\tstopped=0\tstall_ns=0\n";
  EXPECT_EQ(error_of(head + r0 + "2\tR\t0\n"), "x.samples.txt:5: tid `2` has no `t` line before");
  EXPECT_EQ(error_of(head + r0 + "1\tR\t0\n1\tS\t0\n"),
            "x.samples.txt:6: tid `1` has two lines in one sample");
  EXPECT_EQ(error_of(head + r0 + "1\t-\t0\n"), "x.samples.txt:5: state `-` is not one letter");
  EXPECT_EQ(error_of(head + r0 + "-\t1\n"),
            "x.samples.txt:5: tid `1` is gone but was not in the sample");
  EXPECT_EQ(error_of(head + "s\t2\tx\n"), "x.samples.txt:4: stack 2 is out of order (expected 1)");
  EXPECT_EQ(error_of(head + r0 + "r\t4\t1\tcopied=0\treused=0\tstopped=0\tstall_ns=0\n"),
            "x.samples.txt:5: time `4` is before the previous sample's");
  EXPECT_EQ(error_of(head + "t\t5000000\t1\t[x]\n"),
            "x.samples.txt:4: tid `5000000` is not a thread id");
  EXPECT_EQ(error_of(head + "zz\n"), "x.samples.txt:4: unknown line `zz`");
  EXPECT_EQ(error_of(head + r0 + "1\tR\t0\n"), "");
}

}  // namespace
}  // namespace hearth::timed_samples
