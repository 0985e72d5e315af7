// The JVM's allocation probe: HotSpot's object__alloc USDT probe (fired for every Java object
// once the JVM runs with -XX:+ExtendedDTraceProbes), attached through libbpf's USDT support
// (usdt.bpf.h reads the probe's arguments where its stapsdt note says they are). Sampled by
// bytes as alloc.bpf.c samples malloc: each thread counts down a random byte threshold (drawn
// from the table user space filled before loading), and the object that takes it to zero or
// below is sampled: its class name, its size, the thread's registers and the top of its stack go
// into the ring buffer in alloc_abi.h's event, for the same unwinder.
//
// The probe's arguments (HotSpot's SharedRuntime::dtrace_object_alloc): the Java thread's id,
// the class name's bytes (not NUL-terminated), their length, and the object's size in bytes.
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <linux/types.h>
#include <stdbool.h>  // usdt.bpf.h uses bool

#include <bpf/bpf_helpers.h>  // after linux/types.h, whose types it uses
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "alloc_abi.h"
#include "alloc_sampling.bpf.h"

char LICENSE[] SEC("license") = "GPL";

// A thread's sampling state: bytes left before its next sample, samples taken.
struct jvm_thread_state {
  __s64 left;
  __u32 taken;
  __u32 pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, __u32);  // tid
  __type(value, struct jvm_thread_state);
  __uint(max_entries, 65536);
} countdown SEC(".maps");

SEC("usdt")
int BPF_USDT(hearth_jvm_new, long java_tid, long name, long name_len, long size) {
  __u64 id = bpf_get_current_pid_tgid();
  if ((__u32)(id >> 32) != target_tgid) return 0;
  __u32 tid = (__u32)id;
  if (size <= 0) return 0;
  struct hearth_alloc_stats* st = stats_here();
  if (!st) return 0;
  st->calls++;
  st->bytes += (__u64)size;

  __u32 taken = 0;
  struct jvm_thread_state* ts = bpf_map_lookup_elem(&countdown, &tid);
  if (!ts) {
    // A thread's first object: its first threshold, as if drawn when it started.
    struct jvm_thread_state first = {.left = draw() - size};
    if (first.left > 0) {
      bpf_map_update_elem(&countdown, &tid, &first, BPF_ANY);
      return 0;
    }
    first.left = draw();
    first.taken = 1;
    bpf_map_update_elem(&countdown, &tid, &first, BPF_ANY);
  } else {
    ts->left -= size;
    if (ts->left > 0) return 0;
    ts->left = draw();
    taken = ts->taken++;
  }
  st->samples++;

  struct hearth_alloc_event* e = new_event(st, id, taken, (__u64)size, HEARTH_ALLOC_JVM_OBJECT);
  if (!e) return 0;
  __u32 len = name_len < 0 ? 0 : (__u32)name_len;
  if (len > HEARTH_ALLOC_CLASS_BYTES) len = HEARTH_ALLOC_CLASS_BYTES;
  e->class_len = 0;
  if (len > 0 && bpf_probe_read_user(e->class_name, len & (HEARTH_ALLOC_CLASS_BYTES * 2 - 1),
                                     (void*)name) == 0)
    e->class_len = len;
  bpf_probe_read_kernel(e->regs, sizeof e->regs, ctx);
  e->stack_base = PT_REGS_SP(ctx);
  copy_stack(e, PT_REGS_SP(ctx));
  bpf_ringbuf_submit(e, 0);
  return 0;
}
