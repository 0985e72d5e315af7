// The pure parts of `hearth watch`'s cpu and sched: signals (watch/proc_signals.h): the /proc
// line parsers, the split of an interval into shares, and a rule's value from a sample.
#include <gtest/gtest.h>

#include <string>

#include "watch/proc_signals.h"
#include "watch/rules.h"

namespace hearth::watch {
namespace {

// A stat line as the kernel writes it, with COMM and STATE, the rest of the fields typical.
std::string stat_text(std::string_view comm, char state) {
  return "4250 (" + std::string(comm) + ") " + state +
         " 4242 4242 13656 0 -1 4194368 98 0 0 0 12 3 0 0 20 0 7 0 5421870 3133440 362 "
         "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}

Rule proc_rule(std::string_view text) {
  RuleSet set = parse_rules(text, "rules");
  EXPECT_TRUE(set.errors.empty()) << (set.errors.empty() ? "" : set.errors[0]);
  EXPECT_EQ(set.rules.size(), 1u);
  return set.rules.empty() ? Rule{} : set.rules[0];
}

ThreadShares shares_of(std::string name, char state, double running, double runnable,
                       double sleeping, double blocked, double span_s, double in_state_s = 0) {
  ThreadShares t;
  t.tid = 100;
  t.pid = 100;
  t.name = std::move(name);
  t.state = state;
  t.running = running;
  t.runnable = runnable;
  t.sleeping = sleeping;
  t.blocked = blocked;
  t.span_s = span_s;
  t.in_state_s = in_state_s;
  return t;
}

ProcSample later_sample(std::vector<ThreadShares> threads, double cpu = 0) {
  ProcSample s;
  s.t_ns = 2'000'000'000;
  s.first = false;
  s.interval_s = 1;
  s.cpu = cpu;
  s.threads = std::move(threads);
  return s;
}

TEST(WatchProcLines, StatLineReadsIdNameAndState) {
  const std::string text = stat_text("worker-1", 'S');
  auto line = parse_stat_line(text);
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->tid, 4250);
  EXPECT_EQ(line->comm, "worker-1");
  EXPECT_EQ(line->state, 'S');
  EXPECT_EQ(line->threads, 7);
}

// A thread may name itself anything (prctl(PR_SET_NAME)): blanks and parentheses included.
TEST(WatchProcLines, StatLineSurvivesHostileNames) {
  for (const std::string comm : {"a) b (c", "", "fifteen-chars-x", ") R (", "x) D 1 2 (", "((",
                                 "))", "tab\there", "new\nline"}) {
    for (const char state : {'R', 'S', 'D', 'I', 't'}) {
      const std::string text = stat_text(comm, state);
      auto line = parse_stat_line(text);
      ASSERT_TRUE(line) << comm << ": " << line.error().message;
      EXPECT_EQ(line->comm, comm);
      EXPECT_EQ(line->state, state) << comm;
      EXPECT_EQ(line->tid, 4250);
      EXPECT_EQ(line->threads, 7);
    }
  }
  EXPECT_EQ(std::string("fifteen-chars-x").size(), 15u);
}

TEST(WatchProcLines, StatLineRejectsWhatIsNotOne) {
  for (const std::string_view bad :
       {"", "4250", "4250 (x", "4250 x) S 1", "(x) S 1", " (x) S 1", "-3 (x) S 1", "42a (x) S 1",
        "4250 (x)", "4250 (x) ", "4250 (x)S 1", "4250 (x) 5 1", "4250 (x) SS 1", "4250 )x( S 1",
        "0 (x) S 1"}) {
    EXPECT_FALSE(parse_stat_line(bad)) << bad;
  }
  // Up to field 20 (the thread count), which may end the text.
  auto line = parse_stat_line("7 (x) D 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 5");
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->state, 'D');
  EXPECT_EQ(line->threads, 5);
  EXPECT_FALSE(parse_stat_line("7 (x) D 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"));
  EXPECT_FALSE(parse_stat_line("7 (x) D 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 x"));
  EXPECT_FALSE(parse_stat_line("7 (x) D 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 0"));
}

TEST(WatchProcLines, SchedstatReadsThreeNumbers) {
  auto s = parse_schedstat("160500 1981008 2\n");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->run_ns, 160500u);
  EXPECT_EQ(s->wait_ns, 1981008u);
  EXPECT_EQ(s->slices, 2u);
  s = parse_schedstat("18446744073709551615 0 0");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->run_ns, 18446744073709551615u);
  for (const std::string_view bad : {"", "\n", "1 2", "1 2 3 4", "1  2 3", " 1 2 3", "1 2 3 \n",
                                     "-1 2 3", "1 2 x", "1 2 18446744073709551616", "1\t2\t3"}) {
    EXPECT_FALSE(parse_schedstat(bad)) << bad;
  }
}

constexpr int64_t kSecondNs = 1'000'000'000;

TEST(WatchProcSplit, OnCpuAndQueuedAreTheScheduler) {
  const Split s = split_interval(kSecondNs, 700'000'000, 300'000'000, 'R', 'R');
  EXPECT_DOUBLE_EQ(s.running, 0.7);
  EXPECT_DOUBLE_EQ(s.runnable, 0.3);
  EXPECT_NEAR(s.sleeping + s.blocked, 0, 1e-12);
}

TEST(WatchProcSplit, TheRestGoesByTheStatesAtBothEnds) {
  Split s = split_interval(kSecondNs, 100'000'000, 0, 'S', 'S');
  EXPECT_DOUBLE_EQ(s.running, 0.1);
  EXPECT_NEAR(s.sleeping, 0.9, 1e-12);
  EXPECT_EQ(s.blocked, 0);
  s = split_interval(kSecondNs, 0, 0, 'D', 'D');
  EXPECT_EQ(s.blocked, 1);
  EXPECT_EQ(s.sleeping, 0);
  s = split_interval(kSecondNs, 0, 0, 'S', 'D');  // one of each: half each
  EXPECT_DOUBLE_EQ(s.sleeping, 0.5);
  EXPECT_DOUBLE_EQ(s.blocked, 0.5);
  s = split_interval(kSecondNs, 0, 0, 'D', 'I');
  EXPECT_DOUBLE_EQ(s.sleeping, 0.5);
  EXPECT_DOUBLE_EQ(s.blocked, 0.5);
  s = split_interval(kSecondNs, 500'000'000, 0, 'R', 'D');  // R says nothing: all to D
  EXPECT_DOUBLE_EQ(s.blocked, 0.5);
  EXPECT_EQ(s.sleeping, 0);
  s = split_interval(kSecondNs, 0, 0, 'T', 'T');  // neither end says: sleeping
  EXPECT_EQ(s.sleeping, 1);
  s = split_interval(kSecondNs, 0, 0, 'R', 'Z');
  EXPECT_EQ(s.sleeping, 1);
  EXPECT_EQ(s.queued, 0);
  // R at the end says where the rest went only when the start does not: asleep at the start,
  // then woken, the rest is mostly the sleep.
  s = split_interval(kSecondNs, 200'000'000, 0, 'S', 'R');
  EXPECT_NEAR(s.sleeping, 0.8, 1e-12);
  EXPECT_EQ(s.runnable, 0);
  s = split_interval(kSecondNs, 0, 0, 'D', 'R');
  EXPECT_EQ(s.blocked, 1);
  s = split_interval(kSecondNs, 0, 0, 'R', 'S');  // R at the start: its wait is counted already
  EXPECT_EQ(s.sleeping, 1);
}

// Queued at the read (R) after no sleep seen: the rest is a wait the kernel has not counted yet
// (it adds a wait to schedstat when the thread gets its CPU), runnable, and marked as guessed.
TEST(WatchProcSplit, QueuedAtTheReadIsRunnable) {
  Split s = split_interval(kSecondNs, 100'000'000, 300'000'000, 'R', 'R');
  EXPECT_DOUBLE_EQ(s.running, 0.1);
  EXPECT_NEAR(s.runnable, 0.9, 1e-12);
  EXPECT_NEAR(s.queued, 0.6, 1e-12);
  EXPECT_EQ(s.sleeping + s.blocked, 0);
  s = split_interval(kSecondNs, 0, 0, 't', 'R');
  EXPECT_EQ(s.runnable, 1);
}

TEST(WatchProcSplit, SharesNeverPassTheInterval) {
  // The reads' own timing can make run + wait a little longer than the interval.
  const Split s = split_interval(kSecondNs, 900'000'000, 300'000'000, 'R', 'R');
  EXPECT_DOUBLE_EQ(s.running + s.runnable, 1);
  EXPECT_DOUBLE_EQ(s.running, 0.75);
  EXPECT_EQ(s.sleeping + s.blocked, 0);
  const Split none = split_interval(0, 5, 5, 'S', 'S');
  EXPECT_EQ(none.running + none.runnable + none.sleeping + none.blocked, 0);
}

TEST(WatchProcValue, CpuIsTheSamplesCores) {
  const ProcSample s = later_sample({}, 1.5);
  EXPECT_EQ(signal_value(proc_rule("cpu > 150%"), s), 1.5);
  ProcSample first = s;
  first.first = true;
  EXPECT_EQ(signal_value(proc_rule("cpu > 150%"), first), std::nullopt);
  EXPECT_EQ(signal_value(proc_rule("mmv:app.depth > 1"), s), std::nullopt);
}

TEST(WatchProcValue, ShareIsWeightedOverTheMatchingThreads) {
  const ProcSample s = later_sample(
      {shares_of("http-1", 'R', 0.2, 0.8, 0, 0, 1), shares_of("http-2", 'S', 0, 0, 1, 0, 1),
       shares_of("http-3", 'S', 0, 0.9, 0.1, 0, 0.5), shares_of("http-new", 'R', 0, 0, 0, 0, 0),
       shares_of("db-1", 'D', 0, 0, 0, 1, 1)});
  // (0.8 * 1 + 0 * 1 + 0.9 * 0.5) / 2.5; the new thread has no span, so no weight.
  EXPECT_DOUBLE_EQ(*signal_value(proc_rule("sched:runnable(thread=http-*) > 20%"), s), 1.25 / 2.5);
  EXPECT_DOUBLE_EQ(*signal_value(proc_rule("sched:blocked(thread=db-?) > 20%"), s), 1);
  EXPECT_DOUBLE_EQ(*signal_value(proc_rule("sched:blocked > 20%"), s), 1 / 3.5);
  EXPECT_EQ(signal_value(proc_rule("sched:blocked(thread=nothing*) > 20%"), s), std::nullopt);
  // Matching only threads with no shares yet: nothing to say.
  EXPECT_EQ(signal_value(proc_rule("sched:running(thread=http-new) > 20%"), s), std::nullopt);
}

TEST(WatchProcValue, DurationIsTheLongestInTheStateNow) {
  const ProcSample s = later_sample(
      {shares_of("db-1", 'D', 0, 0, 0, 1, 1, 2.5), shares_of("db-2", 'D', 0, 0, 0, 1, 1, 4),
       shares_of("db-3", 'S', 0, 0, 1, 0, 1, 9), shares_of("web", 'R', 1, 0, 0, 0, 1, 3)});
  EXPECT_EQ(signal_value(proc_rule("sched:blocked(thread=db-*) > 1s"), s), 4);
  EXPECT_EQ(signal_value(proc_rule("sched:sleeping(thread=db-*) > 1s"), s), 9);
  EXPECT_EQ(signal_value(proc_rule("sched:running(thread=db-*) > 1s"), s), 0);  // none in R
  EXPECT_EQ(signal_value(proc_rule("sched:runnable(thread=db-*) > 1s"), s), 0);
  EXPECT_EQ(signal_value(proc_rule("sched:running > 1s"), s), 3);
  // R without a CPU for that long: runnable; `web` has had one since the last read.
  EXPECT_EQ(signal_value(proc_rule("sched:runnable > 1s"), s), 0);
  ProcSample queued = s;
  queued.threads[3].queued_s = 1.5;
  EXPECT_EQ(signal_value(proc_rule("sched:runnable(thread=web) > 1s"), queued), 1.5);
  EXPECT_EQ(signal_value(proc_rule("sched:blocked(thread=x*) > 1s"), s), std::nullopt);
  EXPECT_EQ(signal_value(proc_rule("sched:blocked(thread='db-[13]') > 1s"), s), 2.5);
}

TEST(WatchProcValue, StatesMatchAsProcShowsThem) {
  EXPECT_TRUE(state_matches(SchedState::sleeping, 'S'));
  EXPECT_TRUE(state_matches(SchedState::sleeping, 'I'));
  EXPECT_TRUE(state_matches(SchedState::blocked, 'D'));
  EXPECT_TRUE(state_matches(SchedState::running, 'R'));
  EXPECT_TRUE(state_matches(SchedState::runnable, 'R'));
  EXPECT_FALSE(state_matches(SchedState::blocked, 'S'));
  EXPECT_FALSE(state_matches(SchedState::sleeping, 'T'));
}

}  // namespace
}  // namespace hearth::watch
