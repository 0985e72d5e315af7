// The sampler: attaching, the round loop's entry points, and what every round does with a
// thread's capture. See sampler_impl.h for how its files divide the work.
#include "collectors/stacks/sampler_impl.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "collectors/proc/maps.h"
#include "collectors/proc/processes.h"
#include "collectors/proc/threads.h"
#include "common/clock.h"
#include "common/shutdown.h"

namespace hearth::stacks {
namespace {

using sampling::Clock;

// Sleeping between rounds without a session: a signal (a shutdown or reload request) ends the
// nap at once; this bounds the wait for one that arrived just before the nap began. (10 ms,
// as it was, woke an idle `hearth watch` 100 times a second: a third of its CPU.)
constexpr std::chrono::milliseconds kIdleCheck{100};
// Skipped threads named in the summary, at most.
constexpr size_t kMaxSkippedNamed = 64;

}  // namespace

uint32_t Sampler::Impl::intern_name(const std::string& n) {
  auto [it, added] = name_ids.try_emplace(n, static_cast<uint32_t>(names.size()));
  if (added) {
    names.push_back(n);
    ++names_added;
  }
  return it->second;
}

uint32_t Sampler::Impl::intern_stack(RawStack&& s) {
  std::string key = stack_key(s);
  auto [it, added] = stack_ids.try_emplace(std::move(key), static_cast<uint32_t>(stacks.size()));
  if (added) {
    stacks.push_back(std::move(s));
    ++stacks_added;
  }
  return it->second;
}

namespace {

// The mappings a symbolizer looks addresses up in: executable, of a file or the vDSO.
std::vector<proc::Mapping> code_mappings(const std::vector<proc::Mapping>& maps) {
  std::vector<proc::Mapping> code;
  for (const proc::Mapping& m : maps) {
    if (m.exec && !m.path.empty() && (m.path[0] == '/' || m.path == "[vdso]")) code.push_back(m);
  }
  return code;
}

bool same_mapping(const proc::Mapping& a, const proc::Mapping& b) {
  return a.start == b.start && a.end == b.end && a.offset == b.offset && a.inode == b.inode &&
         a.dev == b.dev && a.path == b.path && a.deleted == b.deleted;
}

}  // namespace

Result<void> Sampler::Impl::load_maps() {
  ASSIGN_OR_RETURN(std::vector<proc::Mapping> maps, proc::read_maps(options.pid));
  std::vector<proc::Mapping> code = code_mappings(maps);
  {  // the executable: gdb names no library for its frames (sampler_gdb.cpp)
    std::error_code ec;
    std::string exe =
        std::filesystem::read_symlink("/proc/" + std::to_string(options.pid) + "/exe", ec);
    constexpr std::string_view kDeleted = " (deleted)";
    if (exe.ends_with(kDeleted)) exe.resize(exe.size() - kDeleted.size());
    if (!ec) exe_path = std::move(exe);
  }
  const bool code_changed = code.size() != code_maps.size() ||
                            !std::equal(code.begin(), code.end(), code_maps.begin(), same_mapping);
  if (code_changed) {
    // Stacks taken so far that ran in code unmapped now (a dlclose): name them before the maps
    // change, or they would be looked up in whatever is mapped there next.
    std::vector<const proc::Mapping*> gone;
    for (const proc::Mapping& old : code_maps) {
      if (std::none_of(code.begin(), code.end(),
                       [&old](const proc::Mapping& m) { return same_mapping(m, old); }))
        gone.push_back(&old);
    }
    auto in_gone = [&gone](uint64_t ip) {
      for (const proc::Mapping* m : gone) {
        if (ip >= m->start && ip <= m->end) return true;  // ip or ip - 1 (a return address)
      }
      return false;
    };
    for (uint32_t id = 0; !gone.empty() && id < stacks.size(); ++id) {
      if (std::any_of(stacks[id].ips.begin(), stacks[id].ips.end(), in_gone)) (void)frames_of(id);
    }
  }
  const auto began = Clock::now();
  RETURN_IF_ERROR(unwinder->prepare(maps));
  const auto tables = Clock::now();
  if (code_changed) {
    RETURN_IF_ERROR(symbolizer->set_maps(options.pid, maps, memory.get()));
    code_maps = std::move(code);
  }
  add_phase("maps: unwind tables",
            std::chrono::duration<double, std::milli>(tables - began).count());
  add_phase("maps: symbol tables",
            std::chrono::duration<double, std::milli>(Clock::now() - tables).count());
  return {};
}

void Sampler::Impl::release_symbols() {
  auto maps = proc::read_maps(options.pid);
  if (!maps) return;
  const std::vector<proc::Mapping> code = code_mappings(*maps);
  // Code changed since the last load: the next load_maps() names what it must first.
  if (code.size() != code_maps.size() ||
      !std::equal(code.begin(), code.end(), code_maps.begin(), same_mapping))
    return;
  auto fresh = Symbolizer::create({.cache_dir = options.symbol_cache});
  if (!fresh || !fresh->set_maps(options.pid, *maps, memory.get())) return;
  symbolizer.emplace(std::move(*fresh));  // the old one saves its names to the cache, then ends
}

void Sampler::Impl::add_phase(const char* what, double ms) {
  for (SamplerSummary::Phase& p : summary.attach_ms) {
    if (p.what == what) {
      p.ms += ms;
      return;
    }
  }
  summary.attach_ms.push_back({what, ms});
}

Result<void> Sampler::Impl::reopen_after_exec() {
  for (uint32_t id = 0; id < stacks.size(); ++id) (void)frames_of(id);  // old image's names
  ASSIGN_OR_RETURN(RemoteMemory fresh, RemoteMemory::open(options.pid));
  *memory = std::move(fresh);
  if (auto fp = proc::maps_fingerprint(options.pid); fp) maps_fingerprint = *fp;
  return load_maps();
}

void Sampler::Impl::visit(pid_t tid, const user_regs_struct& regs, char state) {
  auto it = slots.find(tid);
  if (it == slots.end()) return;  // seized after prepare_round: sampled next round
  Slot& slot = it->second;
  slot.regs = regs;
  slot.visited = memory->copy_stack(regs.rsp, slot.stack_bytes, slot.copy).has_value();
  // The state of this moment, not of the /proc read before the stop (a thread seen
  // sleeping then may have been running when stopped, and the other way round). A kernel
  // stack read before belongs to this stop only if the thread still slept in the kernel.
  const char before = slot.state;
  slot.state = state;
  if (slot.state != 'S' || before != 'S') slot.kernel.clear();
}

void Sampler::Impl::note_skipped(pid_t tid, const Slot* slot, std::string_view why) {
  if (summary.skipped_threads.size() >= kMaxSkippedNamed) return;
  std::string name = slot != nullptr ? names[slot->name] : "?";
  auto st = proc::thread_stat(options.pid, tid);
  std::string line = std::to_string(tid) + " (" + name + ") " + (st ? st->state : '?');
  if (auto k = proc::kernel_stack(options.pid, tid); k && !k->empty()) line += " in " + k->front();
  line += ": ";
  line += why;
  summary.skipped_threads.push_back(std::move(line));
}

uint32_t Sampler::Impl::unwind_slot(Slot& slot, bool* deeper) {
  return unwind_stack(slot, slot.copy.view(), deeper);
}

uint32_t Sampler::Impl::unwind_stack(Slot& slot, const StackView& stack, bool* deeper) {
  const auto began = Clock::now();
  UnwindStatus& status = unwind_status;
  unwinder->unwind(slot.regs, stack, options.max_frames, &status, &unwind_ips);
  RawStack raw;
  raw.ips = unwind_ips;
  raw.exact_ips = status.exact_ips;
  raw.truncated = status.stop != UnwindStop::kEndOfStack;
  raw.lost = status.stop == UnwindStop::kNoUnwindInfo || status.stop == UnwindStop::kBadFrame;
  *deeper = status.stop == UnwindStop::kOutsideCopy && slot.stack_bytes < options.max_stack_bytes;
  if (*deeper) {
    slot.stack_bytes = std::min(slot.stack_bytes * 2, options.max_stack_bytes);
    // ptrace: the stop window allocates nothing. bpf copies need no buffer of their own.
    if (!bpf) slot.copy.bytes.reserve(slot.stack_bytes + 4096);
  }
  raw.kernel = slot.kernel;
  raw.kernel_ips = slot.kernel_ips;
  summary.unwind_ms += std::chrono::duration<double, std::milli>(Clock::now() - began).count();
  return intern_stack(std::move(raw));
}

void Sampler::Impl::finish_round(const StopStats& stats) {
  Round round;
  round.time_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  std::unordered_map<pid_t, uint64_t> stall_of;
  for (const ThreadStall& t : stats.stalls) stall_of[t.tid] = t.stall_ns;
  for (auto& [tid, slot] : slots) {
    uint32_t id;
    if (slot.reuse) {
      id = static_cast<uint32_t>(slot.last_stack);
      ++round.reused;
    } else if (slot.visited) {
      if (!slot.unwound) {
        bool deeper = false;
        slot.last_stack = unwind_slot(slot, &deeper);
        // bpf: the copy grows from the next pass on (the thread is copied again then).
        if (deeper && bpf) bpf->set_stack_bytes(tid, slot.stack_bytes);
      }
      id = static_cast<uint32_t>(slot.last_stack);
      bool stopped = !bpf || slot.stopped;
      ++(stopped ? round.stopped : round.copied);
      const double stall_us = stopped ? static_cast<double>(stall_of[tid]) / 1e3 : 0.0;
      summary.thread_stall_us.push_back(stall_us);
      summary.stall_us_total += stall_us;
    } else {
      continue;
    }
    if (slot.reuse) summary.thread_stall_us.push_back(0.0);
    summary.truncated += stacks[id].truncated;
    round.threads.push_back({tid, slot.name, slot.state, id});
  }
  std::sort(round.threads.begin(), round.threads.end(),
            [](const ThreadSample& a, const ThreadSample& b) { return a.tid < b.tid; });
  for (pid_t tid : stats.skipped) {
    auto it = slots.find(tid);
    note_skipped(tid, it == slots.end() ? nullptr : &it->second, "did not stop in time");
  }
  for (const AloneThread& t : stats.alone) {
    auto it = slots.find(t.tid);
    if (it == slots.end() || !it->second.visited) continue;
    ++summary.taken_alone;
    if (summary.alone_threads.size() >= kMaxSkippedNamed) continue;
    char after[64];
    std::snprintf(after, sizeof after, ": %.1f ms after the others",
                  static_cast<double>(t.after_ns) / 1e6);
    summary.alone_threads.push_back(std::to_string(t.tid) + " (" + names[it->second.name] + ") " +
                                    it->second.state + after);
  }
  round.stall_ns = stats.total_stall_ns;
  summary.rounds++;
  summary.thread_samples += round.threads.size();
  summary.copied += round.copied;
  summary.reused += round.reused;
  summary.stopped += round.stopped;
  summary.skipped += stats.skipped.size();
  summary.threads_seen = std::max(summary.threads_seen, slots.size());
  summary.round_stall_ms.push_back(static_cast<double>(stats.total_stall_ns) / 1e6);
  summary.elapsed_s = static_cast<double>(round.time_ns) / 1e9;
  rounds.push_back(std::move(round));
}

void Sampler::Impl::note_title() {
  auto title = proc::process_title(options.pid);
  if (title && !rounds.empty()) rounds.back().title = intern_name(*title);
}

Sampler::Sampler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&&) noexcept = default;
Sampler::~Sampler() {
  if (impl_) (void)detach();
}

Result<Sampler> Sampler::attach(const SamplerOptions& options) {
  auto s = std::make_unique<Impl>();
  s->options = options;
  auto lap = Clock::now();
  // The time since the last lap, under WHAT (SamplerSummary::attach_ms).
  auto phase = [&s, &lap](const char* what) {
    const auto now = Clock::now();
    s->add_phase(what, std::chrono::duration<double, std::milli>(now - lap).count());
    lap = now;
  };
  auto name = proc::thread_name(options.pid, options.pid);
  s->process_name = name ? *name : "?";
  // Everything slow first, while nothing is stopped: files, tables, symbols.
  auto memory = RemoteMemory::open(options.pid);
  if (!memory) {
    int e = memory.error().errnum;
    if (e == EACCES || e == EPERM) {
      return fail("cannot read the memory of " + std::to_string(options.pid) +
                      ": permission denied — run as root, or grant CAP_SYS_PTRACE (and "
                      "CAP_BPF + CAP_PERFMON for the stop-free capture)",
                  e);
    }
    if (e == ENOENT || e == ESRCH) {
      return fail("cannot attach to " + std::to_string(options.pid) + ": no such process", ESRCH);
    }
    return std::unexpected(memory.error());
  }
  s->memory = std::make_unique<RemoteMemory>(std::move(*memory));
  phase("memory");
  ASSIGN_OR_RETURN(Unwinder unwinder, Unwinder::create(s->memory.get()));
  s->unwinder.emplace(std::move(unwinder));
  ASSIGN_OR_RETURN(Symbolizer symbolizer, Symbolizer::create({.cache_dir = options.symbol_cache}));
  s->symbolizer.emplace(std::move(symbolizer));
  phase("unwinder and symbolizer");
  auto start_ticks = proc::process_start_time(options.pid);
  if (!start_ticks) {
    return fail("cannot attach to " + std::to_string(options.pid) + ": no such process", ESRCH);
  }
  s->start_ticks = *start_ticks;
  if (options.shared_capture && options.method != CaptureMethod::kPtrace) {
    RETURN_IF_ERROR(options.shared_capture->add_process(options.pid));
    s->bpf = options.shared_capture;
    s->shared_capture = true;
  } else if (options.method != CaptureMethod::kPtrace) {
    // The count from stat, not a listing of /proc/PID/task: listing 1,000 threads kept the CPU
    // 1.3 ms in one getdents call, in the kernel, where a thread of the target may wait.
    auto stat = proc::thread_stat(options.pid, options.pid);
    auto bpf = BpfCapture::open(
        {.pid = options.pid,
         .stack_bytes = options.stack_bytes,
         .kernel_stacks = options.kernel_stacks,
         .threads_hint = stat && stat->threads > 0 ? static_cast<size_t>(stat->threads) : 0});
    if (bpf) {
      s->bpf = std::make_shared<BpfCapture>(std::move(*bpf));
    } else if (options.method == CaptureMethod::kBpf || bpf.error().errnum == ESRCH) {
      return std::unexpected(bpf.error());
    } else {
      s->fallback = bpf.error().message;
    }
  }
  // Kernel frames will need names: their table loads beside what follows (kernel_symbols.h).
  if (s->bpf && options.kernel_stacks) KernelSymbols::shared(options.symbol_cache)->prefetch();
  if (!s->bpf) {
    ASSIGN_OR_RETURN(PtraceSession session, PtraceSession::attach(options.pid));
    s->session.emplace(std::move(session));
  }
  phase(s->shared_capture ? "capture (joining the set's program)"
        : s->bpf          ? "capture program (BPF load)"
                          : "capture (ptrace seize)");
  if (auto fp = proc::maps_fingerprint(options.pid)) s->maps_fingerprint = *fp;
  RETURN_IF_ERROR(s->load_maps());
  s->start = options.epoch.value_or(Clock::now());
  return Sampler(std::move(s));
}

Result<void> Sampler::sample(Release release) {
  Impl& s = *impl_;
  const size_t before = s.rounds.size();
  // bpf holds nothing between rounds: no release to make.
  Result<void> r = s.bpf ? s.round_bpf() : s.round_ptrace(release);
  if (s.options.read_title && s.rounds.size() > before) s.note_title();
  return r;
}

void Sampler::begin_shared_round() {
  (void)impl_->begin_pass();
}

void Sampler::take_shared(const BpfThread& thread) {
  impl_->take_in_pass(thread);
}

Result<void> Sampler::end_shared_round() {
  Impl& s = *impl_;
  const size_t before = s.rounds.size();
  Result<void> r = s.end_pass();
  if (s.options.read_title && s.rounds.size() > before) s.note_title();
  return r;
}

void Sampler::release_symbols() {
  impl_->release_symbols();
}

bool Sampler::shares_capture() const {
  return impl_->shared_capture;
}

Result<void> Sampler::idle_for(std::chrono::microseconds duration) {
  if (impl_->session) return impl_->session->idle_for(duration);
  // Nothing held: nothing to serve meanwhile.
  auto deadline = Clock::now() + duration;
  while (!shutdown_requested()) {
    auto now = Clock::now();
    if (now >= deadline) break;
    const auto nap = std::min<Clock::duration>(deadline - now, kIdleCheck);
    const uint64_t before = monotonic_ns();
    sleep_ns(
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(nap).count()));
    // Cut short by a signal: the caller looks at what it asked (a reload, a shutdown).
    if (std::chrono::nanoseconds(monotonic_ns() - before) < nap) break;
  }
  return {};
}

Result<void> Sampler::detach() {
  Impl& s = *impl_;
  if (!s.session) return {};
  Result<void> r = s.session->detach(PtraceSession::kDetachTimeout);
  if (r || s.session->target_exited()) s.session.reset();  // else: threads with a stop pending
  return r;
}

bool Sampler::holds_target() const {
  return impl_->session.has_value();
}

uint64_t Sampler::epoch_mono_ns() const {
  // steady_clock is CLOCK_MONOTONIC (libstdc++ on Linux), the scheduler tracer's trace clock.
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(impl_->start.time_since_epoch())
          .count());
}

uint64_t Sampler::epoch_real_ns() const {
  const auto since = Clock::now() - impl_->start;
  const auto real = std::chrono::system_clock::now() - since;
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(real.time_since_epoch()).count());
}

const SamplerSummary& Sampler::summary() const {
  return impl_->summary;
}

std::string_view Sampler::method() const {
  return impl_->bpf ? "bpf" : "ptrace";
}

const std::string& Sampler::fallback_reason() const {
  return impl_->fallback;
}

pid_t Sampler::pid() const {
  return impl_->options.pid;
}

std::string Sampler::process_name() const {
  return impl_->process_name;
}

}  // namespace hearth::stacks
