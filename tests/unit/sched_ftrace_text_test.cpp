// sched.ftrace.txt's lines, byte for byte against the kernel's `trace` file.
#include "collectors/sched/ftrace_text.h"

#include <gtest/gtest.h>

namespace hearth::sched {
namespace {

TEST(SchedFtraceText, LinesMatchTheKernelsTraceFile) {
  SwitchEvent s;
  s.ctx = {4602348630123, 1, 26877, "bash", 0x01, 0x02};
  s.prev_pid = 26877;
  s.prev_prio = 120;
  s.prev_comm = "bash";
  s.prev_state = "R+";
  s.next_pid = 26828;
  s.next_prio = 89;
  s.next_comm = "heartbeat";
  WakingEvent w;
  w.ctx = {4602348837000, 1, 26877, "bash", 0x09, 0x03};
  w.pid = 26828;
  w.prio = 89;
  w.target_cpu = 1;
  w.comm = "heartbeat";
  SwitchEvent idle;
  idle.ctx = {5000000001000, 0, 0, "", 0x01, 0x02};
  idle.prev_comm = "swapper/0";
  idle.prev_state = "R";
  idle.next_pid = 5;
  idle.next_comm = "x";
  MigrateEvent m;
  m.ctx = {5000000002000, 0, 33, "", 0x01, 0x02};
  m.pid = 5;
  m.prio = 120;
  m.orig_cpu = 0;
  m.dest_cpu = 1;
  m.comm = "x";
  WakingEvent enqueued = w;  // sched_wakeup: same fields
  enqueued.enqueued = true;
  enqueued.ctx.ts_ns = 4602348839000;
  enqueued.ctx.common_flags = 0x0d;
  std::string out;
  append_ftrace_line(&out, s);
  append_ftrace_line(&out, w);
  append_ftrace_line(&out, enqueued);
  append_ftrace_line(&out, idle);
  append_ftrace_line(&out, m);
  EXPECT_EQ(out,
            "            bash-26877   [001] d..2.  4602.348630: sched_switch: prev_comm=bash "
            "prev_pid=26877 prev_prio=120 prev_state=R+ ==> next_comm=heartbeat next_pid=26828 "
            "next_prio=89\n"
            "            bash-26877   [001] d.h3.  4602.348837: sched_waking: comm=heartbeat "
            "pid=26828 prio=89 target_cpu=001\n"
            "            bash-26877   [001] dNh3.  4602.348839: sched_wakeup: comm=heartbeat "
            "pid=26828 prio=89 target_cpu=001\n"
            "          <idle>-0       [000] d..2.  5000.000001: sched_switch: prev_comm=swapper/0 "
            "prev_pid=0 prev_prio=0 prev_state=R ==> next_comm=x next_pid=5 next_prio=0\n"
            "           <...>-33      [000] d..2.  5000.000002: sched_migrate_task: comm=x pid=5 "
            "prio=120 orig_cpu=0 dest_cpu=1\n");
  EXPECT_EQ(ftrace_text_header().rfind("# tracer: nop\n", 0), 0u);
}

}  // namespace
}  // namespace hearth::sched
