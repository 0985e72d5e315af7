#include "collectors/stacks/process_set.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "collectors/proc/processes.h"
#include "collectors/proc/title_tally.h"
#include "common/clock.h"
#include "common/shutdown.h"
#include "formats/raw_samples.h"

namespace hearth::stacks {
namespace {

using Clock = std::chrono::steady_clock;

// Between two services of the ptrace sessions while idle (as PtraceSession::idle_for).
constexpr auto kServeSessionsEvery = std::chrono::milliseconds(1);
// Without a session to serve: how often a shutdown request is looked at (a signal ends the
// nap at once: this bounds the wait for one that came just before it).
constexpr auto kSetIdleCheck = std::chrono::milliseconds(100);

// CPU time of the calling thread, ms.
double set_thread_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

long set_thread_minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

bool listed(const std::vector<pid_t>& v, pid_t pid) {
  return std::find(v.begin(), v.end(), pid) != v.end();
}

// One look at PID's title, counted in TALLY (outside every stop window).
void count_title(pid_t pid, proc::TitleTally* tally) {
  if (auto title = proc::process_title(pid)) tally->count(*title);  // gone: nothing to count
}

}  // namespace

struct ProcessSet::Member {
  Sampler sampler;
  pid_t pid = 0;
  std::string name;
  bool live = true;
  StackCounts counts;       // its samples, aggregated (several processes)
  proc::TitleTally titles;  // its titles, at attach and after each of its samples
};

ProcessSet::ProcessSet(ProcessSet&&) noexcept = default;
ProcessSet& ProcessSet::operator=(ProcessSet&&) noexcept = default;
ProcessSet::~ProcessSet() = default;

Result<ProcessSet> ProcessSet::open(const ProcessSetOptions& options) {
  ProcessSet set;
  set.options_ = options;
  set.options_.sampler.epoch = Clock::now();
  const proc::ProcessSelection& sel = set.options_.selection;
  // Every -p first (each must attach, as a lone -p must), then what the selection adds.
  std::vector<pid_t> chosen;
  for (pid_t pid : sel.pids) {
    if (!listed(chosen, pid)) chosen.push_back(pid);
  }
  set.several_ = chosen.size() > 1 || proc::selection_grows(sel) || options.sampler.read_title;
  if (proc::selection_grows(sel)) {
    ASSIGN_OR_RETURN(std::vector<proc::ProcessInfo> procs,
                     proc::scan_processes(sel.comm.has_value()));
    for (pid_t pid : proc::select_processes(procs, sel, {}, ::getpid())) {
      if (!listed(chosen, pid)) chosen.push_back(pid);
    }
  }
  if (chosen.empty()) {
    return fail(proc::nothing_matches(sel), ENOENT);
  }
  if (set.several_ && options.sampler.method != CaptureMethod::kPtrace) {
    // One capture for the set. Where it cannot be loaded, each member tries its own (and auto
    // falls back to ptrace, saying why, as a lone process does).
    const auto began = Clock::now();
    auto capture = BpfCapture::open({.set = true,
                                     .report_children = sel.children,
                                     .stack_bytes = options.sampler.stack_bytes,
                                     .kernel_stacks = options.sampler.kernel_stacks});
    if (capture) set.capture_ = std::make_shared<BpfCapture>(std::move(*capture));
    set.capture_load_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - began).count();
  }
  for (pid_t pid : chosen) RETURN_IF_ERROR(set.add(pid, listed(sel.pids, pid)));
  set.opened_ = true;
  if (set.members_.empty()) {
    return fail("none of the " + std::to_string(chosen.size()) +
                    " processes selected could be attached (see above)",
                ESRCH);
  }
  return set;
}

Result<void> ProcessSet::add(pid_t pid, bool named) {
  SamplerOptions so = options_.sampler;
  so.pid = pid;
  so.shared_capture = capture_;
  auto sampler = Sampler::attach(so);
  if (!sampler && capture_) capture_->remove_process(pid);
  if (!sampler) {
    if (named) return std::unexpected(sampler.error());
    notices_.push_back("process " + std::to_string(pid) + " left out: " + sampler.error().message);
    return {};
  }
  if (fallback_.empty()) fallback_ = sampler->fallback_reason();
  auto m = std::make_unique<Member>(Member{.sampler = std::move(*sampler), .pid = pid});
  m->name = m->sampler.process_name();
  if (several_) count_title(pid, &m->titles);
  if (m->sampler.shares_capture()) sharing_[pid] = m.get();
  if (opened_) {  // not in the selection open() found
    ++joined_;
    notices_.push_back("process " + std::to_string(pid) + " (" + m->name + ") joined at sample " +
                       std::to_string(rounds_ + 1));
  }
  members_.push_back(std::move(m));
  return {};
}

void ProcessSet::let_go(Member& m, const std::string& why) {
  m.live = false;
  if (m.sampler.shares_capture()) {
    capture_->remove_process(m.pid);
    sharing_.erase(m.pid);
    rescan_wanted_ = true;  // its children may have been reparented, or its pid taken again
  }
  // ptrace: an exit not serviced yet leaves a zombie only its tracer can reap (its parent waits
  // for it until then): reap what is there first, then let go of the rest.
  if (m.sampler.holds_target()) (void)m.sampler.idle_for(std::chrono::microseconds(0));
  (void)m.sampler.detach();  // what does not let go now, detach() retries
  last_error_ = why;
  if (!several_) return;  // a lone process: the run ends with its error, as it always did
  ++exited_;
  const uint64_t n = m.sampler.summary().rounds;
  notices_.push_back("process " + std::to_string(m.pid) + " (" + m.name + ") exited after " +
                     std::to_string(n) + " sample" + (n == 1 ? "" : "s"));
}

Result<void> ProcessSet::rescan() {
  const proc::ProcessSelection& sel = options_.selection;
  ASSIGN_OR_RETURN(std::vector<proc::ProcessInfo> procs,
                   proc::scan_processes(sel.comm.has_value()));
  std::vector<pid_t> live;
  for (const auto& m : members_) {
    if (m->live) live.push_back(m->pid);
  }
  const std::vector<pid_t> chosen = proc::select_processes(procs, sel, live, ::getpid());
  for (auto& m : members_) {
    if (m->live && !std::binary_search(chosen.begin(), chosen.end(), m->pid)) {
      let_go(*m, "process " + std::to_string(m->pid) + " exited");
    }
  }
  for (pid_t pid : chosen) {
    if (!listed(live, pid)) RETURN_IF_ERROR(add(pid, false));
  }
  return {};
}

bool ProcessSet::rescan_due() const {
  const proc::ProcessSelection& sel = options_.selection;
  if (!proc::selection_grows(sel)) return false;
  // A title can change at any time, and only a look at /proc finds another process's children.
  if (sel.comm || !capture_ || !sel.children) return true;
  for (const auto& m : members_) {
    if (m->live && !m->sampler.shares_capture()) return true;
  }
  return rescan_wanted_;
}

Result<void> ProcessSet::shared_round() {
  for (auto& [pid, m] : sharing_) m->sampler.begin_shared_round();
  double unwound_ms = 0;
  for (auto& [pid, m] : sharing_) unwound_ms -= m->sampler.summary().unwind_ms;
  const auto began = Clock::now();
  const double cpu_began = set_thread_cpu_ms();
  const long faults_began = set_thread_minor_faults();
  ASSIGN_OR_RETURN(size_t visited, capture_->pass([this](const BpfThread& t) {
    if (t.child()) {
      if (!sharing_.contains(t.tgid)) rescan_wanted_ = true;
      return;
    }
    if (auto it = sharing_.find(t.tgid); it != sharing_.end()) it->second->sampler.take_shared(t);
  }));
  (void)visited;
  for (auto& [pid, m] : sharing_) unwound_ms += m->sampler.summary().unwind_ms;
  pass_ms_.push_back(std::max(
      0.0, std::chrono::duration<double, std::milli>(Clock::now() - began).count() - unwound_ms));
  pass_cpu_ms_.push_back(std::max(0.0, set_thread_cpu_ms() - cpu_began - unwound_ms));
  pass_faults_.push_back(static_cast<uint64_t>(set_thread_minor_faults() - faults_began));
  return {};
}

Result<void> ProcessSet::sample(Release release) {
  if (rounds_ == 0) first_round_ = Clock::now();
  if (rescan_due()) {
    rescan_wanted_ = false;
    RETURN_IF_ERROR(rescan());
  }
  bool any = false;
  if (!sharing_.empty()) {
    RETURN_IF_ERROR(shared_round());
    // In the order they joined, as below: each one's stops end before the next one's begin.
    for (auto& m : members_) {
      if (!m->live || !m->sampler.shares_capture()) continue;
      if (auto r = m->sampler.end_shared_round(); !r) {
        let_go(*m, r.error().message);
      } else {
        any = true;
      }
    }
  }
  // One process after another: each one's stop window ends before the next one's begins.
  for (auto& m : members_) {
    if (!m->live || m->sampler.shares_capture()) continue;
    if (auto r = m->sampler.sample(release); !r) {
      let_go(*m, r.error().message);
    } else {
      any = true;
    }
  }
  // Outside every stop window: each live process's title now (servers rewrite it as they work).
  if (several_) {
    for (auto& m : members_) {
      if (m->live) count_title(m->pid, &m->titles);
    }
  }
  ++rounds_;
  last_round_ = Clock::now();
  if (any || options_.selection.comm) return {};
  if (!several_) return fail(last_error_);
  return fail("every selected process has exited", ESRCH);
}

Result<void> ProcessSet::idle_for(std::chrono::microseconds duration) {
  if (!several_) return members_.front()->sampler.idle_for(duration);
  const auto deadline = Clock::now() + duration;
  for (;;) {
    bool serving = false;
    for (auto& m : members_) {
      if (!m->live || !m->sampler.holds_target()) continue;
      serving = true;
      if (auto r = m->sampler.idle_for(std::chrono::microseconds(0)); !r) {
        let_go(*m, r.error().message);
      }
    }
    if (shutdown_requested()) return {};
    const auto now = Clock::now();
    if (now >= deadline) return {};
    const auto nap =
        std::min<Clock::duration>(deadline - now, serving ? Clock::duration(kServeSessionsEvery)
                                                          : Clock::duration(kSetIdleCheck));
    const auto before = Clock::now();
    sleep_ns(
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(nap).count()));
    if (!serving && Clock::now() - before < nap) return {};  // a signal: the caller looks
  }
}

Result<void> ProcessSet::detach() {
  Result<void> first;
  for (auto& m : members_) {
    if (!m->sampler.holds_target()) continue;
    if (auto r = m->sampler.detach(); !r && first) first = r;
  }
  return first;
}

bool ProcessSet::holds_target() const {
  return std::any_of(members_.begin(), members_.end(),
                     [](const auto& m) { return m->sampler.holds_target(); });
}

void ProcessSet::aggregate(StackCounts* counts, const AggregateOptions& options) {
  if (!several_) return members_.front()->sampler.aggregate(counts, options);
  *counts = StackCounts();
  for (auto& m : members_) {
    m->sampler.aggregate(&m->counts, options);
    counts->add(m->counts);
  }
}

std::string ProcessSet::raw_text(const AggregateOptions& options) {
  if (!several_) return members_.front()->sampler.raw_text(options);
  std::vector<raw_samples::Process> processes;
  std::vector<Sampler::RawRound> rounds;
  for (auto& m : members_) {
    processes.push_back({m->pid, m->name, m->titles.most_seen()});
    for (Sampler::RawRound& r : m->sampler.raw_rounds(options)) rounds.push_back(std::move(r));
  }
  std::string out;
  raw_samples::append_set_header(&out, processes);
  std::stable_sort(rounds.begin(), rounds.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  for (const Sampler::RawRound& r : rounds) out += r.text;
  return out;
}

std::string ProcessSet::gdb_text() {
  std::vector<Sampler::RawRound> rounds;
  for (auto& m : members_) {
    for (Sampler::RawRound& r : m->sampler.gdb_rounds()) rounds.push_back(std::move(r));
  }
  std::stable_sort(rounds.begin(), rounds.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  std::string out;
  for (const Sampler::RawRound& r : rounds) out += r.text;
  return out;
}

timed_samples::Samples ProcessSet::timed(const AggregateOptions& options) {
  const Sampler& first = members_.front()->sampler;
  std::vector<timed_samples::Process> processes;
  if (several_) {
    for (auto& m : members_) processes.push_back({m->pid, m->name, m->titles.most_seen()});
  }
  timed_samples::Builder builder(several_ ? 0 : first.pid(), several_ ? "" : first.process_name(),
                                 std::move(processes), first.epoch_mono_ns(),
                                 first.epoch_real_ns());
  // (time, member, round): every member's rounds merged in time order, ties by member.
  struct At {
    uint64_t time_ns;
    size_t member, round;
  };
  std::vector<At> order;
  for (size_t m = 0; m < members_.size(); ++m) {
    const Sampler& s = members_[m]->sampler;
    for (size_t r = 0; r < s.round_count(); ++r) order.push_back({s.round_time_ns(r), m, r});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const At& a, const At& b) { return a.time_ns < b.time_ns; });
  std::vector<std::vector<uint32_t>> stack_ids(members_.size());
  for (const At& at : order) {
    members_[at.member]->sampler.add_timed_round(at.round, options, &builder,
                                                 &stack_ids[at.member]);
  }
  return builder.take();
}

std::vector<std::string> ProcessSet::notices() {
  return std::exchange(notices_, {});
}

SamplerSummary ProcessSet::summary() const {
  if (!several_) return members_.front()->sampler.summary();
  SamplerSummary all;
  all.rounds = rounds_;
  auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  for (const auto& m : members_) {
    const SamplerSummary& s = m->sampler.summary();
    all.thread_samples += s.thread_samples;
    all.skipped += s.skipped;
    all.taken_alone += s.taken_alone;
    all.truncated += s.truncated;
    all.threads_seen += s.threads_seen;
    all.copied += s.copied;
    all.reused += s.reused;
    all.stopped += s.stopped;
    all.execs += s.execs;
    append(all.round_stall_ms, s.round_stall_ms);
    append(all.thread_stall_us, s.thread_stall_us);
    all.stall_us_total += s.stall_us_total;
    append(all.capture_ms, s.capture_ms);  // empty for members on the set's capture
    append(all.capture_cpu_ms, s.capture_cpu_ms);
    append(all.capture_faults, s.capture_faults);
    append(all.skipped_threads, s.skipped_threads);
    append(all.alone_threads, s.alone_threads);
    all.unwind_ms += s.unwind_ms;
    all.symbolize_ms += s.symbolize_ms;
    all.stacks_symbolized += s.stacks_symbolized;
    for (const SamplerSummary::Phase& p : s.attach_ms) {
      auto same = std::find_if(all.attach_ms.begin(), all.attach_ms.end(),
                               [&p](const SamplerSummary::Phase& q) { return q.what == p.what; });
      if (same == all.attach_ms.end()) {
        all.attach_ms.push_back(p);
      } else {
        same->ms += p.ms;
      }
    }
  }
  all.stall_us_total += dropped_stall_us_;
  append(all.capture_ms, pass_ms_);
  append(all.capture_cpu_ms, pass_cpu_ms_);
  append(all.capture_faults, pass_faults_);
  if (capture_)
    all.attach_ms.push_back({"capture program for the set (BPF load)", capture_load_ms_});
  // From the first round's start (attaching every process came before it) to the last's end.
  if (rounds_ > 0)
    all.elapsed_s = std::chrono::duration<double>(last_round_ - first_round_).count();
  return all;
}

UnnamedFrames ProcessSet::unnamed_frames() {
  if (!several_) return members_.front()->sampler.unnamed_frames();
  UnnamedTally tally;
  for (auto& m : members_) tally.add(m->sampler.unnamed_frames());
  return tally.result();
}

std::string ProcessSet::method() const {
  bool bpf = false, ptrace = false;
  for (const auto& m : members_) (m->sampler.method() == "bpf" ? bpf : ptrace) = true;
  return bpf && ptrace ? "bpf and ptrace" : bpf ? "bpf" : "ptrace";
}

const std::string& ProcessSet::fallback_reason() const {
  return fallback_;
}
void ProcessSet::forget_before(uint64_t time_ns) {
  size_t most = 0;
  for (auto& m : members_) most = std::max(most, m->sampler.forget_before(time_ns));
  // The set's passes are one per round of the set: as many off their front as the process
  // that lost the most rounds (every live one on the capture has one per pass).
  auto drop_front = [](auto& v, size_t n) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size())));
  };
  drop_front(pass_ms_, most);
  drop_front(pass_cpu_ms_, most);
  drop_front(pass_faults_, most);
  // Processes gone for longer than the span kept: nothing of them is left to write (a watcher
  // following a service across restarts would otherwise keep every past process's symbols).
  if (several_ && members_.size() > 1) {
    dropped_ += std::erase_if(members_, [this](const std::unique_ptr<Member>& m) {
      const bool gone = !m->live && m->sampler.round_count() == 0;
      if (gone) dropped_stall_us_ += m->sampler.summary().stall_us_total;
      return gone;
    });
  }
}

double ProcessSet::stall_us_total() const {
  double total = dropped_stall_us_;
  for (const auto& m : members_) total += m->sampler.summary().stall_us_total;
  return total;
}

SamplerTables ProcessSet::tables() const {
  SamplerTables all;
  for (const auto& m : members_) {
    const SamplerTables t = m->sampler.tables();
    all.stacks += t.stacks;
    all.stacks_added += t.stacks_added;
    all.names += t.names;
    all.names_added += t.names_added;
  }
  return all;
}

void ProcessSet::release_symbols() {
  for (auto& m : members_) {
    if (m->live) m->sampler.release_symbols();
  }
}

Sampler::Matching ProcessSet::last_round_matching(std::string_view text) {
  Sampler::Matching all;
  for (auto& m : members_) {
    if (!m->live) continue;
    Sampler::Matching one = m->sampler.last_round_matching(text);
    all.matching += one.matching;
    all.samples += one.samples;
  }
  return all;
}

uint64_t ProcessSet::now_ns() const {
  const auto epoch = options_.sampler.epoch.value_or(Clock::now());
  return static_cast<uint64_t>(
      std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - epoch).count()));
}

uint64_t ProcessSet::oldest_round_ns() const {
  uint64_t oldest = now_ns();
  for (const auto& m : members_) {
    if (m->sampler.round_count() > 0) oldest = std::min(oldest, m->sampler.round_time_ns(0));
  }
  return oldest;
}

std::vector<pid_t> ProcessSet::live_pids() const {
  std::vector<pid_t> out;
  for (const auto& m : members_) {
    if (m->live) out.push_back(m->pid);
  }
  return out;
}

size_t ProcessSet::rounds_held() const {
  size_t most = 0;
  for (const auto& m : members_) most = std::max(most, m->sampler.round_count());
  return most;
}

size_t ProcessSet::processes() const {
  return members_.size() + dropped_;
}
size_t ProcessSet::joined() const {
  return joined_;
}
size_t ProcessSet::exited() const {
  return exited_;
}
pid_t ProcessSet::first_pid() const {
  return members_.front()->pid;
}
std::string ProcessSet::first_name() const {
  return members_.front()->name;
}

}  // namespace hearth::stacks
