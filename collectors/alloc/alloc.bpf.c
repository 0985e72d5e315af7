// The allocation probe: uprobes at the entry of the target's malloc, calloc, realloc and the
// aligned family (posix_memalign, aligned_alloc, memalign, valloc, pvalloc), sampled by bytes.
// Each thread counts down a byte threshold drawn at random (an exponential draw with the mean
// user space chose, from the table it filled before loading); the call that takes it to zero or
// below is sampled and a fresh threshold drawn. An allocation of S bytes is thus sampled with
// probability 1 - exp(-S / mean) whatever the rate or the sizes around it, and user space weighs
// each sample by S / that probability (tcmalloc's heap sampling).
//
// A sampled call copies the thread's registers and the top of its stack (from sp, as much of
// HEARTH_ALLOC_STACK_BYTES as can be read) into the ring buffer; user space unwinds it with
// DWARF after the call went on. An unsampled call costs a map lookup and two additions.
//
// The live view (track_live): a uretprobe on every allocation entry finds the address a sampled
// call returned and keeps it in the bounded hash "live" with the sample's id; a uprobe on free
// (and realloc's old pointer) takes it out again. What is left at the end of the window are the
// sampled blocks still allocated. Unsampled blocks are never looked at beyond one hash lookup.
#include <linux/bpf.h>
#include <linux/types.h>

#include <bpf/bpf_helpers.h>  // after linux/types.h, whose types it uses

#include "alloc_abi.h"
#include "alloc_sampling.bpf.h"

char LICENSE[] SEC("license") = "GPL";

// The registers a uprobe's context holds (struct pt_regs on x86-64): read by name here.
struct hearth_pt_regs {
  __u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags,
      sp, ss;
};

// Set by user space before loading (and alloc_sampling.bpf.h's target_tgid and thresholds).
__u32 track_live = 0;  // 1: the live view's pending/live maps are kept
// Alignments at or below this are relayed by the aligned family to the allocator's own malloc,
// whose probe counts them (glibc's _mid_memalign calls __libc_malloc for alignment <=
// MALLOC_ALIGNMENT, 16 on x86-64): the aligned entry skips them, not to count one call twice.
// 0 for an allocator that does not relay.
__u64 relay_align = 0;

// A thread's sampling state.
struct thread_state {
  __s64 left;   // bytes left before the thread's next sample
  __u32 taken;  // samples taken of the thread (the low half of their ids)
  __u32 pad;
  // Live view: an entry that calls the allocator's malloc itself (realloc(NULL, n), an aligned
  // call glibc relays) had its return address replaced by the uretprobe's trampoline; where it
  // was (its sp at entry) and what it was, so a sample in the nested malloc unwinds past it.
  __u64 outer_sp;
  __u64 outer_ret;
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, __u32);  // tid
  __type(value, struct thread_state);
  __uint(max_entries, 65536);
} countdown SEC(".maps");

// Live view: a thread's sampled call between its entry and its return.
struct pending_block {
  __u64 seq;
  __u64 size;
  __u64 memptr;  // posix_memalign: where the block's address is written; 0: returned in rax
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, __u32);  // tid
  __type(value, struct pending_block);
  __uint(max_entries, 65536);
} pending SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u64);  // the block's address
  __type(value, struct hearth_alloc_live);
  __uint(max_entries, 65536);  // sized by user space before loading
} live SEC(".maps");


// An allocation of SIZE bytes by the calling thread; MEMPTR: posix_memalign's out-pointer.
static __always_inline int on_alloc(struct hearth_pt_regs* regs, __u64 size, __u32 kind,
                                    __u64 memptr) {
  __u64 id = bpf_get_current_pid_tgid();
  if ((__u32)(id >> 32) != target_tgid) return 0;
  __u32 tid = (__u32)id;
  struct thread_state* ts = bpf_map_lookup_elem(&countdown, &tid);
  __u64 outer_sp = 0, outer_ret = 0;
  if (ts && ts->outer_sp != 0) {
    outer_sp = ts->outer_sp;
    outer_ret = ts->outer_ret;
    ts->outer_sp = 0;  // one nested call's
  }
  if (size == 0) return 0;
  if (size > (1ULL << 40)) size = 1ULL << 40;  // an overflowing calloc: it fails anyway
  struct hearth_alloc_stats* st = stats_here();
  if (!st) return 0;
  st->calls++;
  st->bytes += size;

  __u32 taken = 0;
  if (!ts) {
    // A thread's first call: its first threshold, as if drawn when it started.
    struct thread_state first = {.left = draw() - (__s64)size};
    if (first.left > 0) {
      bpf_map_update_elem(&countdown, &tid, &first, BPF_ANY);
      return 0;
    }
    first.left = draw();
    first.taken = 1;
    bpf_map_update_elem(&countdown, &tid, &first, BPF_ANY);
  } else {
    ts->left -= (__s64)size;
    if (ts->left > 0) return 0;
    ts->left = draw();  // memoryless: what the crossing call left over is not carried
    taken = ts->taken++;
  }
  st->samples++;

  struct hearth_alloc_event* e = new_event(st, id, taken, size, kind);
  if (!e) return 0;
  bpf_probe_read_kernel(e->regs, sizeof e->regs, regs);
  e->stack_base = regs->sp;
  copy_stack(e, regs->sp);
  if (outer_sp >= regs->sp && outer_sp != 0) {  // equal: the outer entry jumped here
    // The outer entry's return address, in the copy, as it was before its uretprobe took it.
    __u64 off = outer_sp - regs->sp;
    if ((off & 7) == 0 && off + 8 <= e->stack_len) {
      off &= HEARTH_ALLOC_STACK_BYTES - 8;
      *(__u64*)(e->stack + off) = outer_ret;
    }
  }
  if (track_live) {
    struct pending_block p = {.seq = e->seq, .size = size, .memptr = memptr};
    bpf_map_update_elem(&pending, &tid, &p, BPF_ANY);
  }
  bpf_ringbuf_submit(e, 0);
  return 0;
}

// Live view: the block at ADDR is no more (free, or realloc's old pointer).
static __always_inline void on_free(__u64 addr) {
  if (!track_live || addr == 0) return;
  if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid) return;
  if (bpf_map_delete_elem(&live, &addr) != 0) return;  // not a sampled block: the common case
  struct hearth_alloc_stats* st = stats_here();
  if (st) st->freed++;
}

// Live view: the calling entry (its uretprobe about to take its return address) calls the
// allocator's malloc itself; on_alloc puts the address back in a nested sample's stack copy.
static __always_inline void note_outer(struct hearth_pt_regs* regs) {
  if (!track_live) return;
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  struct thread_state* ts = bpf_map_lookup_elem(&countdown, &tid);
  __u64 ret = 0;
  if (bpf_probe_read_user(&ret, sizeof ret, (void*)regs->sp) != 0) return;
  if (!ts) {
    // The thread's first call: its first threshold now, as on_alloc would draw it.
    struct thread_state first = {.left = draw(), .outer_sp = regs->sp, .outer_ret = ret};
    bpf_map_update_elem(&countdown, &tid, &first, BPF_NOEXIST);
    return;
  }
  ts->outer_sp = regs->sp;
  ts->outer_ret = ret;
}

// Whether ALIGN is one the aligned family relays to malloc (counted there); notes the outer
// entry when so.
static __always_inline int relayed(struct hearth_pt_regs* regs, __u64 align) {
  if (align > relay_align) return 0;
  note_outer(regs);
  return 1;
}

SEC("uprobe")
int hearth_malloc(struct hearth_pt_regs* ctx) {
  return on_alloc(ctx, ctx->di, HEARTH_ALLOC_MALLOC, 0);
}

SEC("uprobe")
int hearth_calloc(struct hearth_pt_regs* ctx) {
  return on_alloc(ctx, ctx->di * ctx->si, HEARTH_ALLOC_CALLOC, 0);
}

// realloc(NULL, n) is malloc(n), and glibc's realloc calls its malloc for it: counted there, not
// twice. realloc(p, 0) frees (glibc calls its free for it). realloc(p, n) allocates n bytes and
// p's block is gone, moved or not (a failed realloc keeps it: rare, and then it leaves the live
// view early).
SEC("uprobe")
int hearth_realloc(struct hearth_pt_regs* ctx) {
  if (ctx->di == 0) {
    note_outer(ctx);
    return 0;
  }
  on_free(ctx->di);
  return on_alloc(ctx, ctx->si, HEARTH_ALLOC_REALLOC, 0);
}

// posix_memalign(void **memptr, size_t alignment, size_t size): an alignment that is not a
// power of two times sizeof(void *) fails with EINVAL, allocating nothing.
SEC("uprobe")
int hearth_posix_memalign(struct hearth_pt_regs* ctx) {
  const __u64 align = ctx->si;
  if (align == 0 || (align & (align - 1)) != 0 || (align & 7) != 0 || relayed(ctx, align)) return 0;
  return on_alloc(ctx, ctx->dx, HEARTH_ALLOC_POSIX_MEMALIGN, ctx->di);
}

SEC("uprobe")
int hearth_aligned_alloc(struct hearth_pt_regs* ctx) {
  if (relayed(ctx, ctx->di)) return 0;
  return on_alloc(ctx, ctx->si, HEARTH_ALLOC_ALIGNED_ALLOC, 0);
}

SEC("uprobe")
int hearth_memalign(struct hearth_pt_regs* ctx) {
  if (relayed(ctx, ctx->di)) return 0;
  return on_alloc(ctx, ctx->si, HEARTH_ALLOC_MEMALIGN, 0);
}

SEC("uprobe")
int hearth_valloc(struct hearth_pt_regs* ctx) {
  return on_alloc(ctx, ctx->di, HEARTH_ALLOC_VALLOC, 0);
}

// pvalloc(size) allocates SIZE rounded up to whole pages, one page for 0.
SEC("uprobe")
int hearth_pvalloc(struct hearth_pt_regs* ctx) {
  __u64 size = ctx->di;
  if (size > (1ULL << 40)) size = 1ULL << 40;
  size = size == 0 ? HEARTH_ALLOC_PAGE
                   : (size + HEARTH_ALLOC_PAGE - 1) & ~(__u64)(HEARTH_ALLOC_PAGE - 1);
  return on_alloc(ctx, size, HEARTH_ALLOC_PVALLOC, 0);
}

SEC("uprobe")
int hearth_free(struct hearth_pt_regs* ctx) {
  on_free(ctx->di);
  return 0;
}

// Live view, at the return of every allocation entry: the thread's pending sampled call (if
// any: most calls were not sampled) gets its block's address, and the block enters "live". A
// nested call (glibc's realloc calling its malloc for a moved mmap'ed block) may take the
// outer's pending: its address is the one the outer returns.
SEC("uretprobe")
int hearth_alloc_return(struct hearth_pt_regs* ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  if ((__u32)(id >> 32) != target_tgid) return 0;
  __u32 tid = (__u32)id;
  struct pending_block* p = bpf_map_lookup_elem(&pending, &tid);
  if (!p) return 0;
  struct pending_block got = *p;
  bpf_map_delete_elem(&pending, &tid);
  __u64 addr = ctx->ax;
  if (got.memptr != 0) {
    // posix_memalign returns 0 on success and writes the address to *memptr.
    addr = 0;
    if (ctx->ax == 0 && bpf_probe_read_user(&addr, sizeof addr, (void*)got.memptr) != 0) addr = 0;
  }
  if (addr == 0) return 0;  // the allocation failed
  struct hearth_alloc_live block = {.seq = got.seq, .size = got.size};
  if (bpf_map_update_elem(&live, &addr, &block, BPF_ANY) != 0) {
    struct hearth_alloc_stats* st = stats_here();
    if (st) st->dropped++;
  }
  return 0;
}
