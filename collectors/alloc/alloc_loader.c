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
  s->bss->track_live = settings->track_live;
  s->bss->relay_align = settings->relay_align;
  memcpy(s->bss->thresholds, settings->thresholds, sizeof s->bss->thresholds);
  int r = 0;
  if (settings->ring_bytes != 0) r = bpf_map__set_max_entries(s->maps.events, settings->ring_bytes);
  if (r == 0 && settings->live_entries != 0)
    r = bpf_map__set_max_entries(s->maps.live, settings->live_entries);
  if (r == 0) r = alloc_bpf__load(s);
  if (r != 0) {
    const int e = r < 0 ? -r : (errno != 0 ? errno : EINVAL);
    alloc_bpf__destroy(s);
    return -e;
  }
  out->skel = s;
  out->events_fd = bpf_map__fd(s->maps.events);
  out->stats_fd = bpf_map__fd(s->maps.stats);
  out->live_fd = bpf_map__fd(s->maps.live);
  return 0;
}

struct bpf_link* hearth_alloc_attach(struct hearth_alloc_loaded* loaded, int kind, int return_,
                                     pid_t pid, const char* path, uint64_t offset) {
  struct alloc_bpf* s = (struct alloc_bpf*)loaded->skel;
  struct bpf_program* prog = NULL;
  if (return_) {
    prog = s->progs.hearth_alloc_return;
  } else {
    switch (kind) {
      case HEARTH_ALLOC_MALLOC:
        prog = s->progs.hearth_malloc;
        break;
      case HEARTH_ALLOC_CALLOC:
        prog = s->progs.hearth_calloc;
        break;
      case HEARTH_ALLOC_REALLOC:
        prog = s->progs.hearth_realloc;
        break;
      case HEARTH_ALLOC_POSIX_MEMALIGN:
        prog = s->progs.hearth_posix_memalign;
        break;
      case HEARTH_ALLOC_ALIGNED_ALLOC:
        prog = s->progs.hearth_aligned_alloc;
        break;
      case HEARTH_ALLOC_MEMALIGN:
        prog = s->progs.hearth_memalign;
        break;
      case HEARTH_ALLOC_VALLOC:
        prog = s->progs.hearth_valloc;
        break;
      case HEARTH_ALLOC_PVALLOC:
        prog = s->progs.hearth_pvalloc;
        break;
      case HEARTH_ALLOC_FREE:
        prog = s->progs.hearth_free;
        break;
      default:
        errno = EINVAL;
        return NULL;
    }
  }
  LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = return_ != 0);
  return bpf_program__attach_uprobe_opts(prog, pid, path, (size_t)offset, &opts);
}

void hearth_alloc_unload(struct hearth_alloc_loaded* loaded) {
  if (loaded->skel != NULL) alloc_bpf__destroy((struct alloc_bpf*)loaded->skel);
  memset(loaded, 0, sizeof *loaded);
}
