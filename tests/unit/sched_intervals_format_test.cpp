// formats/sched_intervals.h: the writer's exact text, round trips of both files through the
// writer and the reader (in memory and through a file), one clear error per kind of damage
// (naming the line; a cut file says it is cut), the rows before the damage kept, and the moment
// view's lookup (intervals_at).
#include "formats/sched_intervals.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/unit/temp_dir.h"

namespace hearth::sched_intervals {
namespace {

sched_tsv::SchedHeader test_header() {
  sched_tsv::SchedHeader h;
  h.targets = {{4242, "app"}};
  h.window_start_ns = 1'000'000'000;
  h.window_end_ns = 5'000'000'000;
  h.sched_switch = 12;
  h.sched_wakeup = 3;
  h.lost = 0;
  return h;
}

constexpr Kept kWhole{1'000'000'000, 1'000'000'000};   // every interval kept
constexpr Kept kSliced{3'000'000'000, 1'000'000'000};  // two 1 s slots, then intervals

std::vector<Interval> test_intervals() {
  return {
      {4242, 4242, 3'000'000'000, 3'500'000'000, kStateOnCpu, 1, -1},
      {4242, 4242, 3'500'000'000, 3'600'000'000, kStateRunnable, 1, 4243},  // preempted by 4243
      {4242, 4242, 3'600'000'000, 5'000'000'000, kStateOnCpu, 0, -1},
      {4243, 4242, 3'000'000'000, 3'500'000'000, kStateSleeping, 0, 0},  // woken by an interrupt
      {4243, 4242, 3'500'000'000, 3'500'000'100, kStateRunnable, 1, -1},
      {4243, 4242, 3'500'000'100, 3'600'000'000, kStateOnCpu, 1, -1},
      {4243, 4242, 3'600'000'000, 4'000'000'000, 'T', 1, 4242},  // job-control stop, SIGCONT
      {4243, 4242, 4'000'000'000, 4'100'000'000, kStateUnknown, 1, -1},
      {4243, 4242, 4'100'000'000, 4'500'000'000, 'X', 1, -1},  // exited
      {4250, 0, 4'600'000'000, 4'700'000'000, kStateTraced, 0, 17},
  };
}

std::vector<Slot> test_slots() {
  return {
      {4242, 4242, 1'000'000'000, 600'000'000, 400'000'000, 0, 0, 0, 0, 31},
      {4242, 4242, 2'000'000'000, 1'000'000'000, 0, 0, 0, 0, 0, 0},
      {4243, 4242, 2'000'000'000, 0, 10, 999'999'990, 0, 0, 0, 1},
  };
}

std::string intervals_text(const Kept& kept, const std::vector<Interval>& rows) {
  std::string out = format_header(FileKind::kIntervals, test_header(), kept);
  for (const Interval& r : rows) append_interval(&out, r);
  append_end(&out, rows.size());
  return out;
}

std::string slots_text(const std::vector<Slot>& rows) {
  std::string out = format_header(FileKind::kSlots, test_header(), kSliced);
  for (const Slot& r : rows) append_slot(&out, r);
  append_end(&out, rows.size());
  return out;
}

bool same_interval(const Interval& a, const Interval& b) {
  return a.tid == b.tid && a.pid == b.pid && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
         a.state == b.state && a.cpu == b.cpu && a.by == b.by;
}

// The error of parsing TEXT as "d/sched.intervals.tsv"; "" when it parses.
std::string interval_error(const std::string& text) {
  Result<IntervalsFile> f = parse_intervals(text, "d/sched.intervals.tsv");
  return f ? "" : f.error().message;
}

TEST(SchedIntervalsFormat, WriterTextIsTheDocumentedOne) {
  std::vector<Interval> rows = test_intervals();
  rows.resize(2);
  EXPECT_EQ(intervals_text(kSliced, rows),
            "# hearth sched.intervals 1\n"
            "# target\tpid=4242\tcomm=app\n"
            "# window_ns\t1000000000\t5000000000\t4000000000\n"
            "# events\tsched_switch=12\tsched_waking=0\tsched_wakeup=3\tsched_migrate_task=0\n"
            "# lost\t0\n"
            "# kept\twhole_from_ns=3000000000\tslot_ns=1000000000\n"
            "tid\tpid\tstart_ns\tend_ns\tstate\tcpu\tby\n"
            "4242\t4242\t3000000000\t3500000000\tC\t1\t-1\n"
            "4242\t4242\t3500000000\t3600000000\tR\t1\t4243\n"
            "# end\t2\n");
  std::vector<Slot> slots = test_slots();
  slots.resize(1);
  std::string s = slots_text(slots);
  EXPECT_NE(s.find("# hearth sched.slots 1\n"), std::string::npos);
  EXPECT_NE(s.find("\ntid\tpid\tslot_start_ns\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\t"
                   "stopped_ns\tother_ns\tswitches\n"
                   "4242\t4242\t1000000000\t600000000\t400000000\t0\t0\t0\t0\t31\n# end\t1\n"),
            std::string::npos)
      << s;
}

// Slots from before the tracer (hearth watch's ring): the `# untraced` line, written and read,
// and what the reader refuses in it.
TEST(SchedIntervalsFormat, UntracedSlotsAreMarkedAndReadBack) {
  const Untraced mark{3'000'000'000, 1'000'000'000, "proc"};
  std::string text = format_header(FileKind::kSlots, test_header(), kSliced, mark);
  EXPECT_NE(text.find("# kept\twhole_from_ns=3000000000\tslot_ns=1000000000\n"
                      "# untraced\tuntil_ns=3000000000\tresolution_ns=1000000000\tsource=proc\n"
                      "tid\t"),
            std::string::npos)
      << text;
  for (const Slot& r : test_slots()) append_slot(&text, r);
  append_end(&text, test_slots().size());
  Result<IntervalsFile> f = parse_intervals(text, "d/sched.slots.tsv");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->header.untraced.until_ns, 3'000'000'000u);
  EXPECT_EQ(f->header.untraced.resolution_ns, 1'000'000'000u);
  EXPECT_EQ(f->header.untraced.source, "proc");
  EXPECT_EQ(f->slots.size(), test_slots().size());
  // Without the line: no mark.
  Result<IntervalsFile> plain = parse_intervals(slots_text(test_slots()), "x");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->header.untraced.until_ns, 0u);

  auto error_with = [&](const std::string& line) {
    std::string t = slots_text(test_slots());
    t.insert(t.find("tid\tpid"), line + "\n");
    Result<IntervalsFile> r = parse_intervals(t, "d/sched.slots.tsv");
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(error_with("# untraced\tuntil_ns=2000000000\tresolution_ns=1000000000\tsource=proc"),
            "");
  EXPECT_NE(error_with("# untraced\tuntil_ns=4000000000\tresolution_ns=1\tsource=proc")
                .find("outside [window start, whole_from_ns]"),
            std::string::npos);
  EXPECT_NE(error_with("# untraced\tuntil_ns=2500000000\tresolution_ns=1\tsource=proc")
                .find("not a whole number of slots"),
            std::string::npos);
  EXPECT_NE(error_with("# untraced\tuntil_ns=2000000000\tresolution_ns=0\tsource=proc")
                .find("resolution_ns is 0"),
            std::string::npos);
  EXPECT_NE(error_with("# untraced\tuntil_ns=2000000000\tresolution_ns=1\tsource=a b")
                .find("source=WORD"),
            std::string::npos);
  EXPECT_NE(error_with("# untraced\tuntil_ns=2000000000").find("needs until_ns"),
            std::string::npos);
  EXPECT_NE(error_with("# untraced\tuntil_ns=2000000000\tresolution_ns=1\tsource=proc\n"
                       "# untraced\tuntil_ns=2000000000\tresolution_ns=1\tsource=proc")
                .find("appears twice"),
            std::string::npos);
}

TEST(SchedIntervalsFormat, IntervalsRoundTrip) {
  const std::vector<Interval> rows = test_intervals();
  Result<IntervalsFile> f = parse_intervals(intervals_text(kSliced, rows), "x");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->header.kind, FileKind::kIntervals);
  EXPECT_EQ(f->header.version, 1);
  EXPECT_EQ(f->header.window_start_ns, 1'000'000'000u);
  EXPECT_EQ(f->header.window_end_ns, 5'000'000'000u);
  EXPECT_EQ(f->header.kept.whole_from_ns, 3'000'000'000u);
  EXPECT_EQ(f->header.kept.slot_ns, 1'000'000'000u);
  ASSERT_EQ(f->header.targets.size(), 1u);
  EXPECT_EQ(f->header.targets[0], "pid=4242 comm=app");
  ASSERT_EQ(f->intervals.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    EXPECT_TRUE(same_interval(f->intervals[i], rows[i])) << i;
  EXPECT_EQ(f->thread_first, (std::vector<size_t>{0, 3, 9}));
  EXPECT_TRUE(f->slots.empty());
}

TEST(SchedIntervalsFormat, SlotsRoundTrip) {
  const std::vector<Slot> rows = test_slots();
  Result<IntervalsFile> f = parse_intervals(slots_text(rows), "x");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->header.kind, FileKind::kSlots);
  ASSERT_EQ(f->slots.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Slot& a = f->slots[i];
    const Slot& b = rows[i];
    EXPECT_EQ(a.tid, b.tid);
    EXPECT_EQ(a.pid, b.pid);
    EXPECT_EQ(a.slot_start_ns, b.slot_start_ns);
    EXPECT_EQ(a.on_cpu_ns, b.on_cpu_ns);
    EXPECT_EQ(a.runnable_ns, b.runnable_ns);
    EXPECT_EQ(a.sleeping_ns, b.sleeping_ns);
    EXPECT_EQ(a.switches, b.switches);
  }
  EXPECT_TRUE(f->intervals.empty());
}

TEST(SchedIntervalsFormat, WritesAtomicallyAndReadsBack) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::vector<Interval> rows = test_intervals();
  size_t i = 0;
  Result<uint64_t> n =
      write_intervals(dir / "sched.intervals.tsv", test_header(), kSliced, [&](Interval* r) {
        if (i == rows.size()) return false;
        *r = rows[i++];
        return true;
      });
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, rows.size());
  Result<IntervalsFile> f = read_intervals(dir / "sched.intervals.tsv");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->intervals.size(), rows.size());
  // No rows: still a whole file.
  n = write_slots(dir / "sched.slots.tsv", test_header(), kSliced, [](Slot*) { return false; });
  ASSERT_TRUE(n);
  Result<IntervalsFile> g = read_intervals(dir / "sched.slots.tsv");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_TRUE(g->slots.empty());
  Result<IntervalsFile> missing = read_intervals(dir / "nope.tsv");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.tsv"), std::string::npos);
}

// Each kind of damage: one line naming the file and the line.
TEST(SchedIntervalsFormat, ErrorsNameFileAndLine) {
  const std::string good = intervals_text(kSliced, test_intervals());
  ASSERT_EQ(interval_error(good), "");
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  const std::string p = "d/sched.intervals.tsv:";
  struct Case {
    std::string text, error;
  };
  const std::vector<Case> cases = {
      {"", "d/sched.intervals.tsv: empty file"},
      {replaced("sched.intervals 1", "sched.states 2"), p + "1: sched.`states` is not read here"},
      {replaced("sched.intervals 1", "sched.intervals 2"),
       p + "1: sched.intervals version 2 is not supported"},
      {replaced("# kept\twhole_from_ns=3000000000\tslot_ns=1000000000\n", ""),
       p + "6: the header lacks a `# kept` line"},
      {replaced("whole_from_ns=3000000000", "whole_from_ns=6000000000"),
       p + "7: `# kept`: whole_from_ns 6000000000 is outside the window"},
      {replaced("whole_from_ns=3000000000", "whole_from_ns=3000000001"),
       p + "7: `# kept`: whole_from_ns is not a whole number of slots"},
      {replaced("slot_ns=1000000000", "slot_ns=0"), p + "6: `# kept`: slot_ns is 0"},
      {replaced("slot_ns=1000000000", "slot=1"), p + "6: `# kept` expects `slot_ns=NUMBER`"},
      {replaced("\tcpu\tby\n", "\tcpu\n"), p + "7: expected the column names `tid pid start_ns"},
      {replaced("\tR\t1\t4243\n", "\tR\t1\n"), p + "9: 6 tab-separated fields, expected 7"},
      {replaced("\tR\t1\t4243\n", "\tRR\t1\t4243\n"), p + "9: state `RR` is not one letter"},
      {replaced("\tR\t1\t4243\n", "\t1\t1\t4243\n"), p + "9: state `1` is not one letter"},
      {replaced("\tR\t1\t4243\n", "\tR\t-2\t4243\n"),
       p + "9: cpu `-2` is not an integer from -1 to 8191"},
      {replaced("\tR\t1\t4243\n", "\tR\t1\t4194305\n"), p + "9: by `4194305` is not an integer"},
      {replaced("4242\t4242\t3000000000\t3500000000", "0\t4242\t3000000000\t3500000000"),
       p + "8: tid 0 (the idle task) has no intervals"},
      {replaced("3000000000\t3500000000\tC", "3500000000\t3500000000\tC"),
       p + "8: the interval is empty or reversed"},
      {replaced("3000000000\t3500000000\tC", "2000000000\t3500000000\tC"),
       p + "8: the interval is outside the kept window [3000000000, 5000000000]"},
      {replaced("3600000000\t5000000000\tC", "3600000000\t5000000001\tC"),
       p + "10: the interval is outside the kept window"},
      {replaced("3500000000\t3600000000\tR", "3400000000\t3600000000\tR"),
       p + "9: this interval of tid 4242 starts at 3400000000, before the previous one ends "
           "(3500000000)"},
      {replaced("4250\t0\t", "4200\t0\t"), p + "17: tid 4200 after tid 4243: rows are sorted"},
      {replaced("# end\t10\n", "# end\t9\n"), p + "18: `# end` says 9 rows, the file has 10"},
      {replaced("# end\t10\n", "# end\n"), p + "18: `# end` needs the count of rows"},
      {good + "4250\t0\t4800000000\t4900000000\tS\t0\t-1\n", p + "19: a line after `# end`"},
  };
  for (const Case& c : cases) {
    std::string e = interval_error(c.text);
    EXPECT_EQ(e.rfind(c.error, 0), 0u) << "got: " << e << "\nwanted: " << c.error;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

// A file cut anywhere is refused, naming the line where it stops.
TEST(SchedIntervalsFormat, TruncatedFileNamesTheLine) {
  const std::string good = intervals_text(kSliced, test_intervals());
  // Cut right after a whole row (line 10): only the missing `# end` shows it.
  size_t after_row = good.find("\n4242\t4242\t3600000000");
  ASSERT_NE(after_row, std::string::npos);
  after_row = good.find('\n', after_row + 1) + 1;
  EXPECT_EQ(interval_error(good.substr(0, after_row)),
            "d/sched.intervals.tsv:10: the file ends without its `# end` line: truncated after "
            "this line");
  // Cut inside a row: its fields are missing.
  std::string mid = good.substr(0, after_row + 12);
  EXPECT_EQ(
      interval_error(mid).rfind("d/sched.intervals.tsv:11: 3 tab-separated fields, expected 7 "
                                "(the file is cut short?)",
                                0),
      0u)
      << interval_error(mid);
  // Cut in the header.
  EXPECT_EQ(interval_error(good.substr(0, good.find("tid\tpid"))),
            "d/sched.intervals.tsv:6: the file ends before its column names line (truncated?)");
  // Cut in `# end`'s line end.
  EXPECT_EQ(interval_error(good.substr(0, good.size() - 1)),
            "d/sched.intervals.tsv:18: the last line has no line end (truncated?)");
  // Every cut is refused (the file ends with `# end ROWS` and a line end).
  for (size_t n = 0; n < good.size(); ++n) EXPECT_NE(interval_error(good.substr(0, n)), "") << n;
}

TEST(SchedIntervalsFormat, SlotErrors) {
  const std::string good = slots_text(test_slots());
  ASSERT_EQ(interval_error(good), "");
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  const std::string p = "d/sched.intervals.tsv:";
  EXPECT_EQ(interval_error(replaced("4242\t4242\t2000000000", "4242\t4242\t2500000000"))
                .rfind(p + "9: slot_start_ns 2500000000 is not the start of a slot", 0),
            0u);
  EXPECT_EQ(interval_error(replaced("4242\t4242\t2000000000", "4242\t4242\t3000000000"))
                .rfind(p + "9: slot_start_ns 3000000000 is not the start of a slot before", 0),
            0u);
  EXPECT_EQ(interval_error(replaced("\t0\t10\t999999990\t", "\t0\t11\t999999990\t"))
                .rfind(p + "10: the slot's times add up to more than slot_ns", 0),
            0u);
  EXPECT_EQ(interval_error(replaced("4242\t4242\t2000000000", "4242\t4242\t1000000000"))
                .rfind(p + "9: slot of tid 4242 at 1000000000 out of order or repeated", 0),
            0u);
}

// What comes before the damage is kept for a picture to draw.
TEST(SchedIntervalsFormat, PrefixKeepsTheRowsBeforeTheDamage) {
  std::string text = intervals_text(kSliced, test_intervals());
  text.replace(text.find("\tT\t"), 3, "\t!\t");  // the 7th row, line 14
  Error problem;
  IntervalsFile f = parse_intervals_prefix(text, "d/x.tsv", &problem);
  EXPECT_EQ(problem.message.rfind("d/x.tsv:14: state `!`", 0), 0u) << problem.message;
  EXPECT_EQ(f.intervals.size(), 6u);
  f = parse_intervals_prefix(intervals_text(kSliced, test_intervals()), "d/x.tsv", &problem);
  EXPECT_EQ(problem.message, "");
  EXPECT_EQ(f.intervals.size(), test_intervals().size());
}

TEST(SchedIntervalsFormat, StateClasses) {
  EXPECT_EQ(state_class('C'), StateClass::kOnCpu);
  EXPECT_EQ(state_class('R'), StateClass::kRunnable);
  EXPECT_EQ(state_class('S'), StateClass::kSleeping);
  EXPECT_EQ(state_class('D'), StateClass::kBlocked);
  EXPECT_EQ(state_class('t'), StateClass::kStopped);
  for (char c : {'T', 'I', 'X', 'Z', 'P', '?'}) EXPECT_EQ(state_class(c), StateClass::kOther) << c;
  EXPECT_TRUE(valid_state('?'));
  EXPECT_FALSE(valid_state('+'));
  EXPECT_FALSE(valid_state('\0'));
}

// The moment view: each thread's interval at an instant.
TEST(SchedIntervalsFormat, IntervalsAtAnInstant) {
  Result<IntervalsFile> f = parse_intervals(intervals_text(kSliced, test_intervals()), "x");
  ASSERT_TRUE(f) << f.error().message;
  auto at = [&](uint64_t t) {
    std::string out;
    for (const Interval& r : intervals_at(*f, t)) {
      out += std::to_string(r.tid) + ":" + r.state + " ";
    }
    return out;
  };
  EXPECT_EQ(at(2'999'999'999), "");                // before the kept intervals
  EXPECT_EQ(at(3'000'000'000), "4242:C 4243:S ");  // a start is inside
  EXPECT_EQ(at(3'500'000'000), "4242:R 4243:R ");  // an end is outside
  EXPECT_EQ(at(3'500'000'100), "4242:R 4243:C ");
  EXPECT_EQ(at(4'650'000'000), "4242:C 4250:t ");  // 4243 has exited
  EXPECT_EQ(at(5'000'000'000), "");                // the window's end
  std::vector<Interval> r = intervals_at(*f, 3'550'000'000);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].by, 4243);
  EXPECT_EQ(r[0].start_ns, 3'500'000'000u);  // how long it has been in that state
  EXPECT_EQ(r[1].cpu, 1);
}

}  // namespace
}  // namespace hearth::sched_intervals
