// What the allocation probes' BPF programs share (alloc.bpf.c: malloc and its family;
// jvm_alloc.bpf.c: HotSpot's object__alloc): the process probed, the table of byte thresholds
// the sampling draws from, the ring buffer of sampled events, the per-CPU counters, and the copy
// of a sampled thread's stack top. Included once by each program (each has its own copies).
#pragma once

#include <linux/bpf.h>
#include <linux/types.h>

#include <bpf/bpf_helpers.h>

#include "alloc_abi.h"

// Set by user space before loading.
__u32 target_tgid = 0;
__u64 thresholds[HEARTH_ALLOC_THRESHOLDS];  // bytes: exponential draws of the chosen mean

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24);  // sized by user space before loading
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, struct hearth_alloc_stats);
  __uint(max_entries, 1);
} stats SEC(".maps");

// A fresh byte threshold: a random entry of the table.
static __always_inline __s64 draw(void) {
  __u32 i = bpf_get_prandom_u32() & (HEARTH_ALLOC_THRESHOLDS - 1);
  return (__s64)thresholds[i];
}

// Copies as much of the stack from SP as can be read, largest first: a copy that would run
// past the end of the stack's mapping (a main thread near its top) fails whole.
static __always_inline void copy_stack(struct hearth_alloc_event* e, __u64 sp) {
  void* from = (void*)sp;
  e->stack_len = 0;
  if (bpf_probe_read_user(e->stack, 16384, from) == 0)
    e->stack_len = 16384;
  else if (bpf_probe_read_user(e->stack, 8192, from) == 0)
    e->stack_len = 8192;
  else if (bpf_probe_read_user(e->stack, 4096, from) == 0)
    e->stack_len = 4096;
  else if (bpf_probe_read_user(e->stack, 2048, from) == 0)
    e->stack_len = 2048;
  else if (bpf_probe_read_user(e->stack, 1024, from) == 0)
    e->stack_len = 1024;
  else if (bpf_probe_read_user(e->stack, 256, from) == 0)
    e->stack_len = 256;
}

// This CPU's counters.
static __always_inline struct hearth_alloc_stats* stats_here(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&stats, &zero);
}

// The ring buffer's next event for the calling thread's TAKEN-th sample (ID: its pid_tgid), its
// head filled (sample id, thread, process, SIZE, KIND, comm); null, counted lost, when the
// buffer is full.
static __always_inline struct hearth_alloc_event* new_event(struct hearth_alloc_stats* st, __u64 id,
                                                           __u32 taken, __u64 size, __u32 kind) {
  struct hearth_alloc_event* e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
  if (!e) {
    st->lost++;
    return 0;
  }
  const __u32 tid = (__u32)id;
  e->seq = ((__u64)tid << 32) | taken;
  e->tid = tid;
  e->tgid = (__u32)(id >> 32);
  e->size = size;
  e->kind = kind;
  bpf_get_current_comm(e->comm, sizeof e->comm);
  return e;
}
