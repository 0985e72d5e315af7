// Loads jvm_alloc.bpf.c's program through libbpf's skeleton and attaches it to HotSpot's
// object__alloc USDT probe (libbpf parses the stapsdt note and the argument specs). The C side
// of jvm_alloc_probe.cpp, which owns what it returns. Not thread-safe.
#ifndef HEARTH_COLLECTORS_ALLOC_JVM_ALLOC_LOADER_H
#define HEARTH_COLLECTORS_ALLOC_JVM_ALLOC_LOADER_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bpf_link;

struct hearth_jvm_alloc_loaded {
  void* skel;  // the skeleton; null when not loaded
  int events_fd, stats_fd;
};

// Loads the program for process TGID with THRESHOLDS (HEARTH_ALLOC_THRESHOLDS of them) and a
// ring buffer of RING_BYTES (0: the default) into *OUT. 0, or a negative errno.
int hearth_jvm_alloc_load(uint32_t tgid, uint32_t ring_bytes, const uint64_t* thresholds,
                          struct hearth_jvm_alloc_loaded* out);
// Attaches to the object__alloc probe of the libjvm at PATH, for process PID only. The link, or
// null with errno set.
struct bpf_link* hearth_jvm_alloc_attach(struct hearth_jvm_alloc_loaded* loaded, pid_t pid,
                                         const char* path);
void hearth_jvm_alloc_unload(struct hearth_jvm_alloc_loaded* loaded);

#ifdef __cplusplus
}
#endif

#endif  // HEARTH_COLLECTORS_ALLOC_JVM_ALLOC_LOADER_H
