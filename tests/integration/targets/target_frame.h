// TARGET_FRAME: a function of a target program that must stay a frame of its own on the stack
// (never inlined, cloned or folded into its caller), as the tests expect to find it by name.
#pragma once

#if defined(__clang__)
#define TARGET_FRAME __attribute__((noinline, used))
#else
#define TARGET_FRAME __attribute__((noipa, used))
#endif
