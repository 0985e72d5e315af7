// Preloaded into hearth by a test (LD_PRELOAD): every ftruncate() waits 150 ms first. libpcp_mmv
// creates an MMV file, then sizes it with ftruncate, maps it, and writes its header: the wait
// widens the moment when the file is there but not yet readable, so that a look of pmdammv's
// lands in it (watch_itest.cpp, WatchPcp).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/types.h>
#include <time.h>

static int slow_ftruncate(int fd, off_t length) {
  static int (*next)(int, off_t);
  if (next == NULL) *(void**)(&next) = dlsym(RTLD_NEXT, "ftruncate");  // POSIX's idiom
  struct timespec wait = {0, 150 * 1000 * 1000};
  nanosleep(&wait, NULL);
  return next(fd, length);
}

int ftruncate(int fd, off_t length) { return slow_ftruncate(fd, length); }
int ftruncate64(int fd, off_t length) { return slow_ftruncate(fd, length); }
