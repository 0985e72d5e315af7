// A static, stripped program for `hearth alloc` to refuse: no symbol table names its malloc.
// Prints "ready PID", then exits when stdin closes. Built apart from the other targets
// (targets/CMakeLists.txt): one variant, -static -s.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  char* line = malloc(64);
  printf("ready %d\n", getpid());
  fflush(stdout);
  while (fgets(line, 64, stdin) != NULL) {
  }
  free(line);
  return 0;
}
