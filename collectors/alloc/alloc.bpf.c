// The allocation probe: uprobes at the entry of the target's malloc, calloc and realloc,
// sampled by bytes. Each thread counts down a byte threshold drawn at random (an exponential
// draw with the mean user space chose, from the table it filled before loading); the call that
// takes it to zero or below is sampled and a fresh threshold drawn. An allocation of S bytes is
// thus sampled with probability 1 - exp(-S / mean) whatever the rate or the sizes around it,
// and user space weighs each sample by S / that probability (tcmalloc's heap sampling).
//
// A sampled call copies the thread's registers and the top of its stack (from sp, as much of
// HEARTH_ALLOC_STACK_BYTES as can be read) into the ring buffer; user space unwinds it with
// DWARF after the call went on. An unsampled call costs a map lookup and two additions.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "alloc_abi.h"

char LICENSE[] SEC("license") = "GPL";

// The registers a uprobe's context holds (struct pt_regs on x86-64): read by name here.
struct hearth_pt_regs {
  __u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags,
      sp, ss;
};

// Set by user space before loading.
__u32 target_tgid = 0;
__u64 thresholds[HEARTH_ALLOC_THRESHOLDS];  // bytes: exponential draws of the chosen mean

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24);  // sized by user space before loading
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, __u32);    // tid
  __type(value, __s64);  // bytes left before the thread's next sample
  __uint(max_entries, 65536);
} countdown SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, struct hearth_alloc_stats);
  __uint(max_entries, 1);
} stats SEC(".maps");

static __always_inline __s64 draw(void) {
  __u32 i = bpf_get_prandom_u32() & (HEARTH_ALLOC_THRESHOLDS - 1);
  return (__s64)thresholds[i];
}

// Copies as much of the stack from SP as can be read, largest first: a copy that would run
// past the end of the stack's mapping (a main thread near its top) fails whole.
static __always_inline void copy_stack(struct hearth_alloc_event *e, __u64 sp) {
  void *from = (void *)sp;
  e->stack_len = 0;
  if (bpf_probe_read_user(e->stack, 16384, from) == 0) e->stack_len = 16384;
  else if (bpf_probe_read_user(e->stack, 8192, from) == 0) e->stack_len = 8192;
  else if (bpf_probe_read_user(e->stack, 4096, from) == 0) e->stack_len = 4096;
  else if (bpf_probe_read_user(e->stack, 2048, from) == 0) e->stack_len = 2048;
  else if (bpf_probe_read_user(e->stack, 1024, from) == 0) e->stack_len = 1024;
  else if (bpf_probe_read_user(e->stack, 256, from) == 0) e->stack_len = 256;
}

static __always_inline int on_alloc(struct hearth_pt_regs *regs, __u64 size, __u32 kind) {
  __u64 id = bpf_get_current_pid_tgid();
  if ((__u32)(id >> 32) != target_tgid || size == 0) return 0;
  if (size > (1ULL << 40)) size = 1ULL << 40;  // an overflowing calloc: it fails anyway
  __u32 zero = 0;
  struct hearth_alloc_stats *st = bpf_map_lookup_elem(&stats, &zero);
  if (!st) return 0;
  st->calls++;
  st->bytes += size;

  __u32 tid = (__u32)id;
  __s64 *left = bpf_map_lookup_elem(&countdown, &tid);
  if (!left) {
    // A thread's first call: its first threshold, as if drawn when it started.
    __s64 first = draw() - (__s64)size;
    if (first > 0) {
      bpf_map_update_elem(&countdown, &tid, &first, BPF_ANY);
      return 0;
    }
    __s64 next = draw();
    bpf_map_update_elem(&countdown, &tid, &next, BPF_ANY);
  } else {
    *left -= (__s64)size;
    if (*left > 0) return 0;
    *left = draw();  // memoryless: what the crossing call left over is not carried
  }
  st->samples++;

  struct hearth_alloc_event *e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
  if (!e) {
    st->lost++;
    return 0;
  }
  e->tid = tid;
  e->tgid = (__u32)(id >> 32);
  e->size = size;
  e->kind = kind;
  bpf_get_current_comm(e->comm, sizeof e->comm);
  bpf_probe_read_kernel(e->regs, sizeof e->regs, regs);
  e->stack_base = regs->sp;
  copy_stack(e, regs->sp);
  bpf_ringbuf_submit(e, 0);
  return 0;
}

SEC("uprobe")
int hearth_malloc(struct hearth_pt_regs *ctx) {
  return on_alloc(ctx, ctx->di, HEARTH_ALLOC_MALLOC);
}

SEC("uprobe")
int hearth_calloc(struct hearth_pt_regs *ctx) {
  return on_alloc(ctx, ctx->di * ctx->si, HEARTH_ALLOC_CALLOC);
}

// realloc(NULL, n) is malloc(n), and glibc's realloc calls its malloc for it: counted there, not
// twice. realloc(p, 0) frees.
SEC("uprobe")
int hearth_realloc(struct hearth_pt_regs *ctx) {
  if (ctx->di == 0) return 0;
  return on_alloc(ctx, ctx->si, HEARTH_ALLOC_REALLOC);
}
