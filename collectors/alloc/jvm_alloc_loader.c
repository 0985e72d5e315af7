// See jvm_alloc_loader.h.
#include "collectors/alloc/jvm_alloc_loader.h"

#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "collectors/alloc/alloc_abi.h"
#include "collectors/alloc/jvm_alloc.skel.h"  // generated from jvm_alloc.bpf.c at build time

int hearth_jvm_alloc_load(uint32_t tgid, uint32_t ring_bytes, const uint64_t* thresholds,
                          struct hearth_jvm_alloc_loaded* out) {
  memset(out, 0, sizeof *out);
  struct jvm_alloc_bpf* s = jvm_alloc_bpf__open();
  if (s == NULL) return errno != 0 ? -errno : -ENOMEM;
  s->bss->target_tgid = tgid;
  memcpy(s->bss->thresholds, thresholds, sizeof s->bss->thresholds);
  int r = 0;
  if (ring_bytes != 0) r = bpf_map__set_max_entries(s->maps.events, ring_bytes);
  if (r == 0) r = jvm_alloc_bpf__load(s);
  if (r != 0) {
    const int e = r < 0 ? -r : (errno != 0 ? errno : EINVAL);
    jvm_alloc_bpf__destroy(s);
    return -e;
  }
  out->skel = s;
  out->events_fd = bpf_map__fd(s->maps.events);
  out->stats_fd = bpf_map__fd(s->maps.stats);
  return 0;
}

struct bpf_link* hearth_jvm_alloc_attach(struct hearth_jvm_alloc_loaded* loaded, pid_t pid,
                                         const char* path) {
  struct jvm_alloc_bpf* s = (struct jvm_alloc_bpf*)loaded->skel;
  return bpf_program__attach_usdt(s->progs.hearth_jvm_new, pid, path, "hotspot",
                                  "object__alloc", NULL);
}

void hearth_jvm_alloc_unload(struct hearth_jvm_alloc_loaded* loaded) {
  if (loaded->skel != NULL) jvm_alloc_bpf__destroy((struct jvm_alloc_bpf*)loaded->skel);
  memset(loaded, 0, sizeof *loaded);
}
