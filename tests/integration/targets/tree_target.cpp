// A process tree for `hearth stacks --children / --comm`: a parent and its child processes, each
// blocked in a function of its own.
//
//   tree_target
//
// At start the parent forks three children:
//   alpha   single-threaded, blocks in alpha_wait (a read from the parent; exits on "exit")
//   titled  single-threaded, blocks in titled_wait (nanosleep); names itself: comm "titled-child"
//           (prctl) and title "tree-titled: worker waiting" (its argv rewritten, as PostgreSQL
//           and nginx do)
//   pool    multi-threaded: its main thread in pool_main_wait (a read), 2 threads in
//           pool_thread_wait (a condition variable never notified); its title rewritten to
//           "tree-pool: 2 threads waiting, nobody notifies" (longer than the 40 characters a
//           picture gives a process: it is shown shortened), its comm left as it was
// The parent blocks in parent_wait, reading commands from stdin:
//   fork   forks one more child, blocked in late_wait; prints "late PID"
//   exit   ends alpha, reaps it; prints "exited PID"
// Every *_wait function is never inlined: its name appears exactly so. Children die with the
// parent (PR_SET_PDEATHSIG), which exits when stdin closes.
//
// Protocol: prints "ready PID" once every child blocks at its wait, then "alpha PID",
// "titled PID", "pool PID TID TID", then "end".
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "tests/integration/targets/target_frame.h"

namespace {

char** g_argv = nullptr;
int g_argc = 0;
std::mutex g_mutex;
std::condition_variable g_never;

char state_of(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

void wait_asleep(pid_t pid, pid_t tid) {
  for (int i = 0; i < 5000 && state_of(pid, tid) != 'S'; ++i) usleep(1000);
}

void die_with_parent() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
}

// Rewrites the process title: the argv strings' memory, as setproctitle does.
void set_title(const char* title) {
  char* start = g_argv[0];
  char* end = g_argv[g_argc - 1] + std::strlen(g_argv[g_argc - 1]);
  size_t room = static_cast<size_t>(end - start);
  std::memset(start, 0, room);
  std::strncpy(start, title, room - 1);
}

}  // namespace

extern "C" TARGET_FRAME void alpha_wait(int fd) {
  char c;
  while (read(fd, &c, 1) < 0) {
  }
}

extern "C" TARGET_FRAME void titled_wait() {
  for (;;) {
    timespec ts{1, 0};
    nanosleep(&ts, nullptr);
  }
}

extern "C" TARGET_FRAME void* pool_thread_wait(void*) {
  std::unique_lock<std::mutex> lock(g_mutex);
  for (;;) g_never.wait(lock);
}

extern "C" TARGET_FRAME void pool_main_wait(int fd) {
  char c;
  while (read(fd, &c, 1) < 0) {
  }
}

extern "C" TARGET_FRAME void late_wait() {
  for (;;) pause();
}

extern "C" TARGET_FRAME bool parent_wait(std::string* line) {
  return static_cast<bool>(std::getline(std::cin, *line));
}

int main(int argc, char** argv) {
  g_argc = argc;
  g_argv = argv;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int alpha_pipe[2], pool_pipe[2];
  if (pipe(alpha_pipe) != 0 || pipe(pool_pipe) != 0) return 1;
  // The children report their pids and tids on this pipe once their threads are started.
  int report[2];
  if (pipe(report) != 0) return 1;

  pid_t alpha = fork();
  if (alpha == 0) {
    die_with_parent();
    alpha_wait(alpha_pipe[0]);
    _exit(0);
  }
  pid_t titled = fork();
  if (titled == 0) {
    die_with_parent();
    prctl(PR_SET_NAME, "titled-child");
    set_title("tree-titled: worker waiting");
    titled_wait();
    _exit(0);
  }
  pid_t pool = fork();
  if (pool == 0) {
    die_with_parent();
    set_title("tree-pool: 2 threads waiting, nobody notifies");
    pthread_t t[2];
    std::string tids;
    for (pthread_t& th : t) pthread_create(&th, nullptr, pool_thread_wait, nullptr);
    // Thread ids from /proc/self/task (both threads exist once pthread_create returned).
    if (DIR* d = opendir("/proc/self/task")) {
      while (const dirent* e = readdir(d)) {
        int tid = std::atoi(e->d_name);
        if (tid > 0 && tid != getpid()) tids += " " + std::to_string(tid);
      }
      closedir(d);
    }
    std::string line = "pool " + std::to_string(getpid()) + tids + "\n";
    if (write(report[1], line.data(), line.size()) < 0) _exit(1);
    pool_main_wait(pool_pipe[0]);
    _exit(0);
  }
  char buf[128] = {};
  ssize_t n = read(report[0], buf, sizeof buf - 1);
  if (n <= 0) return 1;
  std::string pool_line(buf, static_cast<size_t>(n));
  // Every thread of every child asleep at its wait before "ready".
  wait_asleep(alpha, alpha);
  wait_asleep(titled, titled);
  wait_asleep(pool, pool);
  for (const char* p = pool_line.c_str(); (p = std::strchr(p, ' ')) != nullptr;) {
    pid_t tid = std::atoi(++p);
    if (tid != pool) wait_asleep(pool, tid);
  }
  std::printf("ready %d\n", getpid());
  std::printf("alpha %d\ntitled %d\n%send\n", alpha, titled, pool_line.c_str());

  std::string line;
  while (parent_wait(&line)) {
    if (line == "fork") {
      pid_t late = fork();
      if (late == 0) {
        die_with_parent();
        late_wait();
        _exit(0);
      }
      wait_asleep(late, late);
      std::printf("late %d\n", late);
    } else if (line == "exit") {
      if (write(alpha_pipe[1], "x", 1) != 1) return 1;  // alpha's read returns: it exits
      waitpid(alpha, nullptr, 0);
      std::printf("exited %d\n", alpha);
    }
  }
  kill(titled, SIGKILL);
  kill(pool, SIGKILL);
  kill(alpha, SIGKILL);
  while (wait(nullptr) > 0) {
  }
  return 0;
}
