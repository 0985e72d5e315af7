// The pieces of the BPF capture that need no kernel: kernel symbol lookup and task states.
#include <gtest/gtest.h>

#include "collectors/proc/kallsyms.h"
#include "collectors/stacks/capture_bpf.h"
#include "collectors/stacks/ptrace_session.h"

namespace hearth {
namespace {

TEST(Kallsyms, FindsTheFunctionHoldingAReturnAddress) {
  const char* text =
      "ffffffff81000000 T _stext\n"
      "ffffffff81001000 t do_nanosleep\n"
      "ffffffff81002000 D some_data\n"  // data: never a frame
      "ffffffff81003000 T schedule\n"
      "ffffffff81004000 t __do_sys_pause\n"  // aliases: the first listed is the name
      "ffffffff81004000 T __x64_sys_pause\n"
      "ffffffffc0a01000 t ext4_sync_file\t[ext4]\n"
      "0000000000000000 A fixed_percpu_data\n"
      "garbage line\n";
  auto k = proc::Kallsyms::parse(text);
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->size(), 6u);
  EXPECT_EQ(k->name_of_return_address(0xffffffff81004010), "__do_sys_pause");
  EXPECT_EQ(k->name_of_return_address(0xffffffff81001010), "do_nanosleep");
  // A return address right after a call at the end of a function belongs to that function.
  EXPECT_EQ(k->name_of_return_address(0xffffffff81003000), "do_nanosleep");
  EXPECT_EQ(k->name_of_return_address(0xffffffff81003001), "schedule");
  EXPECT_EQ(k->name_of_return_address(0xffffffffc0a01234), "ext4_sync_file");
  EXPECT_EQ(k->name_of_return_address(0x1000), "");
  EXPECT_EQ(k->name_of_return_address(0), "");
}

TEST(Kallsyms, HiddenAddressesAreAnError) {
  auto k = proc::Kallsyms::parse("0000000000000000 T _stext\n0000000000000000 t foo\n");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("kptr_restrict"), std::string::npos);
}

TEST(TaskState, LettersAsProcShowsThem) {
  using stacks::task_state_letter;
  EXPECT_EQ(task_state_letter(0x0), 'R');
  EXPECT_EQ(task_state_letter(0x1), 'S');
  EXPECT_EQ(task_state_letter(0x2), 'D');
  EXPECT_EQ(task_state_letter(0x4), 'T');
  EXPECT_EQ(task_state_letter(0x8), 't');
  EXPECT_EQ(task_state_letter(0x10), 'X');
  EXPECT_EQ(task_state_letter(0x20), 'Z');
  EXPECT_EQ(task_state_letter(0x40), 'P');
  EXPECT_EQ(task_state_letter(0x402), 'I');        // TASK_IDLE
  EXPECT_EQ(task_state_letter(0x102), 'D');        // TASK_KILLABLE
  EXPECT_EQ(task_state_letter(0x1000), 'D');       // TASK_RTLOCK_WAIT
  EXPECT_EQ(task_state_letter(0x2001), 'S');       // freezable sleep
  EXPECT_EQ(task_state_letter(0x8 | 0x100), 't');  // TASK_TRACED | TASK_WAKEKILL
}

// The ptrace method's state: from the registers of the stop and the state read just before.
TEST(TaskState, AtAPtraceStopFromTheRegisters) {
  using stacks::state_at_stop;
  auto regs = [](long long orig_rax, long long rax) {
    user_regs_struct r = {};
    r.orig_rax = static_cast<unsigned long long>(orig_rax);
    r.rax = static_cast<unsigned long long>(rax);
    return r;
  };
  // Interrupted while waiting in a system call: asleep, whatever /proc said a moment before.
  EXPECT_EQ(state_at_stop(regs(230, -516), 'R'), 'S');  // clock_nanosleep: restart block
  EXPECT_EQ(state_at_stop(regs(202, -512), 'S'), 'S');  // futex wait: ERESTARTSYS
  EXPECT_EQ(state_at_stop(regs(232, -514), 'S'), 'S');  // epoll_wait: ERESTARTNOHAND
  EXPECT_EQ(state_at_stop(regs(7, -513), '?'), 'S');    // poll: ERESTARTNOINTR
  // In user code: running or runnable, whatever /proc said.
  EXPECT_EQ(state_at_stop(regs(-1, 42), 'S'), 'R');
  EXPECT_EQ(state_at_stop(regs(-1, -516), 'S'), 'R');  // user code holding that value
  // A system call that completed before the stop landed (woken by the interrupt, the thread
  // got a CPU only after its timer expired): asleep if it was asleep just before.
  EXPECT_EQ(state_at_stop(regs(230, 0), 'S'), 'S');
  EXPECT_EQ(state_at_stop(regs(0, 4096), 'D'), 'D');
  EXPECT_EQ(state_at_stop(regs(0, 17), 'R'), 'R');  // a read running in the kernel
  EXPECT_EQ(state_at_stop(regs(202, -4), '?'), 'R');
}

}  // namespace
}  // namespace hearth
