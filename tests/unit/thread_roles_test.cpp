// Thread roles (collectors/stacks/thread_roles.h): the entry function of a stack, the most
// frequent entry of a thread, and the role rule (named threads keep their name).
#include "collectors/stacks/thread_roles.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hearth::stacks {
namespace {

using Frames = std::vector<std::string>;

TEST(ThreadRoles, FunctionNamesLoseReturnTypeParametersAndSuffixes) {
  EXPECT_EQ(function_of("handle_one_connection"), "handle_one_connection");
  EXPECT_EQ(function_of("tpool::thread_pool_generic::worker_main(tpool::worker_data*)"),
            "tpool::thread_pool_generic::worker_main");
  EXPECT_EQ(function_of("io_handler_thread_[i]"), "io_handler_thread");
  EXPECT_EQ(function_of("void ns::Pool<int, std::less<int> >::run(int) const_[i]"),
            "ns::Pool<int, std::less<int> >::run");
  EXPECT_EQ(function_of("std::cv_status std::condition_variable::wait_for<long, std::ratio<1l, "
                        "1000l> >(std::unique_lock<std::mutex>&, long const&)"),
            "std::condition_variable::wait_for<long, std::ratio<1l, 1000l> >");
  EXPECT_EQ(function_of("main::{lambda()#1}::operator()() const"),
            "main::{lambda()#1}::operator()");
  EXPECT_EQ(function_of("(anonymous namespace)::reaper(void*)"), "(anonymous namespace)::reaper");
  EXPECT_EQ(function_of("bool operator< <int>(A<int> const&, A<int> const&)"), "operator< <int>");
  EXPECT_EQ(function_of("Queue::operator<<(int)"), "Queue::operator<<");
  EXPECT_EQ(function_of("Handle::operator->() &&"), "Handle::operator->");
  EXPECT_EQ(function_of("Flag::operator bool() const"), "Flag::operator bool");
  EXPECT_EQ(function_of("operator new(unsigned long)"), "operator new");
  EXPECT_EQ(function_of("worker(int) [clone .cold]"), "worker");
  EXPECT_EQ(function_of("js_loop_[j]"), "js_loop");
}

TEST(ThreadRoles, ThreadStartTrampolines) {
  for (const char* f :
       {"__clone3", "clone", "__clone_internal", "start_thread", "_start", "__libc_start_main",
        "__libc_start_call_main", "execute_native_thread_routine",
        "std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(int), int> > "
        ">::_M_run()",
        "void std::__invoke_impl<void, void (*)(int), int>(std::__invoke_other, void (*&&)(int), "
        "int&&)_[i]",
        "std::__invoke_result<void (*)(int), int>::type std::__invoke<void (*)(int), int>(void "
        "(*&&)(int), int&&)_[i]",
        "void std::thread::_Invoker<std::tuple<void (*)(int), int> >::_M_invoke<0ul, "
        "1ul>(std::_Index_tuple<0ul, 1ul>)_[i]",
        "std::thread::_Invoker<std::tuple<void (*)(int), int> >::operator()()_[i]"}) {
    EXPECT_TRUE(is_thread_start(f)) << f;
  }
  for (const char* f : {"worker_main", "main", "start_thread_[k]", "my::clone(int)", "thread"})
    EXPECT_FALSE(is_thread_start(f)) << f;
}

TEST(ThreadRoles, EntryIsTheFirstNamedFrameAfterTheTrampolines) {
  EXPECT_EQ(entry_function(Frames{"__clone3", "start_thread", "handle_one_connection(void*)",
                                  "do_command(THD*)", "poll", "do_sys_poll_[k]"}),
            "handle_one_connection");
  // std::thread: its plumbing is skipped, whether inlined or not.
  EXPECT_EQ(entry_function(Frames{
                "__clone3", "start_thread", "[libstdc++.so.6.0.30+0xd44a3]",
                "std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(int), int> > "
                ">::_M_run()",
                "void std::__invoke_impl<void, void (*)(int), int>(std::__invoke_other, void "
                "(*&&)(int), int&&)_[i]",
                "flusher(int)_[i]", "nanosleep"}),
            "flusher");
  // Unnamed frames (a stripped binary) are skipped: the next named frame.
  EXPECT_EQ(entry_function(Frames{"__clone3", "start_thread", "[app+0x1234]", "[app+0x1300]",
                                  "[unknown]", "__GI___nanosleep", "hrtimer_nanosleep_[k]"}),
            "__GI___nanosleep");
  // Nothing named in user space: no entry (kernel frames are not an entry).
  EXPECT_EQ(entry_function(Frames{"__clone3", "start_thread", "[app+0x1234]", "do_nanosleep_[k]"}),
            "");
  // A stack that did not unwind to its root has no entry: its first frame is not one.
  EXPECT_EQ(entry_function(Frames{"[truncated]", "recurse(int)", "recurse(int)"}), "");
  EXPECT_EQ(entry_function(Frames{}), "");
}

TEST(ThreadRoles, NamedThreadsAreNeverRenamed) {
  EXPECT_EQ(thread_role("worker-3", "mariadbd", false, "tpool::worker_main"), "worker-3");
  EXPECT_EQ(thread_role("mariadbd", "mariadbd", false, "handle_one_connection"),
            "mariadbd:handle_one_connection");
  EXPECT_EQ(thread_role("mariadbd", "mariadbd", false, ""), "mariadbd");     // no entry: comm
  EXPECT_EQ(thread_role("mariadbd", "mariadbd", true, "main"), "mariadbd");  // the main thread
}

TEST(ThreadRoles, MostFrequentEntryWinsAndTiesAreStable) {
  EntryTally t;
  t.add(7, "poll_loop", 2);
  t.add(7, "handle_one_connection", 5);
  t.add(7, "", 100);  // samples without an entry do not count
  t.add(8, "zeta", 3);
  t.add(8, "alpha", 3);
  EXPECT_EQ(t.entry_of(7), "handle_one_connection");
  EXPECT_EQ(t.entry_of(8), "alpha");  // a tie: the bytewise first, whatever the order seen
  EntryTally u;
  u.add(8, "alpha", 3);
  u.add(8, "zeta", 3);
  EXPECT_EQ(u.entry_of(8), "alpha");
  EXPECT_EQ(t.entry_of(9), "");
}

}  // namespace
}  // namespace hearth::stacks
