// Broken invariants are bugs: CHECK aborts with context. User and environment problems are
// never CHECKed; they travel as Result errors (see result.h).
#pragma once

#include <cstdio>
#include <cstdlib>

#define HEARTH_CHECK(cond)                                                                \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "hearth: internal error: %s:%d: CHECK(%s) failed\n", __FILE__, \
                   __LINE__, #cond);                                                      \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
