#include "collectors/stacks/roots.h"

#include "formats/folded.h"

namespace hearth::stacks {

std::string sample_root(const RootParts& p, const AggregateOptions& o) {
  std::string thread = formats::thread_root(p.thread, p.tid, o.merge_threads);
  if (!o.process_roots) return thread;
  std::string root = formats::process_root(p.process, p.pid, o.merge_threads);
  if (o.title_frames) {
    root += ";[";
    root += formats::folded_safe(p.title.empty() ? p.process : p.title);
    root += ']';
  }
  if (p.multi_threaded) {
    root += ';';
    root += thread;
  }
  return root;
}

std::string_view state_frame(char state) {
  switch (state) {
    case 'R':
      return "[R running]";
    case 'S':
      return "[S sleeping]";
    case 'D':
      return "[D uninterruptible]";
    case 'T':
      return "[T stopped]";
    case 't':
      return "[t traced]";
    case 'Z':
      return "[Z zombie]";
    case 'I':
      return "[I idle]";
    default:
      return "[? unknown state]";
  }
}

}  // namespace hearth::stacks
