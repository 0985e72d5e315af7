// The raw samples format (formats/raw_samples.h): the writer's bytes as the README shows them,
// the round trip through the reader, and the reader's errors.
#include "formats/raw_samples.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/temp_dir.h"

namespace hearth::raw_samples {
namespace {

// Two rounds, the second after an execve; a process name with a tab and a ';'.
std::string written() {
  std::string out;
  append_header(&out, 4242, "app;x\ty");
  append_round(&out, {1200345678, 3, 5, 1, 41000, false});
  append_sample(&out, {1200345678, 4243, 'S', "[worker-1 tid=4243];start_thread;futex_wait_[k]"});
  append_sample(&out, {1200345678, 4242, 'R', "[app tid=4242];main"});
  append_round(&out, {2200000000, 0, 0, 2, 0, true});
  append_sample(&out, {2200000000, 4242, 't', "[app tid=4242];[unknown]"});
  return out;
}

TEST(RawSamples, WriterBytes) {
  EXPECT_EQ(written(),
            "# hearth stacks raw 1\tpid=4242\tname=app:x?y\n"
            "# time_ns\ttid\tstate\tstack\n"
            "# round 1200345678\tcopied=3\treused=5\tstopped=1\tstall_ns=41000\n"
            "1200345678\t4243\tS\t[worker-1 tid=4243];start_thread;futex_wait_[k]\n"
            "1200345678\t4242\tR\t[app tid=4242];main\n"
            "# exec\tthe target called execve before this round: a new program from here on\n"
            "# round 2200000000\tcopied=0\treused=0\tstopped=2\tstall_ns=0\n"
            "2200000000\t4242\tt\t[app tid=4242];[unknown]\n");
}

TEST(RawSamples, RoundTrip) {
  Result<RawFile> f = parse_raw_samples(written(), "x.raw.txt");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->version, 1);
  EXPECT_EQ(f->pid, 4242);
  EXPECT_EQ(f->name, "app:x?y");
  ASSERT_EQ(f->rounds.size(), 2u);
  EXPECT_EQ(f->rounds[0].time_ns, 1200345678u);
  EXPECT_EQ(f->rounds[0].copied, 3u);
  EXPECT_EQ(f->rounds[0].reused, 5u);
  EXPECT_EQ(f->rounds[0].stopped, 1u);
  EXPECT_EQ(f->rounds[0].stall_ns, 41000u);
  EXPECT_FALSE(f->rounds[0].after_exec);
  EXPECT_TRUE(f->rounds[1].after_exec);
  EXPECT_EQ(f->rounds[1].stopped, 2u);
  EXPECT_EQ(f->round_first_sample, (std::vector<size_t>{0, 2}));
  ASSERT_EQ(f->samples.size(), 3u);
  EXPECT_EQ(f->samples[0].time_ns, 1200345678u);
  EXPECT_EQ(f->samples[0].tid, 4243);
  EXPECT_EQ(f->samples[0].state, 'S');
  EXPECT_EQ(f->samples[0].stack, "[worker-1 tid=4243];start_thread;futex_wait_[k]");
  EXPECT_EQ(f->samples[2].state, 't');
  EXPECT_EQ(f->samples[2].stack, "[app tid=4242];[unknown]");
  // And back: the same bytes.
  std::string again;
  append_header(&again, f->pid, f->name);
  for (size_t r = 0; r < f->rounds.size(); ++r) {
    append_round(&again, f->rounds[r]);
    size_t end = r + 1 < f->rounds.size() ? f->round_first_sample[r + 1] : f->samples.size();
    for (size_t i = f->round_first_sample[r]; i < end; ++i) append_sample(&again, f->samples[i]);
  }
  EXPECT_EQ(again, written());
}

// A file of several processes (hearth stacks --children): the processes in the header, the
// samples' roots naming them.
TEST(RawSamples, ProcessSetRoundTrip) {
  std::string out;
  append_set_header(&out, {{100, "postgres"}, {101, "post\tgres;x"}});
  append_round(&out, {5, 1, 0, 0, 0, false});
  append_sample(&out, {5, 100, 'S', "[postgres pid=100];main;epoll_wait"});
  append_round(&out, {7, 1, 0, 0, 0, false});
  append_sample(&out, {7, 101, 'S', "[postgres pid=101];main;ProcSleep"});
  EXPECT_EQ(out,
            "# hearth stacks raw 1\tprocesses=2\n"
            "# process\tpid=100\tname=postgres\n"
            "# process\tpid=101\tname=post?gres:x\n"
            "# time_ns\ttid\tstate\tstack\n"
            "# round 5\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
            "5\t100\tS\t[postgres pid=100];main;epoll_wait\n"
            "# round 7\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
            "7\t101\tS\t[postgres pid=101];main;ProcSleep\n");
  Result<RawFile> f = parse_raw_samples(out, "set.raw.txt");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->pid, 0);
  ASSERT_EQ(f->processes.size(), 2u);
  EXPECT_EQ(f->processes[0].pid, 100);
  EXPECT_EQ(f->processes[0].name, "postgres");
  EXPECT_EQ(f->processes[1].pid, 101);
  EXPECT_EQ(f->processes[1].name, "post?gres:x");
  ASSERT_EQ(f->samples.size(), 2u);
  EXPECT_EQ(f->samples[1].stack, "[postgres pid=101];main;ProcSleep");
  Result<RawFile> bad = parse_raw_samples("# hearth stacks raw 1\n# process\tpid=x\n", "b.txt");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "b.txt:2: `# process` pid `x` is not a process id");
}

TEST(RawSamples, ReadsAFileAndSkipsOtherComments) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::ofstream(dir / "s.raw.txt") << "# hearth stacks raw 1\tpid=7\n# a note\r\n\n"
                                      "5\t8\tD\t[x tid=8];read_[k]\r\n";
  Result<RawFile> f = read_raw_samples(dir / "s.raw.txt");
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->pid, 7);
  EXPECT_EQ(f->name, "");
  EXPECT_TRUE(f->rounds.empty());
  ASSERT_EQ(f->samples.size(), 1u);
  EXPECT_EQ(f->samples[0].stack, "[x tid=8];read_[k]");
  EXPECT_FALSE(read_raw_samples(dir / "missing.txt").has_value());
}

TEST(RawSamples, ErrorsNameTheLine) {
  auto error_of = [](const std::string& text) {
    Result<RawFile> f = parse_raw_samples(text, "x.txt");
    return f ? std::string("(parsed)") : f.error().message;
  };
  const std::string head = "# hearth stacks raw 1\tpid=1\tname=a\n";
  EXPECT_EQ(error_of(""), "x.txt: empty file, not a hearth raw samples file");
  EXPECT_EQ(error_of("1\t2\tS\tx\n"),
            "x.txt:1: not a hearth raw samples file: expected `# hearth stacks raw 1` first, "
            "found `1?2?S?x`");
  EXPECT_EQ(error_of("# hearth stacks raw 2\n"),
            "x.txt:1: stacks raw version 2 is not supported (this hearth reads version 1)");
  EXPECT_EQ(error_of("# hearth stacks raw 1\tpid=-1\n"), "x.txt:1: pid `-1` is not a process id");
  EXPECT_EQ(error_of(head + "1\t2\tS\n"),
            "x.txt:2: a sample needs 4 tab-separated fields (time_ns tid state stack), found "
            "`1?2?S`");
  EXPECT_EQ(error_of(head + "x\t2\tS\ta\n"), "x.txt:2: time `x` is not a number");
  EXPECT_EQ(error_of(head + "1\t9999999\tS\ta\n"), "x.txt:2: tid `9999999` is not a thread id");
  EXPECT_EQ(error_of(head + "1\t2\tSS\ta\n"), "x.txt:2: state `SS` is not one letter");
  EXPECT_EQ(error_of(head + "1\t2\tS\t\n"), "x.txt:2: a sample has an empty stack");
  EXPECT_EQ(error_of(head + "1\t2\tS\ta\tb\n"),
            "x.txt:2: a stack holds a tab or another control byte");
  EXPECT_EQ(error_of(head + "1\t2\tS\ta\rb\n"),
            "x.txt:2: a stack holds a tab or another control byte");
  EXPECT_EQ(error_of(head + "# round 5\tcopied=1\n"),
            "x.txt:2: `# round` needs TIME copied=N reused=N stopped=N stall_ns=N");
  EXPECT_EQ(error_of(head + "# round 5\tcopied=1\treused=x\tstopped=0\tstall_ns=0\n"),
            "x.txt:2: `# round` field `reused=x` is not reused=N");
}

}  // namespace
}  // namespace hearth::raw_samples
