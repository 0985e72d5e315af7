#include "collectors/alloc/alloc_window.h"

#include <poll.h>

#include <chrono>

namespace hearth::alloc {
namespace {

using AllocWindowClock = std::chrono::steady_clock;
constexpr auto kAllocWindowPoll = std::chrono::milliseconds(100);
constexpr auto kAllocWindowMapsCheck = std::chrono::seconds(1);

// Whether the process behind PIDFD has exited (a pidfd polls readable then).
bool target_exited(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace

AllocWindowEnd run_alloc_window(const AllocWindow& w, AllocProbe& probe, AllocProfile& profile,
                                const AllocProbe::Sample& sample) {
  AllocWindowEnd end;
  auto next_maps_check = AllocWindowClock::now() + kAllocWindowMapsCheck;
  while (!w.ended()) {
    if (target_exited(w.pidfd)) {
      end.exited = true;
      break;
    }
    auto r = probe.poll(kAllocWindowPoll, sample);
    if (!r) {
      end.error = r.error().message;
      break;
    }
    if (w.polled) w.polled();
    if (AllocWindowClock::now() >= next_maps_check) {
      profile.refresh_maps();
      next_maps_check = AllocWindowClock::now() + kAllocWindowMapsCheck;
    }
  }
  probe.detach();
  while (true) {
    auto r = probe.poll(std::chrono::milliseconds(0), sample);
    if (!r || *r == 0) break;
  }
  return end;
}

}  // namespace hearth::alloc
