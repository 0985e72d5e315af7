// What the BPF capture program (capture.bpf.c) hands to user space (capture_bpf.cpp): one
// record per thread of the target per pass, written to the iterator's seq_file, and the stack
// pages it copied, in an array map of pages that user space maps read-only. Plain C: compiled
// into the BPF object and into hearth.
//
// Records are of variable length (hearth_record.size): the head (up to regs) always; regs and
// kframes entries of kstack only with HEARTH_CAP_COPIED. The pages a record names are valid
// until user space resets the program's cursor, which it does after each read() of the
// iterator: every read()'s records are used before the next read() (see capture.bpf.c).
#ifndef HEARTH_COLLECTORS_STACKS_CAPTURE_ABI_H
#define HEARTH_COLLECTORS_STACKS_CAPTURE_ABI_H

#include <linux/types.h>

#define HEARTH_PAGE_SIZE 4096
#define HEARTH_MAX_STACK_PAGES 256  // 1 MiB: the deepest copy of one thread's stack
#define HEARTH_MAX_KFRAMES 64       // kernel frames per thread
#define HEARTH_REGS 21              // struct pt_regs on x86-64: user_regs_struct's first 21
#define HEARTH_RED_ZONE 128         // bytes below sp a leaf function may use (x86-64 ABI)
#define HEARTH_COPY_CHUNK 512       // a copy's first page starts at a multiple of this
#define HEARTH_SP_REG 19            // regs[] index of sp

// hearth_record.flags: what happened to the thread in this pass.
enum hearth_capture_flags {
  HEARTH_CAP_COPIED = 1 << 0,     // registers and stack top copied while it did not run
  HEARTH_CAP_UNCHANGED = 1 << 1,  // not run since its last copy: that copy stands (nothing read)
  HEARTH_CAP_ON_CPU = 1 << 2,     // on a CPU when visited: nothing copied
  HEARTH_CAP_RAN = 1 << 3,        // ran during the copy (switch count or on_cpu moved): discard
  HEARTH_CAP_NO_SPACE = 1 << 4,   // the page arena filled up: copy again in another pass
  HEARTH_CAP_NO_STACK = 1 << 5,   // the first stack page could not be read (exiting, no mm)
  HEARTH_CAP_EXITING = 1 << 6,    // zombie or dead thread, or a kernel thread: nothing to copy
  HEARTH_CAP_KSTACK = 1 << 7,     // kstack[] holds kframes kernel return addresses, leaf first
  HEARTH_CAP_MM_SEQ = 1 << 8,     // mm_seq holds the address space's change count
  // A set's pass (filter_tgids): a process outside the set whose parent is in it (a new child),
  // reported by its main thread, head only; nothing of it read.
  HEARTH_CAP_CHILD = 1 << 9,
};

struct hearth_record {
  __u32 tid;
  __u32 tgid;        // its process
  __u32 flags;       // hearth_capture_flags
  __u32 state;       // task->__state | task->exit_state, as the kernel's TASK_REPORT bits
  __u32 pages;       // stack pages copied, from arena page first_page on
  __u32 first_page;  // index of the first page in the arena map
  __u32 kframes;     // entries of kstack
  __u32 parent_tgid; // the process's parent (real_parent's tgid)
  __u32 pass;        // the pass (pass_id) this record was made in
  __u32 size;        // bytes written for this record (HEARTH_RECORD_HEAD, or more: see above)
  __u64 switches;    // nvcsw + nivcsw when visited
  __u64 start_time;  // task->start_time (ns after boot): tells a reused tid apart
  __u64 exec_id;     // task->self_exec_id: grows with each execve of the process
  // With HEARTH_CAP_MM_SEQ: mm->mm_lock_seq (low half), which moves whenever the process's
  // mappings may have changed (every mmap write lock), odd while one is held; the high half
  // names the address space (an execve makes a new one). Same for every thread.
  __u64 mm_seq;
  // Target address of the first copied page (page aligned). Of that page only the
  // HEARTH_COPY_CHUNK bytes chunks from the one holding sp - HEARTH_RED_ZONE on are copied: the
  // bytes below are left as the arena had them.
  __u64 copy_base;
  char comm[16];
  __u64 regs[HEARTH_REGS];  // the user registers the kernel saved on the last kernel entry
  __u64 kstack[HEARTH_MAX_KFRAMES];
};

// The part of a record every record has.
#define HEARTH_RECORD_HEAD __builtin_offsetof(struct hearth_record, regs)

// A thread's last consistent copy, kept by the program (map "seen", key tid).
struct hearth_seen {
  __u64 start_time;
  __u64 switches;
};

#endif  // HEARTH_COLLECTORS_STACKS_CAPTURE_ABI_H
