// What the allocation probe (alloc.bpf.c) hands to user space (alloc_probe.cpp): one event per
// sampled allocation in the "events" ring buffer, and per-CPU totals of every call it saw. The
// registers are the layout the stop-free capture copies (capture_abi.h: struct pt_regs on
// x86-64, user_regs_struct's first HEARTH_REGS words), so the same unwinder takes them. Plain C:
// compiled into the BPF object and into hearth.
#ifndef HEARTH_COLLECTORS_ALLOC_ALLOC_ABI_H
#define HEARTH_COLLECTORS_ALLOC_ALLOC_ABI_H

#include <linux/types.h>

#include "collectors/stacks/capture_abi.h"

#define HEARTH_ALLOC_STACK_BYTES 16384  // stack copied from sp up, at most (less near its end)
#define HEARTH_ALLOC_THRESHOLDS 1024    // byte thresholds user space draws before loading
#define HEARTH_ALLOC_CLASS_BYTES 128    // a Java class name, as the JVM spells it, at most

// hearth_alloc_event.kind: the function the target called. Each has its own entry program,
// which reads that function's size argument; HEARTH_ALLOC_FREE is no allocation (live view).
enum hearth_alloc_kind {
  HEARTH_ALLOC_MALLOC = 0,          // malloc(size)
  HEARTH_ALLOC_CALLOC = 1,          // calloc(n, size): n * size
  HEARTH_ALLOC_REALLOC = 2,         // realloc(p, size); its old block p leaves the live view
  HEARTH_ALLOC_POSIX_MEMALIGN = 3,  // posix_memalign(&p, align, size): the block is *memptr
  HEARTH_ALLOC_ALIGNED_ALLOC = 4,   // aligned_alloc(align, size)
  HEARTH_ALLOC_MEMALIGN = 5,        // memalign(align, size)
  HEARTH_ALLOC_VALLOC = 6,          // valloc(size)
  HEARTH_ALLOC_PVALLOC = 7,         // pvalloc(size): rounded up to whole pages
  HEARTH_ALLOC_KINDS = 8,
  HEARTH_ALLOC_FREE = 8,  // free(p): attached for the live view only
  // A Java object (jvm_alloc.bpf.c: HotSpot's object__alloc USDT probe); class_name says which.
  HEARTH_ALLOC_JVM_OBJECT = 9,
};

#define HEARTH_ALLOC_PAGE 4096  // pvalloc's rounding (x86-64's page)

struct hearth_alloc_event {
  __u64 seq;  // the sample's id: tid << 32 | the thread's sample number (a live block's owner)
  __u32 tid;
  __u32 tgid;
  __u64 size;        // bytes asked for (calloc: count * size)
  __u32 kind;        // hearth_alloc_kind
  __u32 stack_len;   // bytes of stack[] copied (0: none could be read)
  __u64 stack_base;  // target address of stack[0]: sp at the call
  char comm[16];
  __u32 class_len;  // HEARTH_ALLOC_JVM_OBJECT: bytes of class_name ("java/lang/String", "[B")
  __u32 class_pad;
  char class_name[HEARTH_ALLOC_CLASS_BYTES];  // not NUL-terminated
  __u64 regs[HEARTH_REGS];  // the thread's registers at the allocator's first instruction
  __u8 stack[HEARTH_ALLOC_STACK_BYTES];
};

// Every call the probes saw, sampled or not (map "stats", one per CPU).
struct hearth_alloc_stats {
  __u64 calls;
  __u64 bytes;
  __u64 samples;  // calls that crossed their thread's threshold
  __u64 lost;     // of which the ring buffer had no room for
  __u64 freed;    // live view: sampled blocks freed (or realloc'ed away) in the window
  __u64 dropped;  // live view: sampled blocks not tracked, the "live" map being full
};

// The live view's map "live": a sampled block still allocated, by its address.
struct hearth_alloc_live {
  __u64 seq;   // hearth_alloc_event.seq of the sample that allocated it
  __u64 size;  // bytes asked for
};

#endif  // HEARTH_COLLECTORS_ALLOC_ALLOC_ABI_H
