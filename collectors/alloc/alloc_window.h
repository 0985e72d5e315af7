// One sampling window of the allocation probes, as `hearth alloc` and `hearth record --alloc`
// run it: poll the probe's ring buffer (each sample to the caller) until the window ends, the
// target exits or a poll fails, with the profile's view of the target's mappings refreshed about
// once a second; then the probes detached (the target runs unprobed from there) and the samples
// still in the ring buffer read.
#pragma once

#include <functional>
#include <string>

#include "collectors/alloc/alloc_probe.h"
#include "collectors/alloc/alloc_profile.h"

namespace hearth::alloc {

struct AllocWindow {
  int pidfd = -1;                 // the target's pidfd: the window ends with the process
  std::function<bool()> ended;    // the window's end, asked about every 100 ms
  std::function<void()> polled;   // after each poll (a rate's reading), if set
};

struct AllocWindowEnd {
  bool exited = false;  // the target exited before the window's end
  std::string error;    // a poll failed: why (the window ended there)
};

// Runs the window on PROBE (detached when it returns), samples to SAMPLE, maps refreshed in
// PROFILE.
AllocWindowEnd run_alloc_window(const AllocWindow& window, AllocProbe& probe,
                                AllocProfile& profile, const AllocProbe::Sample& sample);

}  // namespace hearth::alloc
