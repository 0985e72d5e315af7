// Writes a FrameTree as a pprof profile (profile.proto, gzipped: what `go tool pprof` reads).
// One sample per stack with a count; sample types samples/count, and wall/nanoseconds (or
// cpu/nanoseconds) when the sampling period is known (count x period). Root frames that name a
// thread or a process become per-sample labels (pprof_labels.h: thread, thread_id, process, pid);
// every other frame is a location with one line, of a function named as the frame (one function
// and one location per distinct name). A frame the sampler could not name, "[MODULE+0xOFFSET]",
// also has a mapping of file MODULE (starting at 0) and the address OFFSET. Folded stacks hold no
// other addresses, no build-ids, inlining or source lines: pprof's fields for them are left out.
#pragma once

#include <string>

#include "common/result.h"
#include "render/profile/frame_tree.h"

namespace hearth::profile {

struct PprofWriteOptions {
  double period_ns = 0;  // the time between two samples; 0: unknown (no wall/nanoseconds)
  // The type of the time sample type (and the period's): "wall" (every thread, whatever its
  // state), or "cpu" (a profile of on-CPU stacks only, as Go's CPU profiles are).
  std::string time_type = "wall";
  // Root frames naming a thread or a process become labels (false: they stay frames, as in the
  // folded stacks; what a Pyroscope push wants, where labels become series).
  bool root_labels = true;
};

// The profile as protobuf bytes, not gzipped. Fails on a tree pprof cannot hold: fractional or
// differential counts, a count past int64.
Result<std::string> to_pprof(const FrameTree& tree, const PprofWriteOptions& options = {});
// to_pprof, gzipped, written atomically to PATH ("-": standard output).
Result<void> write_pprof(const FrameTree& tree, const std::string& path,
                         const PprofWriteOptions& options = {});

}  // namespace hearth::profile
