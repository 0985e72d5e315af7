#include "collectors/stacks/sampler.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "collectors/proc/maps.h"
#include "collectors/proc/threads.h"
#include "collectors/stacks/ptrace_session.h"
#include "collectors/stacks/remote_memory.h"
#include "collectors/stacks/symbolizer.h"
#include "collectors/stacks/unwinder.h"

namespace hearth::stacks {
namespace {

using Clock = std::chrono::steady_clock;

// Thread names are re-read every this many rounds (and for every new thread).
constexpr uint64_t kNameRefreshRounds = 16;

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

// A user stack as unwound (IPs leaf first) plus the kernel stack read just before the stop
// (leaf first, as the kernel lists it).
struct RawStack {
  std::vector<uint64_t> ips;
  std::vector<uint32_t> exact_ips;
  bool truncated = false;
  std::vector<std::string> kernel;
};

std::string stack_key(const RawStack& s) {
  std::string key;
  key.append(reinterpret_cast<const char*>(s.ips.data()), s.ips.size() * sizeof(uint64_t));
  key.push_back('\0');
  for (uint32_t e : s.exact_ips) key.append(reinterpret_cast<const char*>(&e), sizeof e);
  key.push_back(s.truncated ? '1' : '0');
  for (const std::string& k : s.kernel) {
    key.push_back('\0');
    key += k;
  }
  return key;
}

struct ThreadSample {
  pid_t tid;
  uint32_t name;  // index into State::names
  char state;
  uint32_t stack;  // index into State::stacks
};

struct Round {
  uint64_t time_ns;  // since the first round
  std::vector<ThreadSample> threads;
};

// Per-thread buffers, reused every round so the stop window allocates nothing.
struct Slot {
  user_regs_struct regs{};
  StackCopy copy;
  size_t stack_bytes = 0;
  bool visited = false;
  char state = '?';
  uint32_t name = 0;
  std::vector<std::string> kernel;
};

}  // namespace

struct Sampler::State {
  SamplerOptions options;
  std::optional<PtraceSession> session;
  std::unique_ptr<RemoteMemory> memory;  // stable address: the Unwinder keeps a pointer
  std::optional<Unwinder> unwinder;
  std::optional<Symbolizer> symbolizer;
  uint64_t maps_fingerprint = 0;
  std::string process_name;

  std::unordered_map<pid_t, Slot> slots;
  std::vector<std::string> names;
  std::unordered_map<std::string, uint32_t> name_ids;
  std::vector<RawStack> stacks;
  std::unordered_map<std::string, uint32_t> stack_ids;
  std::vector<std::vector<std::string>> symbolized;  // per stack id, root first; lazily
  std::vector<Round> rounds;
  size_t aggregated = 0;  // rounds already added by aggregate()
  Clock::time_point start;
  SamplerSummary summary;

  uint32_t intern_name(const std::string& n) {
    auto [it, added] = name_ids.try_emplace(n, static_cast<uint32_t>(names.size()));
    if (added) names.push_back(n);
    return it->second;
  }

  uint32_t intern_stack(RawStack&& s) {
    std::string key = stack_key(s);
    auto [it, added] = stack_ids.try_emplace(std::move(key), static_cast<uint32_t>(stacks.size()));
    if (added) stacks.push_back(std::move(s));
    return it->second;
  }

  Result<void> load_maps() {
    ASSIGN_OR_RETURN(std::vector<proc::Mapping> maps, proc::read_maps(options.pid));
    RETURN_IF_ERROR(unwinder->prepare(maps));
    RETURN_IF_ERROR(symbolizer->set_maps(options.pid, maps, memory.get()));
    return {};
  }

  // Outside the stop window: new threads, their names and states, kernel stacks, maps.
  Result<void> prepare_round() {
    RETURN_IF_ERROR(session->refresh_threads());
    if (auto fp = proc::maps_fingerprint(options.pid); fp && *fp != maps_fingerprint) {
      maps_fingerprint = *fp;
      RETURN_IF_ERROR(load_maps());
    }
    std::vector<pid_t> tids = session->threads();
    for (auto it = slots.begin(); it != slots.end();) {  // forget threads that are gone
      it =
          std::binary_search(tids.begin(), tids.end(), it->first) ? std::next(it) : slots.erase(it);
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

  // The stop window's work for one thread: registers and the top of its stack.
  void visit(pid_t tid, const user_regs_struct& regs) {
    auto it = slots.find(tid);
    if (it == slots.end()) return;  // seized after prepare_round: sampled next round
    Slot& slot = it->second;
    slot.regs = regs;
    slot.visited = memory->copy_stack(regs.rsp, slot.stack_bytes, slot.copy).has_value();
  }

  void finish_round(const StopStats& stats) {
    Round round;
    round.time_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    for (auto& [tid, slot] : slots) {
      if (!slot.visited) continue;
      RawStack raw;
      UnwindStatus status;
      raw.ips = unwinder->unwind(slot.regs, slot.copy, options.max_frames, &status);
      raw.exact_ips = std::move(status.exact_ips);
      raw.truncated = status.stop != UnwindStop::kEndOfStack;
      if (status.stop == UnwindStop::kOutsideCopy && slot.stack_bytes < options.max_stack_bytes) {
        // This thread's stack is deeper than the copy: copy more from the next round on.
        slot.stack_bytes = std::min(slot.stack_bytes * 2, options.max_stack_bytes);
        slot.copy.bytes.reserve(slot.stack_bytes + 4096);
      }
      summary.truncated += raw.truncated;
      raw.kernel = slot.kernel;
      round.threads.push_back({tid, slot.name, slot.state, intern_stack(std::move(raw))});
    }
    std::sort(round.threads.begin(), round.threads.end(),
              [](const ThreadSample& a, const ThreadSample& b) { return a.tid < b.tid; });
    summary.rounds++;
    summary.thread_samples += round.threads.size();
    summary.skipped += stats.skipped.size();
    summary.threads_seen = std::max(summary.threads_seen, slots.size());
    summary.round_stall_ms.push_back(static_cast<double>(stats.total_stall_ns) / 1e6);
    for (const ThreadStall& t : stats.stalls) {
      summary.thread_stall_us.push_back(static_cast<double>(t.stall_ns) / 1e3);
    }
    summary.elapsed_s = static_cast<double>(round.time_ns) / 1e9;
    rounds.push_back(std::move(round));
  }

  const std::vector<std::string>& frames_of(uint32_t id) {
    if (symbolized.size() <= id) symbolized.resize(stacks.size());
    std::vector<std::string>& out = symbolized[id];
    if (!out.empty()) return out;
    const RawStack& s = stacks[id];
    UnwindStatus status;
    status.exact_ips = s.exact_ips;
    if (s.truncated) out.push_back("[truncated]");
    for (size_t i = s.ips.size(); i-- > 0;) {
      for (const Frame& f : symbolizer->symbolize(s.ips[i], is_return_address(status, i))) {
        out.push_back(folded_safe(f.name) + (f.inlined ? "_[i]" : ""));
      }
    }
    for (auto k = s.kernel.rbegin(); k != s.kernel.rend(); ++k)
      out.push_back(folded_safe(*k) + "_[k]");
    if (out.empty()) out.push_back("[unknown]");
    return out;
  }

  std::vector<std::string> sample_frames(const ThreadSample& t, const AggregateOptions& o) {
    std::vector<std::string> frames;
    if (o.state_frames) frames.emplace_back(state_frame(t.state));
    const std::vector<std::string>& user = frames_of(t.stack);
    frames.insert(frames.end(), user.begin(), user.end());
    return frames;
  }
};

Sampler::Sampler(std::unique_ptr<State> state) : state_(std::move(state)) {}
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;
Sampler::~Sampler() {
  if (state_) (void)detach();
}

Result<Sampler> Sampler::attach(const SamplerOptions& options) {
  auto s = std::make_unique<State>();
  s->options = options;
  auto name = proc::thread_name(options.pid, options.pid);
  s->process_name = name ? *name : "?";
  // Everything slow first, while nothing is stopped: files, tables, symbols.
  ASSIGN_OR_RETURN(RemoteMemory memory, RemoteMemory::open(options.pid));
  s->memory = std::make_unique<RemoteMemory>(std::move(memory));
  ASSIGN_OR_RETURN(Unwinder unwinder, Unwinder::create(s->memory.get()));
  s->unwinder.emplace(std::move(unwinder));
  ASSIGN_OR_RETURN(Symbolizer symbolizer, Symbolizer::create());
  s->symbolizer.emplace(std::move(symbolizer));
  ASSIGN_OR_RETURN(PtraceSession session, PtraceSession::attach(options.pid));
  s->session.emplace(std::move(session));
  if (auto fp = proc::maps_fingerprint(options.pid)) s->maps_fingerprint = *fp;
  RETURN_IF_ERROR(s->load_maps());
  s->start = Clock::now();
  return Sampler(std::move(s));
}

Result<void> Sampler::sample(Release release) {
  State& s = *state_;
  if (!s.session) return fail("the target was released");
  RETURN_IF_ERROR(s.prepare_round());
  auto visit = [&s](pid_t tid, const user_regs_struct& regs) { s.visit(tid, regs); };
  Result<StopStats> stats = s.options.one_at_a_time
                                ? s.session->stop_each(s.options.stop_timeout, visit, release)
                                : s.session->stop_all(s.options.stop_timeout, visit, release);
  if (!stats) return std::unexpected(stats.error());
  s.finish_round(*stats);
  if (stats->exec_seen) s.maps_fingerprint = 0;  // reload maps and symbols next round
  return {};
}

Result<void> Sampler::idle_for(std::chrono::microseconds duration) {
  if (!state_->session) return {};
  return state_->session->idle_for(duration);
}

Result<void> Sampler::detach() {
  State& s = *state_;
  if (!s.session) return {};
  Result<void> r = s.session->detach(PtraceSession::kDetachTimeout);
  if (r || s.session->target_exited()) s.session.reset();  // else: threads with a stop pending
  return r;
}

bool Sampler::holds_target() const {
  return state_->session.has_value();
}

void Sampler::aggregate(StackCounts* counts, const AggregateOptions& options) {
  State& s = *state_;
  for (; s.aggregated < s.rounds.size(); ++s.aggregated) {
    for (const ThreadSample& t : s.rounds[s.aggregated].threads) {
      counts->add(thread_root(s.names[t.name], t.tid, options.merge_threads),
                  s.sample_frames(t, options));
    }
  }
}

std::string Sampler::raw_text(const AggregateOptions& options) {
  State& s = *state_;
  std::string out = "# hearth stacks raw 1\tpid=" + std::to_string(s.options.pid) +
                    "\tname=" + folded_safe(s.process_name) + "\n# time_ns\ttid\tstate\tstack\n";
  for (const Round& r : s.rounds) {
    for (const ThreadSample& t : r.threads) {
      out += std::to_string(r.time_ns) + '\t' + std::to_string(t.tid) + '\t' + t.state + '\t';
      out += thread_root(s.names[t.name], t.tid, options.merge_threads);
      for (const std::string& f : s.sample_frames(t, options)) {
        out += ';';
        out += f;
      }
      out += '\n';
    }
  }
  return out;
}

const SamplerSummary& Sampler::summary() const {
  return state_->summary;
}
pid_t Sampler::pid() const {
  return state_->options.pid;
}
std::string Sampler::process_name() const {
  return state_->process_name;
}

}  // namespace hearth::stacks
