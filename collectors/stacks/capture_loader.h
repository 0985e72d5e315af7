// Loads capture.bpf.c's program through a light skeleton (bpftool gen skeleton -L): a small
// loader program does the CO-RE relocations and finds the iterator's attach point inside the
// kernel, against the kernel's own BTF. libbpf's ordinary skeleton instead reads and parses the
// whole vmlinux BTF in user space (/sys/kernel/btf/vmlinux, ~6 MB: read, copied and indexed in
// fresh memory), which was half of a warm one-shot's CPU.
// The generated loader is C (it does not compile as C++): this is its C side, plain fds and
// pointers for capture_bpf.cpp. Not thread-safe; each loaded program is used under its owner's
// lock.
#ifndef HEARTH_COLLECTORS_STACKS_CAPTURE_LOADER_H
#define HEARTH_COLLECTORS_STACKS_CAPTURE_LOADER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hearth_capture_settings {
  uint32_t read_budget;    // capture.bpf.c's globals of the same names
  uint32_t default_pages;
  uint32_t kernel_stacks;
  uint32_t arena_pages;    // entries of the maps (0: the program's own default)
  uint32_t max_threads;
  uint32_t filter_tgids;   // a set's program: keeps the tasks of the "tgids" processes
  uint32_t tgids_entries;  // entries of "tgids"
};

struct hearth_capture_loaded {
  void* skel;  // the light skeleton; null when not loaded
  int prog_fd, arena_fd, seen_fd, pages_for_fd, tgids_fd;
  // The program's .bss globals, mapped writable: user space resets them between reads.
  volatile uint32_t* cursor;
  volatile uint32_t* read_records;
  volatile uint32_t* pass_id;
  volatile uint32_t* report_children;
  volatile uint32_t* pages_for_used;  // set before the first write to pages_for
};

// Loads the program with SETTINGS into *OUT. 0, or a negative errno (nothing left loaded).
int hearth_capture_load(const struct hearth_capture_settings* settings,
                        struct hearth_capture_loaded* out);
// Closes everything of a loaded program (no-op when not loaded) and clears *LOADED.
void hearth_capture_unload(struct hearth_capture_loaded* loaded);

#ifdef __cplusplus
}
#endif

#endif  // HEARTH_COLLECTORS_STACKS_CAPTURE_LOADER_H
