// Writes hearth's timed samples (formats/timed_samples.h: DIR/stacks.samples.txt, `hearth stacks
// --samples`) as a speedscope file in time order: one "sampled" profile per thread (named as its
// root frames, unit nanoseconds), its samples in the order taken, each weighted by the time to the
// next sample of its process (the last one by the gap before it; 1 ns when alone), so
// speedscope's Time Order view shows when each stack was seen. Threads' states are not kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/timed_samples.h"

namespace hearth::profile {

std::string timed_to_speedscope(const timed_samples::Samples& samples);

// The time each round stands for (ns), by round: the time to the next sample of its process; a
// process's last sample, the gap before it (0 when it was sampled once). The weight of a timed
// sample in the writers that weigh by time (this one, pprof_timed.h).
std::vector<uint64_t> timed_round_ns(const timed_samples::Samples& samples);

}  // namespace hearth::profile
