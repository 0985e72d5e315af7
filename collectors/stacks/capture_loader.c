// See capture_loader.h.
#include "collectors/stacks/capture_loader.h"

#include <errno.h>
#include <string.h>

#include "collectors/stacks/capture.lskel.h"  // generated from capture.bpf.c at build time

int hearth_capture_load(const struct hearth_capture_settings* settings,
                        struct hearth_capture_loaded* out) {
  memset(out, 0, sizeof *out);
  struct capture_bpf* s = capture_bpf__open();
  if (s == NULL) return errno != 0 ? -errno : -ENOMEM;
  s->data->read_budget = settings->read_budget;
  s->data->default_pages = settings->default_pages;
  s->data->kernel_stacks = settings->kernel_stacks;
  s->bss->filter_tgids = settings->filter_tgids;
  // The loader creates the maps with these sizes (0 keeps the program's own).
  s->maps.arena.max_entries = settings->arena_pages;
  s->maps.seen.max_entries = settings->max_threads;
  s->maps.pages_for.max_entries = settings->max_threads;
  s->maps.tgids.max_entries = settings->tgids_entries;
  const int r = capture_bpf__load(s);
  if (r != 0) {
    const int e = errno != 0 ? errno : (r < 0 ? -r : EINVAL);
    capture_bpf__destroy(s);
    return -e;
  }
  out->skel = s;
  out->prog_fd = s->progs.hearth_capture.prog_fd;
  out->arena_fd = s->maps.arena.map_fd;
  out->seen_fd = s->maps.seen.map_fd;
  out->pages_for_fd = s->maps.pages_for.map_fd;
  out->tgids_fd = s->maps.tgids.map_fd;
  out->cursor = &s->bss->cursor;
  out->read_records = &s->bss->read_records;
  out->pass_id = &s->bss->pass_id;
  out->report_children = &s->bss->report_children;
  out->pages_for_used = &s->bss->pages_for_used;
  return 0;
}

void hearth_capture_unload(struct hearth_capture_loaded* loaded) {
  if (loaded->skel != NULL) capture_bpf__destroy((struct capture_bpf*)loaded->skel);
  memset(loaded, 0, sizeof *loaded);
}
