// The data the heatmap page embeds (templates/heatmap_data.js reads it): the timed samples as they
// are stored, a dictionary plus the changes between samples, never a record per sample, so the
// page grows with the changes (1 h at 10 Hz x 100 threads: a few MB). One JSON object; `<`,
// `>` and `&` are written as \u escapes, so it may stand inside a <script> element.
//
//   v        1
//   title, name, pid, source    what the page shows; source: the file read
//   real_ns  time 0 on the wall clock, ns since the epoch, as a decimal string ("0": unknown)
//   row_ns, rows, columns, chosen   the grid (heat_grid.h Layout); chosen: how, for people
//   damage   "" or "PATH:LINE: MESSAGE": the file was cut there (what came before is here)
//   frames   every frame name (stacks' and thread roots'), in the flamegraph's sibling order
//            (bytes of NAME followed by ';'), so the script orders siblings by index
//   fills    "#rrggbb" colours; ffill[i]: frame i's colour (hot palette, as `hearth flame`),
//            allfill: the root "all"'s;
//            tfill[i]: its colour as a thread root at depth 1, or -1 when it is not one
//   stacks   {n: [frames per stack], f: [frame indexes, root side first, concatenated]}
//   threads  {tid: [...], pid: [...], n: [root frames per thread], f: [frame indexes]}
//   procs    [pid, ...]: the processes rounds refer to by index
//   states   the state letters in use, a string; a change's state is an index into it
//   rounds   the number of samples (rounds)
//   changes  the number of changes
//   data     base64 of unsigned LEB128 varints: per round, the time since the previous round
//            (ns), the process index, the number of changes; per change, the thread index as
//            a zigzag delta from the previous change's thread in that round (from 0), then
//            stack * 128 + state index (state index 127: the thread is gone, stack 0)
#pragma once

#include "render/page/page_text.h"

#include <string>

#include "formats/timed_samples.h"
#include "render/time/heat_grid.h"

namespace hearth::heat {

struct DataOptions {
  std::string title;
  std::string source;  // the file read, as the user named it
};

// Appends the JSON object to *OUT.
void append_page_data(std::string* out, const timed_samples::Samples& samples, const Layout& layout,
                      const DataOptions& options);

// The page's JSON strings (render/page/page_text.h).
using page::append_json_string;

}  // namespace hearth::heat
