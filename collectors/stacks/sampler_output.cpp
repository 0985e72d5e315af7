// The sampler's names and outputs: stacks symbolized on first use, the root frames of each
// sample, and what the rounds become (stack counts, raw and timed samples, the unnamed-frames
// hint).
#include "collectors/stacks/sampler_impl.h"

#include <algorithm>
#include <unordered_set>

#include "collectors/proc/processes.h"
#include "formats/raw_samples.h"

namespace hearth::stacks {

const std::vector<std::string>& Sampler::Impl::frames_of(uint32_t id) {
  if (symbolized.size() <= id) symbolized.resize(stacks.size());
  std::vector<std::string>& out = symbolized[id];
  if (!out.empty()) return out;
  const auto began = std::chrono::steady_clock::now();
  const RawStack& s = stacks[id];
  UnwindStatus status;
  status.exact_ips = s.exact_ips;
  if (s.truncated) out.push_back("[truncated]");
  for (size_t i = s.ips.size(); i-- > 0;) {
    const bool ret = is_return_address(status, i);
    if (i + 1 < s.ips.size() && is_return_address(status, i + 1)) {
      // Functions its caller called that left by a tail call into it.
      for (const Frame& f : symbolizer->tail_calls(s.ips[i + 1], s.ips[i], ret))
        out.push_back(folded_safe(f.name));
    }
    for (const Frame& f : symbolizer->symbolize(s.ips[i], ret)) {
      // A run of frames nothing names (JIT code without a perf map) is one frame.
      if (f.name == "[unknown]" && !out.empty() && out.back() == "[unknown]") continue;
      out.push_back(folded_safe(f.name) + (f.inlined ? "_[i]" : f.jit ? "_[j]" : ""));
    }
  }
  for (auto k = s.kernel.rbegin(); k != s.kernel.rend(); ++k)
    out.push_back(folded_safe(*k) + "_[k]");
  if (!s.kernel_ips.empty() && !kallsyms_tried) {
    kallsyms_tried = true;
    kallsyms = KernelSymbols::shared(options.symbol_cache);
  }
  for (auto k = s.kernel_ips.rbegin(); kallsyms && k != s.kernel_ips.rend(); ++k) {
    std::string_view name = kallsyms->name_of_return_address(*k);
    if (!name.empty()) out.push_back(folded_safe(std::string(name)) + "_[k]");
  }
  if (out.empty()) out.push_back("[unknown]");
  summary.symbolize_ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  ++summary.stacks_symbolized;
  return out;
}

const std::string& Sampler::Impl::match_text_of(uint32_t id) {
  if (match_texts.size() <= id) match_texts.resize(stacks.size());
  std::string& out = match_texts[id];
  if (!out.empty()) return out;
  const RawStack& s = stacks[id];
  UnwindStatus status;
  status.exact_ips = s.exact_ips;
  out = "\n";
  if (s.truncated) out += "[truncated]\n";
  for (size_t i = s.ips.size(); i-- > 0;) {
    std::string name =
        folded_safe(symbolizer->function_name(s.ips[i], is_return_address(status, i)));
    out += name;
    out += '\n';
  }
  for (auto k = s.kernel.rbegin(); k != s.kernel.rend(); ++k) out += folded_safe(*k) + "_[k]\n";
  if (!s.kernel_ips.empty() && !kallsyms_tried) {
    kallsyms_tried = true;
    kallsyms = KernelSymbols::shared(options.symbol_cache);
  }
  for (auto k = s.kernel_ips.rbegin(); kallsyms && k != s.kernel_ips.rend(); ++k) {
    std::string_view name = kallsyms->name_of_return_address(*k);
    if (!name.empty()) out += folded_safe(std::string(name)) + "_[k]\n";
  }
  return out;
}

std::vector<std::string> Sampler::Impl::sample_frames(const Impl::ThreadSample& t,
                                                      const AggregateOptions& o) {
  std::vector<std::string> frames;
  if (o.state_frames) frames.emplace_back(state_frame(t.state));
  const std::vector<std::string>& user = frames_of(t.stack);
  frames.insert(frames.end(), user.begin(), user.end());
  return frames;
}

const std::string& Sampler::Impl::entry_of_stack(uint32_t id) {
  if (stack_entry.size() <= id) {
    stack_entry.resize(stacks.size());
    stack_entry_known.resize(stacks.size());
  }
  if (!stack_entry_known[id]) {
    stack_entry[id] = entry_function(frames_of(id));
    stack_entry_known[id] = 1;
  }
  return stack_entry[id];
}

void Sampler::Impl::tally_entries() {
  for (; tallied < rounds.size(); ++tallied) {
    for (const Impl::ThreadSample& t : rounds[tallied].threads)
      entries.add(t.tid, entry_of_stack(t.stack));
  }
}

std::string Sampler::Impl::root_name(const Impl::Round& r, const Impl::ThreadSample& t,
                                     const AggregateOptions& o, const std::string& entry) const {
  const std::string& name = names[t.name];
  if (o.kernel_names) return name;
  return thread_role(name, process_name_in(r), t.tid == options.pid, entry);
}

std::string_view Sampler::Impl::process_name_in(const Impl::Round& r) const {
  auto leader = std::lower_bound(r.threads.begin(), r.threads.end(), options.pid,
                                 [](const ThreadSample& a, pid_t tid) { return a.tid < tid; });
  if (leader != r.threads.end() && leader->tid == options.pid) return names[leader->name];
  return process_name;
}

std::string Sampler::Impl::root_of(const Impl::Round& r, const Impl::ThreadSample& t,
                                   const AggregateOptions& o, const std::string& entry) const {
  return sample_root({.process = process_name_in(r),
                      .pid = options.pid,
                      .title = r.title == kNoTitle ? std::string_view() : names[r.title],
                      .thread = root_name(r, t, o, entry),
                      .tid = t.tid,
                      .multi_threaded = summary.threads_seen > 1},
                     o);
}

const std::string& Sampler::Impl::current_entry(pid_t tid,
                                                std::unordered_map<pid_t, std::string>* cache) {
  auto [it, added] = cache->try_emplace(tid);
  if (added) it->second = entries.entry_of(tid);
  return it->second;
}

UnnamedFrames Sampler::unnamed_frames() {
  Impl& s = *impl_;
  std::unordered_map<uint32_t, uint64_t> samples_of;  // stack id → thread samples
  for (const Impl::Round& r : s.rounds) {
    for (const Impl::ThreadSample& t : r.threads) ++samples_of[t.stack];
  }
  UnnamedTally tally;
  for (const auto& [id, n] : samples_of) tally.add_stack(s.frames_of(id), n, s.stacks[id].lost);
  tally.perf_map = s.symbolizer && s.symbolizer->perf_map_found();
  tally.perf_map_path = s.symbolizer ? s.symbolizer->perf_map_path() : "";
  return tally.result();
}

void Sampler::aggregate(StackCounts* counts, const AggregateOptions& options) {
  Impl& s = *impl_;
  std::unordered_map<pid_t, std::string> entry;
  if (!options.kernel_names) {
    s.tally_entries();
    // A thread whose most frequent entry changed since its samples were added has them under
    // its old root: add everything again. Rare after the first rounds (entries settle fast).
    for (const auto& [tid, used] : s.entries_aggregated) {
      if (s.current_entry(tid, &entry) == used) continue;
      *counts = StackCounts();
      s.aggregated = 0;
      s.entries_aggregated.clear();
      break;
    }
  }
  // A process seen with one thread so far has none under its root: once a second thread
  // appears, every sample goes under a thread root, so the samples so far are added again.
  const bool multi = s.summary.threads_seen > 1;
  if (options.process_roots && s.aggregated > 0 && multi != s.multi_aggregated) {
    *counts = StackCounts();
    s.aggregated = 0;
    s.entries_aggregated.clear();
  }
  s.multi_aggregated = multi;
  static const std::string kNone;
  for (; s.aggregated < s.rounds.size(); ++s.aggregated) {
    const Impl::Round& r = s.rounds[s.aggregated];
    for (const Impl::ThreadSample& t : r.threads) {
      const std::string& e = options.kernel_names ? kNone : s.current_entry(t.tid, &entry);
      if (!options.kernel_names) s.entries_aggregated.try_emplace(t.tid, e);
      counts->add(s.root_of(r, t, options, e), s.sample_frames(t, options));
    }
  }
}

std::string Sampler::raw_text(const AggregateOptions& options) {
  Impl& s = *impl_;
  std::string out;
  raw_samples::append_header(&out, s.options.pid, s.process_name);
  for (const RawRound& r : raw_rounds(options)) out += r.text;
  return out;
}

std::vector<Sampler::RawRound> Sampler::raw_rounds(const AggregateOptions& options) {
  Impl& s = *impl_;
  if (!options.kernel_names) s.tally_entries();
  std::unordered_map<pid_t, std::string> entry;
  static const std::string kNone;
  std::vector<RawRound> rounds;
  rounds.reserve(s.rounds.size());
  raw_samples::Sample line;
  for (size_t i = 0; i < s.rounds.size(); ++i) {
    const Impl::Round& r = s.rounds[i];
    std::string out;
    // How this round's stacks were taken, and what the stops cost: a comment, so readers of
    // the rows need not know it.
    raw_samples::append_round(
        &out, {r.time_ns, r.copied, r.reused, r.stopped, r.stall_ns,
               std::find(s.exec_rounds.begin(), s.exec_rounds.end(), i) != s.exec_rounds.end()});
    line.time_ns = r.time_ns;
    for (const Impl::ThreadSample& t : r.threads) {
      const std::string& e = options.kernel_names ? kNone : s.current_entry(t.tid, &entry);
      line.tid = t.tid;
      line.state = t.state;
      line.stack = s.root_of(r, t, options, e);
      for (const std::string& f : s.sample_frames(t, options)) {
        line.stack += ';';
        line.stack += f;
      }
      raw_samples::append_sample(&out, line);
    }
    rounds.push_back({r.time_ns, std::move(out)});
  }
  return rounds;
}

size_t Sampler::forget_before(uint64_t time_ns) {
  Impl& s = *impl_;
  size_t k = 0, samples = 0;
  while (k < s.rounds.size() && s.rounds[k].time_ns < time_ns) samples += s.rounds[k++].threads.size();
  if (k == 0) return 0;
  s.rounds.erase(s.rounds.begin(), s.rounds.begin() + static_cast<std::ptrdiff_t>(k));
  s.aggregated = s.aggregated > k ? s.aggregated - k : 0;
  s.tallied = s.tallied > k ? s.tallied - k : 0;
  std::erase_if(s.exec_rounds, [k](size_t r) { return r < k; });
  for (size_t& r : s.exec_rounds) r -= k;
  // Per-round figures, oldest first: the same number of rounds off their front (a capture's
  // costs are per pass; per-thread stalls per thread sample, so approximately theirs).
  auto drop_front = [](auto& v, size_t n) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size())));
  };
  drop_front(s.summary.round_stall_ms, k);
  drop_front(s.summary.capture_ms, k);
  drop_front(s.summary.capture_cpu_ms, k);
  drop_front(s.summary.capture_faults, k);
  drop_front(s.summary.thread_stall_us, samples);
  s.trim_tables();
  return k;
}

namespace {

constexpr uint32_t kTrimmed = ~uint32_t{0};
// Tables this small are not worth renumbering.
constexpr size_t kTrimAtLeast = 64;

// Entries of V (a table indexed by old ids, possibly shorter than the table) moved to their new
// ids TO, those without one dropped.
template <typename T>
void renumber(std::vector<T>& v, const std::vector<uint32_t>& to) {
  size_t kept = 0;
  for (size_t id = 0; id < to.size(); ++id) {
    if (to[id] == kTrimmed) continue;
    if (id < v.size()) {
      if (to[id] != id) v[to[id]] = std::move(v[id]);
    } else if (to[id] < v.size()) {
      v[to[id]] = T();  // not computed for the old id: none for the new one either
    }
    kept = to[id] + 1;
  }
  v.resize(std::min(v.size(), kept));
}

// New ids for the USED entries of a table of N (kTrimmed for the others), or empty when too few
// are unused to be worth it.
std::vector<uint32_t> new_ids(const std::vector<uint8_t>& used) {
  const size_t live = static_cast<size_t>(std::count(used.begin(), used.end(), uint8_t{1}));
  const size_t dead = used.size() - live;
  if (dead < kTrimAtLeast || dead < live) return {};
  std::vector<uint32_t> to(used.size(), kTrimmed);
  uint32_t next = 0;
  for (size_t id = 0; id < used.size(); ++id) {
    if (used[id]) to[id] = next++;
  }
  return to;
}

}  // namespace

void Sampler::Impl::trim_tables() {
  // The look over every held round is paid once per doubling of a table: a steady ring (the
  // same stacks again and again) never pays it.
  if (stacks.size() < trim_stacks_at && names.size() < trim_names_at) return;
  std::vector<uint8_t> stack_used(stacks.size()), name_used(names.size());
  std::unordered_set<pid_t> tids;
  for (const Round& r : rounds) {
    if (r.title != kNoTitle) name_used[r.title] = 1;
    for (const ThreadSample& t : r.threads) {
      stack_used[t.stack] = name_used[t.name] = 1;
      tids.insert(t.tid);
    }
  }
  for (const auto& [tid, slot] : slots) {
    if (slot.last_stack >= 0) stack_used[static_cast<size_t>(slot.last_stack)] = 1;
    name_used[slot.name] = 1;
    tids.insert(tid);
  }
  // Threads gone with no sample left: their entry counts and the entries their roots had.
  entries.forget_threads_unless([&tids](pid_t tid) { return tids.contains(tid); });
  std::erase_if(entries_aggregated, [&tids](const auto& e) { return !tids.contains(e.first); });

  if (std::vector<uint32_t> to = new_ids(stack_used); !to.empty()) {
    renumber(stacks, to);
    renumber(symbolized, to);
    renumber(match_texts, to);
    renumber(stack_entry, to);
    renumber(stack_entry_known, to);
    for (auto it = stack_ids.begin(); it != stack_ids.end();) {
      if (to[it->second] == kTrimmed) {
        it = stack_ids.erase(it);
      } else {
        it->second = to[it->second];
        ++it;
      }
    }
    for (Round& r : rounds) {
      for (ThreadSample& t : r.threads) t.stack = to[t.stack];
    }
    for (auto& [tid, slot] : slots) {
      if (slot.last_stack >= 0) slot.last_stack = to[static_cast<size_t>(slot.last_stack)];
    }
  }
  if (std::vector<uint32_t> to = new_ids(name_used); !to.empty()) {
    renumber(names, to);
    for (auto it = name_ids.begin(); it != name_ids.end();) {
      if (to[it->second] == kTrimmed) {
        it = name_ids.erase(it);
      } else {
        it->second = to[it->second];
        ++it;
      }
    }
    for (Round& r : rounds) {
      if (r.title != kNoTitle) r.title = to[r.title];
      for (ThreadSample& t : r.threads) t.name = to[t.name];
    }
    for (auto& [tid, slot] : slots) slot.name = to[slot.name];
  }
  trim_stacks_at = std::max(kTrimAtLeast, 2 * stacks.size());
  trim_names_at = std::max(kTrimAtLeast, 2 * names.size());
}

SamplerTables Sampler::tables() const {
  const Impl& s = *impl_;
  return {.stacks = s.stacks.size(),
          .stacks_added = s.stacks_added,
          .names = s.names.size(),
          .names_added = s.names_added};
}

Sampler::Matching Sampler::last_round_matching(std::string_view text) {
  Impl& s = *impl_;
  Matching m;
  if (s.rounds.empty()) return m;
  if (text.find('\n') != std::string_view::npos) {  // no frame name holds a line end
    m.samples = s.rounds.back().threads.size();
    return m;
  }
  std::unordered_map<uint32_t, bool> seen;  // stack id -> has a matching frame
  for (const Impl::ThreadSample& t : s.rounds.back().threads) {
    ++m.samples;
    auto [it, added] = seen.try_emplace(t.stack, false);
    if (added) it->second = s.match_text_of(t.stack).find(text) != std::string::npos;
    m.matching += it->second;
  }
  return m;
}

size_t Sampler::round_count() const {
  return impl_->rounds.size();
}

uint64_t Sampler::round_time_ns(size_t round) const {
  return impl_->rounds[round].time_ns;
}

void Sampler::add_timed_round(size_t round, const AggregateOptions& options,
                              timed_samples::Builder* builder, std::vector<uint32_t>* stack_ids) {
  Impl& s = *impl_;
  if (!options.kernel_names) s.tally_entries();
  AggregateOptions o = options;
  o.state_frames = false;  // the state is a column of its own
  const Impl::Round& r = s.rounds[round];
  std::unordered_map<pid_t, std::string> entry;
  static const std::string kNone;
  std::vector<std::string> roots;
  roots.reserve(r.threads.size());
  if (stack_ids->size() < s.stacks.size())
    stack_ids->resize(s.stacks.size(), timed_samples::Builder::kNoStack);
  std::vector<timed_samples::Builder::Entry> entries;
  entries.reserve(r.threads.size());
  for (const Impl::ThreadSample& t : r.threads) {
    const std::string& e = o.kernel_names ? kNone : s.current_entry(t.tid, &entry);
    roots.push_back(s.root_of(r, t, o, e));
    uint32_t& id = (*stack_ids)[t.stack];
    if (id == timed_samples::Builder::kNoStack) {
      std::string joined;
      for (const std::string& f : s.frames_of(t.stack)) {
        if (!joined.empty()) joined += ';';
        joined += f;
      }
      id = builder->intern_stack(joined);
    }
    entries.push_back({.tid = t.tid, .state = t.state, .stack = id});
  }
  for (size_t i = 0; i < entries.size(); ++i) entries[i].root = roots[i];
  const bool after_exec =
      std::find(s.exec_rounds.begin(), s.exec_rounds.end(), round) != s.exec_rounds.end();
  builder->add({.time_ns = r.time_ns,
                .pid = s.options.pid,
                .copied = r.copied,
                .reused = r.reused,
                .stopped = r.stopped,
                .stall_ns = r.stall_ns,
                .after_exec = after_exec},
               entries);
}

}  // namespace hearth::stacks
