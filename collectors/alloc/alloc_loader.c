// See alloc_loader.h.
#include "collectors/alloc/alloc_loader.h"

#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "collectors/alloc/alloc.skel.h"  // generated from alloc.bpf.c at build time
#include "collectors/alloc/alloc_abi.h"

int hearth_alloc_load(const struct hearth_alloc_settings* settings,
                      struct hearth_alloc_loaded* out) {
  memset(out, 0, sizeof *out);
  struct alloc_bpf* s = alloc_bpf__open();
  if (s == NULL) return errno != 0 ? -errno : -ENOMEM;
  s->bss->target_tgid = settings->tgid;
  memcpy(s->bss->thresholds, settings->thresholds, sizeof s->bss->thresholds);
  int r = 0;
  if (settings->ring_bytes != 0) r = bpf_map__set_max_entries(s->maps.events, settings->ring_bytes);
  if (r == 0) r = alloc_bpf__load(s);
  if (r != 0) {
    const int e = r < 0 ? -r : (errno != 0 ? errno : EINVAL);
    alloc_bpf__destroy(s);
    return -e;
  }
  out->skel = s;
  out->events_fd = bpf_map__fd(s->maps.events);
  out->stats_fd = bpf_map__fd(s->maps.stats);
  return 0;
}

struct bpf_link* hearth_alloc_attach(struct hearth_alloc_loaded* loaded, int kind, pid_t pid,
                                     const char* path, uint64_t offset) {
  struct alloc_bpf* s = (struct alloc_bpf*)loaded->skel;
  struct bpf_program* prog = kind == HEARTH_ALLOC_MALLOC   ? s->progs.hearth_malloc
                             : kind == HEARTH_ALLOC_CALLOC ? s->progs.hearth_calloc
                                                           : s->progs.hearth_realloc;
  LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = false);
  return bpf_program__attach_uprobe_opts(prog, pid, path, (size_t)offset, &opts);
}

void hearth_alloc_unload(struct hearth_alloc_loaded* loaded) {
  if (loaded->skel != NULL) alloc_bpf__destroy((struct alloc_bpf*)loaded->skel);
  memset(loaded, 0, sizeof *loaded);
}
