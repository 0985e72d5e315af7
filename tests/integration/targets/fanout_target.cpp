// Many single-threaded processes for `hearth stacks --children` at scale (a process set of
// hundreds, as a server with one process per client): a parent that forks N children, each
// asleep in a function named after its parity, two frames deep.
//
//   fanout_target --children N
//
// Child I calls fanout_child_main(I), which calls fanout_even_wait (I even) or fanout_odd_wait
// (I odd): a read() on a pipe nobody writes. The parent blocks in fanout_parent_wait, reading
// stdin. Every *_wait/main function is never inlined: its name appears exactly so. Children die
// with the parent (PR_SET_PDEATHSIG), which kills and reaps them when stdin closes.
//
// Protocol: prints "ready PID" once every child sleeps at its wait, then one "child PID I" line
// per child in fork order, then "end".
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tests/integration/targets/target_frame.h"

namespace {

char fanout_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

}  // namespace

extern "C" TARGET_FRAME void fanout_even_wait(int fd) {
  char c;
  while (read(fd, &c, 1) < 0) {
  }
}

extern "C" TARGET_FRAME void fanout_odd_wait(int fd) {
  char c;
  while (read(fd, &c, 1) < 0) {
  }
}

extern "C" TARGET_FRAME void fanout_child_main(int index, int fd) {
  if (index % 2 == 0) {
    fanout_even_wait(fd);
  } else {
    fanout_odd_wait(fd);
  }
}

extern "C" TARGET_FRAME bool fanout_parent_wait(std::string* line) {
  return static_cast<bool>(std::getline(std::cin, *line));
}

int main(int argc, char** argv) {
  int children = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--children") == 0) children = std::atoi(argv[i + 1]);
  }
  if (children <= 0 || children > 10000) {
    std::fprintf(stderr, "usage: fanout_target --children N (1..10000)\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int never[2];  // written by nobody: the children's reads block until the parent exits
  if (pipe(never) != 0) return 1;
  std::vector<pid_t> pids;
  for (int i = 0; i < children; ++i) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() == 1) _exit(0);  // the parent died before the line above
      close(never[1]);
      fanout_child_main(i, never[0]);
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    for (int i = 0; i < 10000 && fanout_state(pid) != 'S'; ++i) usleep(1000);
  }
  std::printf("ready %d\n", getpid());
  for (size_t i = 0; i < pids.size(); ++i) std::printf("child %d %zu\n", pids[i], i);
  std::printf("end\n");
  std::string line;
  while (fanout_parent_wait(&line)) {
  }
  for (pid_t pid : pids) kill(pid, SIGKILL);
  while (wait(nullptr) > 0) {
  }
  return 0;
}
