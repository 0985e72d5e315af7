// `hearth watch`'s rules: the grammar (watch/rules.h) and one rule over time (rule_state.h).
#include <gtest/gtest.h>

#include <string>

#include "watch/rule_state.h"
#include "watch/rules.h"

namespace hearth::watch {
namespace {

Rule only_rule(std::string_view text) {
  RuleSet set = parse_rules(text, "rules");
  EXPECT_TRUE(set.errors.empty()) << (set.errors.empty() ? "" : set.errors[0]);
  EXPECT_EQ(set.rules.size(), 1u);
  return set.rules.empty() ? Rule{} : set.rules[0];
}

std::string only_error(std::string_view text) {
  RuleSet set = parse_rules(text, "rules");
  EXPECT_TRUE(set.rules.empty());
  EXPECT_EQ(set.errors.size(), 1u);
  return set.errors.empty() ? "" : set.errors[0];
}

// The examples, each read as meant.
TEST(WatchRules, TheDocumentedExamplesRead) {
  Rule r = only_rule("mmv:app.queue.depth > 100 for 2s");
  EXPECT_EQ(r.kind, SignalKind::mmv);
  EXPECT_EQ(r.metric, "app.queue.depth");
  EXPECT_EQ(r.compare, Compare::greater);
  EXPECT_EQ(r.measure, Measure::value);
  EXPECT_EQ(r.threshold, 100);
  EXPECT_EQ(r.window, Window::held_for);
  EXPECT_EQ(r.window_s, 2);
  EXPECT_EQ(r.name, "rule-1");
  EXPECT_EQ(r.where, "rules:1");

  r = only_rule("pcp:disk.dev.await[sda] >= 50 for 3s");
  EXPECT_EQ(r.kind, SignalKind::pcp);
  EXPECT_EQ(r.metric, "disk.dev.await");
  EXPECT_EQ(r.instance, "sda");
  EXPECT_EQ(r.compare, Compare::greater_equal);

  r = only_rule("pcp:kernel.all.load > 8");
  EXPECT_EQ(r.window, Window::now);
  EXPECT_EQ(r.threshold, 8);

  r = only_rule("sched:runnable(thread=http-*) > 20% over 5s");
  EXPECT_EQ(r.kind, SignalKind::sched);
  EXPECT_EQ(r.state, SchedState::runnable);
  EXPECT_EQ(r.thread_glob, "http-*");
  EXPECT_EQ(r.measure, Measure::share);
  EXPECT_DOUBLE_EQ(r.threshold, 0.2);
  EXPECT_EQ(r.window, Window::mean_over);
  EXPECT_EQ(r.window_s, 5);

  r = only_rule("sched:blocked(thread=db-*) > 1s");
  EXPECT_EQ(r.state, SchedState::blocked);
  EXPECT_EQ(r.measure, Measure::duration);
  EXPECT_EQ(r.threshold, 1);

  r = only_rule("cpu > 90% over 10s");
  EXPECT_EQ(r.kind, SignalKind::cpu);
  EXPECT_DOUBLE_EQ(r.threshold, 0.9);

  r = only_rule("stack:'checkpoint' > 30% over 5s");
  EXPECT_EQ(r.kind, SignalKind::stack);
  EXPECT_EQ(r.stack_text, "checkpoint");

  r = only_rule("  slow_disk = pcp:disk.dev.await > 50 for 250ms   # the SAN again");
  EXPECT_EQ(r.name, "slow_disk");
  EXPECT_DOUBLE_EQ(r.window_s, 0.25);
  EXPECT_EQ(r.window_value, 250);
  EXPECT_EQ(r.window_unit, "ms");
}

TEST(WatchRules, AFileKeepsItsValidRulesAndSaysWhatIsWrongWithTheOthers) {
  RuleSet set = parse_rules(
      "# the on-call rules\n"
      "\n"
      "cpu > 90% over 10s\n"
      "cpu > 90 over 10s\n"
      "queue = mmv:app.queue.depth > 100\n"
      "queue = mmv:app.other > 1\n"
      "sched:blocked(thread='db *') > 1.5min\n",
      "/etc/hearth/rules");
  ASSERT_EQ(set.rules.size(), 3u);
  EXPECT_EQ(set.rules[0].name, "rule-1");
  EXPECT_EQ(set.rules[0].where, "/etc/hearth/rules:3");
  EXPECT_EQ(set.rules[1].name, "queue");
  EXPECT_EQ(set.rules[2].name, "rule-4");  // a rule that failed still takes its number
  EXPECT_EQ(set.rules[2].thread_glob, "db *");
  EXPECT_EQ(set.rules[2].threshold, 90);
  ASSERT_EQ(set.errors.size(), 2u);
  EXPECT_EQ(set.errors[0], "/etc/hearth/rules:4:7: expected a share with % (such as 20%)");
  EXPECT_EQ(set.errors[1], "/etc/hearth/rules:6:1: a second rule named 'queue': names must differ");
}

// Every error names its line and column, what was expected and what was found.
TEST(WatchRules, ErrorsSayWhereWhatWasExpectedAndWhatWasFound) {
  EXPECT_EQ(only_error("load > 8"),
            "rules:1:1: expected a signal (mmv:, pcp:, cpu, sched: or stack:), found 'load'");
  EXPECT_EQ(only_error("cpu 90%"), "rules:1:5: expected a comparison (>, >=, < or <=), found '90'");
  EXPECT_EQ(only_error("cpu > 90% over"),
            "rules:1:15: expected a duration (such as 5s), found the end of the line");
  EXPECT_EQ(only_error("cpu > 90% over 5"),
            "rules:1:16: expected a duration with its unit (us, ms, s, min or h)");
  EXPECT_EQ(only_error("cpu > 90% during 5s"),
            "rules:1:11: expected 'for', 'over' or the end of the line, found 'during'");
  EXPECT_EQ(only_error("cpu > 90x"),
            "rules:1:9: expected a unit (%, us, ms, s, min or h) or a blank, found 'x'");
  EXPECT_EQ(only_error("mmv: > 1"),
            "rules:1:6: expected a metric name (such as app.queue.depth), found '>'");
  EXPECT_EQ(only_error("mmv:a.b[x > 1"), "rules:1:11: expected ']', found '>'");
  EXPECT_EQ(only_error("mmv:a.b > 1s"),
            "rules:1:12: expected a plain number (a metric is compared as published), found 's'");
  EXPECT_EQ(
      only_error("sched:waiting > 1s"),
      "rules:1:7: expected a state (running, runnable, sleeping or blocked), found 'waiting'");
  EXPECT_EQ(only_error("sched:blocked(tid=3) > 1s"), "rules:1:15: expected 'thread', found 'tid'");
  EXPECT_EQ(only_error("sched:blocked > 3"),
            "rules:1:17: expected a share with % (20%) or a duration (1s) for a sched: signal");
  EXPECT_EQ(only_error("sched:runnable > 120%"), "rules:1:18: expected a share of at most 100%");
  EXPECT_EQ(only_error("stack:checkpoint > 3%"),
            "rules:1:7: expected a quoted text (such as 'checkpoint'), found 'checkpoint'");
  EXPECT_EQ(only_error("stack:'checkpoint > 3%"),
            "rules:1:7: a string that does not end: expected its closing '");
  EXPECT_EQ(only_error("stack:'a\\b' > 3%"),
            "rules:1:10: expected \\\\, \\' or \\\" after a backslash, found 'b'");
  EXPECT_EQ(only_error("cpu > 1e999%"), "rules:1:7: expected a number, found '1e999'");
  EXPECT_EQ(only_error("cpu > 5% for 2d"),
            "rules:1:15: expected a unit (%, us, ms, s, min or h) or a blank, found 'd'");
  EXPECT_EQ(only_error("cpu > 5% for 25h"),
            "rules:1:14: expected a duration above 0 and at most 24h");
  EXPECT_EQ(only_error("cpu > 5% for 0s"),
            "rules:1:14: expected a duration above 0 and at most 24h");
  // A control character is shown escaped, never written raw into a terminal or log.
  EXPECT_EQ(only_error("cpu \x1b[2J"),
            "rules:1:5: expected a comparison (>, >=, < or <=), found '\\x1b'");
}

TEST(WatchRules, CanonicalTextReadsBackAsTheSameRule) {
  for (const char* text :
       {"mmv:app.queue.depth > 100 for 2s", "pcp:disk.dev.await['sd a'] >= 0.1 for 3s",
        "cpu <= 150%", "sched:sleeping(thread='it''s') < 2.5% over 1min",
        "sched:running(thread=\"a\\\\b\") > 100us", "stack:'it\\'s, #1' > 30% over 500ms",
        "x = sched:blocked > 1h for 1e-3s"}) {
    SCOPED_TRACE(text);
    RuleSet first = parse_rules(text, "a");
    if (!first.errors.empty()) {
      // "it''s" is two strings: not a rule. The others must read.
      EXPECT_NE(std::string(text).find("''"), std::string::npos) << first.errors[0];
      continue;
    }
    ASSERT_EQ(first.rules.size(), 1u);
    const std::string canonical = to_text(first.rules[0]);
    RuleSet again = parse_rules(canonical, "b");
    ASSERT_TRUE(again.errors.empty()) << canonical << ": " << again.errors[0];
    ASSERT_EQ(again.rules.size(), 1u);
    EXPECT_EQ(to_text(again.rules[0]), canonical);
    const Rule& a = first.rules[0];
    const Rule& b = again.rules[0];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(signal_text(a), signal_text(b));
    EXPECT_EQ(a.threshold, b.threshold);
    EXPECT_EQ(a.window_s, b.window_s);
  }
  EXPECT_EQ(to_text(only_rule("sched:runnable(thread=http-*)>20%over 5s")),
            "rule-1 = sched:runnable(thread=http-*) > 20% over 5s");
  EXPECT_EQ(signal_text(only_rule("pcp:disk.dev.await['sd a'] > 1")), "pcp:disk.dev.await['sd a']");
}

// A metric with instances and none named: the rule holds when any instance's value does.
TEST(RuleState, AnyInstanceCrossing) {
  EXPECT_EQ(value_of_instances(only_rule("pcp:kernel.all.load > 8"), {1, 9, 3}), 9);
  EXPECT_EQ(value_of_instances(only_rule("pcp:mem.freemem <= 1000"), {5000, 900}), 900);
  EXPECT_FALSE(value_of_instances(only_rule("pcp:x > 1"), {}).has_value());
}

TEST(RuleState, NowComparesEachValue) {
  RuleState s(only_rule("mmv:q > 100"));
  EXPECT_FALSE(s.observe(0, 100));
  EXPECT_TRUE(s.observe(1, 101));
  EXPECT_FALSE(s.observe(2, std::nullopt));  // a metric gone is not a breach
  EXPECT_FALSE(s.shown().has_value());
}

TEST(RuleState, ForNeedsEveryValueOfTheSpan) {
  RuleState s(only_rule("mmv:q > 100 for 2s"));
  const int64_t sec = 1'000'000'000;
  EXPECT_FALSE(s.observe(0 * sec, 150));
  EXPECT_FALSE(s.observe(1 * sec, 150));
  EXPECT_TRUE(s.observe(2 * sec, 150));  // true at 0, 1 and 2 s: held for 2 s
  EXPECT_FALSE(s.observe(3 * sec, 50));  // broken
  EXPECT_FALSE(s.observe(4 * sec, 150));
  EXPECT_FALSE(s.observe(5 * sec, std::nullopt));  // a missing value breaks the run too
  EXPECT_FALSE(s.observe(6 * sec, 150));
  EXPECT_FALSE(s.observe(7 * sec, 150));
  EXPECT_TRUE(s.observe(8 * sec, 150));
  EXPECT_EQ(s.shown(), 150);
}

TEST(RuleState, OverComparesTheMeanOnceTheSpanIsWatched) {
  RuleState s(only_rule("cpu > 50% over 3s"));
  const int64_t sec = 1'000'000'000;
  EXPECT_FALSE(s.observe(0, 1.0));  // 3 s not yet watched
  EXPECT_FALSE(s.observe(1 * sec, 1.0));
  EXPECT_FALSE(s.observe(2 * sec, 1.0));
  EXPECT_TRUE(s.observe(3 * sec, 0.0));  // values of (0, 3]: 1, 1, 0
  EXPECT_DOUBLE_EQ(*s.shown(), 2.0 / 3);
  EXPECT_FALSE(s.observe(4 * sec, 0.0));  // 1, 0, 0
  EXPECT_DOUBLE_EQ(*s.shown(), 1.0 / 3);
  EXPECT_FALSE(s.observe(100 * sec, std::nullopt));  // nothing in the span: no mean
  EXPECT_FALSE(s.shown().has_value());
  EXPECT_TRUE(s.observe(101 * sec, 0.9));  // watched long enough; the mean of what is there
}

// A day at 10 Hz: the running mean does not drift from the values.
TEST(RuleState, OverDoesNotDriftOverADay) {
  RuleState s(only_rule("cpu > 30% over 10s"));
  const int64_t tick = 100'000'000;
  const int64_t week = 24LL * 3600 * 10;
  for (int64_t i = 0; i < week; ++i) s.observe(i * tick, (i % 10) * 0.1 + 1e-9 * (i % 7));
  for (int64_t i = week; i < week + 100; ++i) s.observe(i * tick, 0.3);
  EXPECT_NEAR(*s.shown(), 0.3, 1e-12);
}

}  // namespace
}  // namespace hearth::watch
