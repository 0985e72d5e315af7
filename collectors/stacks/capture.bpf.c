// The stop-free capture: a sleepable BPF task iterator, attached to the target's process only,
// that copies for each thread that is not on a CPU the user registers the kernel saved when
// it last entered the kernel, the top of its user stack and its kernel stack, without stopping
// or waking it. A thread's switch count (nvcsw + nivcsw) and on_cpu are read before and after
// the copy: if either moved, the thread ran meanwhile and the copy is marked RAN (user space
// stops that one briefly instead). A thread whose switch count has not moved since its last
// consistent copy has not run since: it is reported UNCHANGED and nothing is read.
//
// Records go to the iterator's seq_file (one struct hearth_record per thread, capture_abi.h);
// stack pages go to the "arena" array map, one page per entry, from entry `cursor` on. User
// space reads the pages in place through a read-only mapping, and after each read() of the
// iterator (whose records it has used by then) resets `cursor` and `read_records`: the arena
// only holds one read()'s pages. A read() ends early (the program returns 1: the kernel ends it
// there and shows the same task again first in the next read) when the next copy would take
// the read past `read_budget` pages, so one read() is short and the arena small.
//
// Kernel types are declared here only as far as they are read; every access is relocated
// against the running kernel's BTF at load time (CO-RE), so no kernel header is needed to build.

#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "capture_abi.h"

struct seqcount {
  unsigned sequence;
} __attribute__((preserve_access_index));

// mm_lock_seq: a seqcount_t since 6.12, an int in 6.4-6.11, absent before (and without
// CONFIG_PER_VMA_LOCK): the program reads whichever this kernel has, or reports none.
struct mm_struct {
  struct seqcount mm_lock_seq;
} __attribute__((preserve_access_index));

struct mm_struct___int {
  int mm_lock_seq;
} __attribute__((preserve_access_index));

struct task_struct {
  unsigned int __state;
  int exit_state;
  int on_cpu;
  unsigned int flags;
  int pid;
  int tgid;
  unsigned long nvcsw;
  unsigned long nivcsw;
  __u64 start_time;
  __u64 self_exec_id;
  char comm[16];
  struct task_struct *real_parent;
  struct mm_struct *mm;
} __attribute__((preserve_access_index));

struct vm_area_struct {
  unsigned long vm_start;
  unsigned long vm_end;
} __attribute__((preserve_access_index));

struct pt_regs {
  unsigned long sp;
} __attribute__((preserve_access_index));

struct bpf_iter_meta {
  struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
  struct bpf_iter_meta *meta;
  struct task_struct *task;
} __attribute__((preserve_access_index));

#define PF_KTHREAD 0x00200000
#define RED_ZONE HEARTH_RED_ZONE
#define PAGE_MASK (~(__u64)(HEARTH_PAGE_SIZE - 1))

char LICENSE[] SEC("license") = "GPL";

// Set by user space: before each pass, and `cursor` and `read_records` after each read().
__u32 cursor = 0;         // next free arena page
__u32 read_records = 0;   // records written since the last reset
__u32 read_budget = 64;   // arena pages one read() may fill (more when its first copy needs it)
__u32 default_pages = 8;  // stack pages to copy per thread unless "pages_for" says otherwise
__u32 kernel_stacks = 1;  // read kernel stacks of sleeping threads
__u32 pass_id = 0;        // a new value for each run of the iterator
// A set's program: the iterator walks every task of the host and takes only those whose
// process is in "tgids"; with report_children, a process outside it whose parent is in it is
// reported too (HEARTH_CAP_CHILD), so that user space looks for new processes only then.
__u32 filter_tgids = 0;
__u32 report_children = 0;
// Set by user space before it first writes to "pages_for": until then the map is empty.
__u32 pages_for_used = 0;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  // Sizes, not types: the kernel refuses a map with a key type but no value type, and the
  // light skeleton's loader (capture_loader.h) does not retry without BTF as libbpf does.
  __uint(key_size, sizeof(__u32));
  __uint(value_size, HEARTH_PAGE_SIZE);
  __uint(max_entries, 1);  // sized by user space before loading
} arena SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);  // tid
  __type(value, struct hearth_seen);
  __uint(max_entries, 1);  // sized by user space before loading
  __uint(map_flags, BPF_F_NO_PREALLOC);  // not zeroed in one long stretch at load time
} seen SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);    // tid
  __type(value, __u32);  // stack pages to copy for this thread (user space grows it)
  __uint(max_entries, 1);
  __uint(map_flags, BPF_F_NO_PREALLOC);
} pages_for SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct hearth_record);
  __uint(max_entries, 2);  // [0]: the thread being taken; [1]: a child's report
} scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);   // tgid: a process of the set
  __type(value, __u8);  // unused
  __uint(max_entries, 1);
  __uint(map_flags, BPF_F_NO_PREALLOC);
} tgids SEC(".maps");

struct vma_end_ctx {
  __u64 end;
};

static long vma_end_cb(struct task_struct *task, struct vm_area_struct *vma, void *data) {
  ((struct vma_end_ctx *)data)->end = vma->vm_end;
  return 0;
}

static __u64 switches_of(struct task_struct *task) {
  return BPF_CORE_READ(task, nvcsw) + BPF_CORE_READ(task, nivcsw);
}

// One page of copy_pages(): bpf_loop() calls it with the page's index; 1 ends the loop. The
// count goes to rec->pages (map memory, whose values the verifier does not track: a count on
// the stack would make every iteration a new state to verify).
struct copy_ctx {
  struct task_struct *task;
  struct hearth_record *rec;
  __u64 base;
  __u32 skip;  // first page: chunks of HEARTH_COPY_CHUNK below the red zone, not copied
};

// The first page is copied from the chunk that holds sp - RED_ZONE on: what lies below is not
// the thread's (nothing unwinds from there) and, on a sleeping thread, cold in every cache: a
// first pass over 10,000 threads spent half of its copying time in the memcpy. Constant offsets
// and sizes, one per chunk, so that the verifier sees each copy within the arena's page.
#define COPY_FROM(k)                                                                         \
  case k:                                                                                    \
    return bpf_copy_from_user_task(dst + (k) * HEARTH_COPY_CHUNK,                            \
                                   HEARTH_PAGE_SIZE - (k) * HEARTH_COPY_CHUNK,               \
                                   (void *)(src + (k) * HEARTH_COPY_CHUNK), task, 0)

static long copy_first_page(void *dst, __u64 src, __u32 skip, struct task_struct *task) {
  switch (skip) {
    COPY_FROM(1);
    COPY_FROM(2);
    COPY_FROM(3);
    COPY_FROM(4);
    COPY_FROM(5);
    COPY_FROM(6);
    COPY_FROM(7);
    default:
      return bpf_copy_from_user_task(dst, HEARTH_PAGE_SIZE, (void *)src, task, 0);
  }
}

static long copy_page(__u32 i, void *data) {
  struct copy_ctx *c = data;
  __u32 index = cursor;
  void *dst = bpf_map_lookup_elem(&arena, &index);
  if (!dst) {
    c->rec->flags |= HEARTH_CAP_NO_SPACE;
    return 1;
  }
  __u64 src = c->base + (__u64)i * HEARTH_PAGE_SIZE;
  long r = i == 0 ? copy_first_page(dst, src, c->skip, c->task)
                  : bpf_copy_from_user_task(dst, HEARTH_PAGE_SIZE, (void *)src, c->task, 0);
  if (r != 0) return 1;
  cursor = index + 1;
  c->rec->pages++;
  return 0;
}

// Copies up to `want` pages from `base` into rec->pages (0 before), stopping at the stack
// mapping's end or the first page that cannot be read; sets NO_SPACE when the arena is full.
// bpf_loop() rather than a bounded loop: the verifier checks one page's copy, not each of the
// 256 a loop could make (a bounded loop made loading ~40% of a warm one-shot's CPU).
static void copy_pages(struct task_struct *task, struct hearth_record *rec, __u64 base,
                       __u64 from, __u32 want) {
  if (want > HEARTH_MAX_STACK_PAGES) want = HEARTH_MAX_STACK_PAGES;
  struct copy_ctx c = {.task = task,
                       .rec = rec,
                       .base = base,
                       .skip = (__u32)((from - base) / HEARTH_COPY_CHUNK)};
  bpf_loop(want, copy_page, &c, 0);
}

// Writes REC: its head, and its registers and kernel frames when it holds a copy.
static void emit(struct seq_file *seq, struct hearth_record *rec) {
  __u32 size = HEARTH_RECORD_HEAD;
  if (rec->flags & HEARTH_CAP_COPIED) {
    __u32 frames = rec->kframes;
    if (frames > HEARTH_MAX_KFRAMES) frames = HEARTH_MAX_KFRAMES;
    size = __builtin_offsetof(struct hearth_record, kstack) + frames * sizeof(__u64);
  } else {
    rec->flags &= ~HEARTH_CAP_KSTACK;  // nothing of the tail is sent
    rec->kframes = 0;
  }
  // Keeps clang from folding this bound into the one on frames above, which the verifier
  // does not carry over to SIZE.
  barrier_var(size);
  if (size > sizeof *rec) size = sizeof *rec;
  rec->size = size;
  bpf_seq_write(seq, rec, size);
  read_records++;
}

// The address space's change count into REC (HEARTH_CAP_MM_SEQ), where the kernel has one.
// The high half names the address space (bits of its address): an execve's new one starts a
// count of its own, which must not pass for the old one's.
static void read_mm_seq(struct task_struct *task, struct hearth_record *rec) {
  struct mm_struct *mm = BPF_CORE_READ(task, mm);
  if (!mm) return;
  __u64 id = ((__u64)(unsigned long)mm >> 6) << 32;
  // A field of a flavor exists only where its type is compatible: a struct with a struct, an
  // int with an int.
  if (bpf_core_field_exists(struct mm_struct, mm_lock_seq)) {
    rec->mm_seq = id | BPF_CORE_READ(mm, mm_lock_seq.sequence);
    rec->flags |= HEARTH_CAP_MM_SEQ;
  } else if (bpf_core_field_exists(struct mm_struct___int, mm_lock_seq)) {
    rec->mm_seq = id | (__u32)BPF_CORE_READ((struct mm_struct___int *)mm, mm_lock_seq);
    rec->flags |= HEARTH_CAP_MM_SEQ;
  }
}

// A set's pass: whether TASK is one of the set's (else, with report_children, a new child's
// main thread is reported, head only).
static int in_set(struct seq_file *seq, struct task_struct *task) {
  __u32 tgid = task->tgid;
  if (bpf_map_lookup_elem(&tgids, &tgid)) return 1;
  if (!report_children || task->pid != task->tgid) return 0;
  // A zombie is never taken (nor a kernel thread): reporting one would only make user space
  // look at /proc for nothing, every pass until its parent reaps it.
  if (BPF_CORE_READ(task, exit_state) != 0 || (task->flags & PF_KTHREAD)) return 0;
  __u32 parent = BPF_CORE_READ(task, real_parent, tgid);
  if (!bpf_map_lookup_elem(&tgids, &parent)) return 0;
  __u32 one = 1;
  struct hearth_record *rec = bpf_map_lookup_elem(&scratch, &one);
  if (!rec) return 0;
  __builtin_memset(rec, 0, HEARTH_RECORD_HEAD);
  rec->tid = task->pid;
  rec->tgid = tgid;
  rec->parent_tgid = parent;
  rec->flags = HEARTH_CAP_CHILD;
  rec->pass = pass_id;
  rec->start_time = task->start_time;
  rec->size = HEARTH_RECORD_HEAD;
  bpf_seq_write(seq, rec, HEARTH_RECORD_HEAD);
  read_records++;
  return 0;
}

SEC("iter.s/task")
int hearth_capture(struct bpf_iter__task *ctx) {
  struct seq_file *seq = ctx->meta->seq;
  struct task_struct *task = ctx->task;
  if (!task) return 0;
  if (filter_tgids && !in_set(seq, task)) return 0;

  __u32 zero = 0;
  struct hearth_record *rec = bpf_map_lookup_elem(&scratch, &zero);
  if (!rec) return 0;
  // When a record does not fit in what is left of the seq_file's buffer, the kernel shows the
  // same task again at the next read(), and its first record is dropped. Copying it again would
  // find it UNCHANGED (its copy was remembered) and lose the copy: write the same record again.
  __u32 pass = pass_id;
  if (rec->pass == pass && rec->tid == (__u32)task->pid && rec->start_time == task->start_time) {
    // Its pages stay where they are: later copies of this read() go after them.
    __u32 end = rec->first_page + rec->pages;
    if (cursor < end) cursor = end;
    emit(seq, rec);
    return 0;
  }
  rec->pass = pass;
  rec->tid = task->pid;
  rec->tgid = task->tgid;
  rec->parent_tgid = BPF_CORE_READ(task, real_parent, tgid);
  rec->flags = 0;
  rec->mm_seq = 0;
  rec->state = BPF_CORE_READ(task, __state) | (__u32)BPF_CORE_READ(task, exit_state);
  rec->pages = 0;
  rec->first_page = cursor;
  rec->kframes = 0;
  rec->copy_base = 0;
  rec->start_time = task->start_time;
  rec->exec_id = BPF_CORE_READ(task, self_exec_id);
  bpf_probe_read_kernel_str(rec->comm, sizeof rec->comm, task->comm);
  __builtin_memset(rec->regs, 0, sizeof rec->regs);
  read_mm_seq(task, rec);

  int on_cpu = BPF_CORE_READ(task, on_cpu);
  __u64 switches = switches_of(task);
  rec->switches = switches;
  if ((task->flags & PF_KTHREAD) || BPF_CORE_READ(task, exit_state) != 0) {
    rec->flags |= HEARTH_CAP_EXITING;
    emit(seq, rec);
    return 0;
  }
  if (on_cpu) {
    rec->flags |= HEARTH_CAP_ON_CPU;
    emit(seq, rec);
    return 0;
  }
  __u32 tid = rec->tid;
  struct hearth_seen *last = bpf_map_lookup_elem(&seen, &tid);
  if (last && last->start_time == rec->start_time && last->switches == switches) {
    rec->flags |= HEARTH_CAP_UNCHANGED;
    emit(seq, rec);
    return 0;
  }

  struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
  if (!regs || bpf_probe_read_kernel(rec->regs, sizeof rec->regs, regs) != 0) {
    rec->flags |= HEARTH_CAP_NO_STACK;
    emit(seq, rec);
    return 0;
  }
  __u64 sp = rec->regs[HEARTH_SP_REG];  // pt_regs.sp
  __u64 base = (sp - RED_ZONE) & PAGE_MASK;
  __u32 want = default_pages;
  if (pages_for_used) {  // else the map is empty: no lookup (a cold bucket per thread)
    __u32 *override = bpf_map_lookup_elem(&pages_for, &tid);
    if (override) want = *override;
  }
  // Never past the end of the stack's mapping: the next mapping (another thread's stack, say)
  // would be copied for nothing.
  struct vma_end_ctx vma = {0};
  if (bpf_find_vma(task, sp, vma_end_cb, &vma, 0) == 0 && vma.end > base) {
    __u64 in_mapping = (vma.end - base) / HEARTH_PAGE_SIZE;
    if (in_mapping < want) want = in_mapping;
  }
  // This read() is full: end it here (user space resets the cursor after using its pages) and
  // take this thread first in the next one. Never the first record of a read(): the kernel would
  // fail the read() instead.
  if (read_records > 0 && cursor + want > read_budget) {
    rec->tid = 0;  // not a record to write again (see above)
    return 1;
  }
  rec->copy_base = base;
  rec->pages = 0;
  copy_pages(task, rec, base, sp - RED_ZONE, want);
  if (rec->pages == 0 && !(rec->flags & HEARTH_CAP_NO_SPACE)) rec->flags |= HEARTH_CAP_NO_STACK;

  __u32 state = rec->state;
  if (kernel_stacks && (state & 3)) {  // interruptible or uninterruptible sleep
    long n = bpf_get_task_stack(task, rec->kstack, sizeof rec->kstack, 0);
    if (n > 0) {
      rec->kframes = n / sizeof(__u64);
      rec->flags |= HEARTH_CAP_KSTACK;
    }
  }

  if (BPF_CORE_READ(task, on_cpu) || switches_of(task) != switches) {
    rec->flags |= HEARTH_CAP_RAN;
  } else if (rec->pages > 0 && !(rec->flags & HEARTH_CAP_NO_SPACE)) {
    rec->flags |= HEARTH_CAP_COPIED;
    struct hearth_seen now = {.start_time = rec->start_time, .switches = switches};
    bpf_map_update_elem(&seen, &tid, &now, BPF_ANY);
  }
  emit(seq, rec);
  return 0;
}
