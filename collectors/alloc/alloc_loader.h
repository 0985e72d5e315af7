// Loads alloc.bpf.c's programs through libbpf's skeleton (bpftool gen skeleton) and attaches
// them as uprobes. The skeleton is C: this is its C side, plain fds and pointers for
// alloc_probe.cpp, which owns what it returns. The programs use no CO-RE relocation, so loading
// reads no kernel BTF. Not thread-safe.
#ifndef HEARTH_COLLECTORS_ALLOC_ALLOC_LOADER_H
#define HEARTH_COLLECTORS_ALLOC_ALLOC_LOADER_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bpf_link;

struct hearth_alloc_settings {
  uint32_t tgid;               // the process whose calls count
  uint32_t ring_bytes;         // the ring buffer's size (a power of two, whole pages)
  const uint64_t* thresholds;  // HEARTH_ALLOC_THRESHOLDS byte thresholds
  uint32_t track_live;         // 1: keep the sampled blocks' addresses (the live view)
  uint32_t live_entries;       // the "live" map's size (sampled blocks tracked at once)
  uint64_t relay_align;        // alignments the aligned family hands to malloc (alloc.bpf.c)
};

struct hearth_alloc_loaded {
  void* skel;  // the skeleton; null when not loaded
  int events_fd, stats_fd, live_fd;
};

// Loads the programs with SETTINGS into *OUT. 0, or a negative errno (nothing left loaded).
int hearth_alloc_load(const struct hearth_alloc_settings* settings,
                      struct hearth_alloc_loaded* out);
// Attaches the program for KIND (hearth_alloc_kind, HEARTH_ALLOC_FREE included) as a uprobe at
// file offset OFFSET of the file at PATH, for process PID only; with RETURN, the live view's
// return program as a uretprobe there instead. The link, or null with errno set. The caller
// destroys it (bpf_link__destroy) before unloading.
struct bpf_link* hearth_alloc_attach(struct hearth_alloc_loaded* loaded, int kind, int return_,
                                     pid_t pid, const char* path, uint64_t offset);
// Closes everything of a loaded skeleton (no-op when not loaded) and clears *LOADED.
void hearth_alloc_unload(struct hearth_alloc_loaded* loaded);

#ifdef __cplusplus
}
#endif

#endif  // HEARTH_COLLECTORS_ALLOC_ALLOC_LOADER_H
