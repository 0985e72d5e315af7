// The sampler's rounds as gdb prints them (`hearth stacks --format gdb`): each round is one
// `gdb -batch -ex 'thread apply all bt'` of the process, so the poor-man's-profiler scripts that
// parse gdb's text (`/^Thread/` starts a thread, `/^#/` a frame, the word after "in" its
// function) read hearth's samples unchanged.
//
// What gdb prints and what is printed here, for a process without gdb's thread library help
// (hearth has no pthread_t of a thread, only its tid):
//
//   Thread 2 (LWP 4243 "worker-1"):
//   #0  0x00007f3a1c29e8f5 in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
//   #1  0x000055d0c1a4b1f2 in worker_loop ()
//
// gdb's form of a frame without source lines: the address (the leaf's pc, a caller's return
// address), "in" the function (demangled with its parameter list, as gdb names a symbol it has
// no debug information for), "()" for the arguments hearth does not read, and "from LIB" for a
// shared library (not for the executable). Functions inlined at an address come first, at the
// same address, as gdb lists inlined frames before the function they are inlined into;
// functions that left by a tail call between a caller and its callee are listed between them at
// the caller's address. A name nothing gave is "??", as gdb writes it. Kernel frames are not
// shown (gdb shows none). Threads are numbered from 1 in the order of their first appearance
// (the main thread first), listed highest number first, as gdb's `thread apply all` does.
#include <cinttypes>
#include <cstdio>
#include <map>

#include "collectors/stacks/sampler_impl.h"

namespace hearth::stacks {
namespace {

void append_gdb_frame(std::string* out, size_t number, uint64_t address, const std::string& name,
                      const proc::Mapping* module, const std::string& exe) {
  char head[48];
  std::snprintf(head, sizeof head, "#%-2zu 0x%016" PRIx64 " in ", number, address);
  *out += head;
  // hearth's own names for what no symbol covers: "[libc.so.6+0x8c3f2]", "[unknown]".
  const bool unnamed = name.empty() || name.front() == '[';
  *out += unnamed ? "??" : name;
  *out += " ()";
  if (module != nullptr && !module->path.empty() && module->path.front() == '/' &&
      module->path != exe) {
    *out += " from ";
    *out += module->path;
  }
  *out += '\n';
}

}  // namespace

const proc::Mapping* Sampler::Impl::code_mapping_of(uint64_t ip) const {
  for (const proc::Mapping& m : code_maps) {
    if (ip >= m.start && ip < m.end) return &m;
  }
  return nullptr;
}

void Sampler::Impl::append_gdb_thread(const ThreadSample& t, size_t number, std::string* out) {
  char head[96];
  std::snprintf(head, sizeof head, "\nThread %zu (LWP %d \"", number, static_cast<int>(t.tid));
  *out += head;
  *out += names[t.name];
  *out += "\"):\n";
  const RawStack& s = stacks[t.stack];
  UnwindStatus status;
  status.exact_ips = s.exact_ips;
  size_t frame = 0;
  for (size_t i = 0; i < s.ips.size(); ++i) {
    const bool ret = is_return_address(status, i);
    const proc::Mapping* module = code_mapping_of(s.ips[i]);
    const std::vector<Frame>& at = symbolizer->symbolize(s.ips[i], ret);
    for (auto f = at.rbegin(); f != at.rend(); ++f)
      append_gdb_frame(out, frame++, s.ips[i], f->name, module, exe_path);
    if (i + 1 < s.ips.size() && is_return_address(status, i + 1)) {
      const uint64_t caller = s.ips[i + 1];
      const std::vector<Frame>& between = symbolizer->tail_calls(caller, s.ips[i], ret);
      for (auto f = between.rbegin(); f != between.rend(); ++f)
        append_gdb_frame(out, frame++, caller, f->name, code_mapping_of(caller), exe_path);
    }
  }
  if (s.truncated) *out += "Backtrace stopped: hearth's copy of the stack ends here.\n";
}

std::vector<Sampler::RawRound> Sampler::gdb_rounds() {
  Impl& s = *impl_;
  std::vector<RawRound> rounds;
  rounds.reserve(s.rounds.size());
  std::map<pid_t, size_t> number;  // tid -> gdb's thread number, in order of appearance
  std::vector<std::pair<size_t, const Impl::ThreadSample*>> listed;
  for (const Impl::Round& r : s.rounds) {
    listed.clear();
    // A round's threads are in ascending tid order: the main thread (tid == pid) first.
    for (const Impl::ThreadSample& t : r.threads) {
      auto [it, added] = number.try_emplace(t.tid, number.size() + 1);
      listed.emplace_back(it->second, &t);
    }
    std::sort(listed.begin(), listed.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string out;
    for (const auto& [n, t] : listed) s.append_gdb_thread(*t, n, &out);
    rounds.push_back({r.time_ns, std::move(out)});
  }
  return rounds;
}

}  // namespace hearth::stacks
