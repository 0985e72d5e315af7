// The sampler's ptrace method: every thread seized at attach, stopped in each round's window
// (all at once, or one at a time), its registers and stack top read, resumed.
#include "collectors/stacks/sampler_impl.h"

#include <algorithm>

#include "collectors/proc/maps.h"
#include "collectors/proc/threads.h"

namespace hearth::stacks {
namespace {

// Thread names are re-read every this many rounds (and for every new thread).
constexpr uint64_t kNameRefreshRounds = 16;

}  // namespace

Result<void> Sampler::Impl::prepare_round() {
  RETURN_IF_ERROR(session->refresh_threads());
  if (reopen_pending) {
    reopen_pending = false;
    RETURN_IF_ERROR(reopen_after_exec());
  }
  if (auto fp = proc::maps_fingerprint(options.pid); fp && *fp != maps_fingerprint) {
    maps_fingerprint = *fp;
    RETURN_IF_ERROR(load_maps());
  }
  std::vector<pid_t> tids = session->threads();
  for (auto it = slots.begin(); it != slots.end();) {  // forget threads that are gone
    it = std::binary_search(tids.begin(), tids.end(), it->first) ? std::next(it) : slots.erase(it);
  }
  bool refresh_names = summary.rounds % kNameRefreshRounds == 0;
  for (pid_t tid : tids) {
    auto [it, added] = slots.try_emplace(tid);
    Slot& slot = it->second;
    if (added) {
      slot.stack_bytes = options.stack_bytes;
      slot.copy.bytes.reserve(slot.stack_bytes + 4096);
    }
    if (added || refresh_names) {
      auto name = proc::thread_name(options.pid, tid);
      slot.name = intern_name(name ? *name : std::string("?"));
    }
    auto st = proc::thread_stat(options.pid, tid);
    slot.state = st ? st->state : '?';
    slot.kernel.clear();
    if (options.kernel_stacks && (slot.state == 'S' || slot.state == 'D')) {
      if (auto k = proc::kernel_stack(options.pid, tid)) slot.kernel = std::move(*k);
    }
    slot.visited = false;
  }
  return {};
}

Result<void> Sampler::Impl::round_ptrace(Release release) {
  if (!session) return fail("the target was released");
  RETURN_IF_ERROR(prepare_round());
  auto visit_one = [this](pid_t tid, const user_regs_struct& regs) {
    visit(tid, regs, session->sampled_state(tid));
  };
  Result<StopStats> stats = options.one_at_a_time
                                ? session->stop_each(options.stop_timeout, visit_one, release)
                                : session->stop_all(options.stop_timeout, visit_one, release);
  if (!stats) return std::unexpected(stats.error());
  finish_round(*stats);
  if (stats->exec_seen) {
    reopen_pending = true;  // new memory, maps and symbols before the next round
    ++summary.execs;
    exec_rounds.push_back(rounds.size());
  }
  return {};
}

}  // namespace hearth::stacks
