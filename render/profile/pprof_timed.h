// Writes hearth's timed samples (formats/timed_samples.h: DIR/stacks.samples.txt) as a pprof
// profile (profile.proto, gzipped) that keeps each sample's thread, state and time, so a
// recording leaves the host for pprof's tools: `go tool pprof -tags` lists them,
// `-tagfocus=state=D`, `-tagfocus=time=2s:3s` or `-tagfocus=thread_id=4243` pick samples by them.
//
// One pprof sample per thread per sample taken (timed_samples::expand), its locations the
// thread's stack (leaf first; one function and one location per distinct frame name, as
// pprof_writer.h), with values samples/count 1 and wall/nanoseconds the time the sample stands
// for (timed_round_ns: the time to its process's next sample). Labels:
//   thread     the thread's name (string)         thread_id  its tid (number)
//   process    the process's name, pid its pid, when the root names them (several processes)
//   state      R, S, D, … as /proc showed it (string)
//   time       the sample's time, nanoseconds since the recording's time 0 (number, unit
//              "nanoseconds": `-tagfocus=time=1.5s:2s` takes seconds)
// Roots that labels cannot write back exactly stay frames (pprof_labels.h). The profile's
// time_nanos is the wall clock of time 0 when the recording has it, duration_nanos its span.
#pragma once

#include <string>

#include "common/result.h"
#include "formats/timed_samples.h"

namespace hearth::profile {

// The profile as protobuf bytes, not gzipped.
std::string timed_to_pprof(const timed_samples::Samples& samples);
// timed_to_pprof, gzipped, written atomically to PATH.
Result<void> write_timed_pprof(const timed_samples::Samples& samples, const std::string& path);

}  // namespace hearth::profile
