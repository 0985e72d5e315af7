// Reads a pprof profile (profile.proto: what Go's runtime/pprof and `go tool pprof` write) as
// stacks: each sample is one stack, root first, with one value.
//   - The value: the sample type named by default_sample_type; else the first samples/count;
//     else the last type (pprof's own default). Negative values are skipped.
//   - Frames: a location's lines, outermost (caller) first, so inlined functions are frames of
//     their own; each named by its function's name (its system name when that is empty); ';'
//     becomes ':' and line breaks spaces, so a name is one folded frame. A location without
//     lines is "[FILE]" for its mapping's file's base name, else "0xADDRESS", else "[unknown]".
//   - Labels thread/thread_id, process/pid become hearth's root frames (pprof_labels.h).
// Bad data (truncated, a wire type that does not fit, an index past a table) is an error, as a
// whole: nothing is given before the profile has been checked through. Memory: a few times the
// protobuf's size.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "common/result.h"

namespace hearth::profile {

// The most pprof bytes read (after gunzip): Go's profiles are a few MiB; this bounds what a gzip
// bomb or a huge file makes hearth hold.
inline constexpr size_t kMaxPprofBytes = size_t{256} << 20;

// Whether HEAD (a file's first bytes) is pprof's: gzip (pprof files are gzipped), or a raw
// profile.proto message that starts with a sample_type (as every writer of pprof does).
bool looks_like_pprof(std::string_view head);

struct PprofStats {
  uint64_t samples = 0;          // given to the callback
  uint64_t skipped = 0;          // samples with a negative value
  std::string_view sample_type;  // the type of the values given ("samples", "cpu", …)
  std::string_view unit;         // "count", "nanoseconds", …
};

// EACH gets every sample's frames (root first; views valid during the call) and value. DATA is
// protobuf bytes (gunzipped). Returns what was read, or an error (then EACH was never called).
Result<PprofStats> read_pprof(
    std::string_view data,
    const std::function<void(std::span<const std::string_view>, int64_t)>& each);

}  // namespace hearth::profile
