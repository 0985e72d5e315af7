// Transformations of a finalized FrameTree into a new one: keep some threads, keep stacks
// that call something, merge pool threads. Each returns a new, finalized tree.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/pattern.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

// A depth-1 frame that names a thread: `[NAME tid=TID]`, `[NAME]` (but not `[unknown]`,
// `[vdso]`, `[libc.so.6]`, `[module+0x12]` and other module names),
// or perf's `comm-PID/TID`.
bool is_thread_root(std::string_view name);
// The thread's name without ids: "[worker-3 tid=9]" -> "worker-3"; "java-1/2" -> "java".
std::string_view thread_name(std::string_view root);
// The pool a thread belongs to: digit runs become '*': "[worker-12 tid=5]" -> "[worker-*]";
// a role keeps its entry function whole: "[app:run_shard2 tid=5]" -> "[app:run_shard2]"
// (common/pool_name.h).
std::string thread_group(std::string_view root);

struct FilterOptions {
  std::optional<Pattern> only_threads;  // keep depth-1 frames matching (search)
  std::optional<Pattern> grep;          // keep stacks with some frame matching (search)
  bool group_threads = false;           // rename thread roots to their pool
};

bool filters_active(const FilterOptions& options);
FrameTree apply_filters(const FrameTree& tree, const FilterOptions& options);

}  // namespace hearth::profile
