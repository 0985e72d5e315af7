#include "collectors/alloc/alloc_profile.h"

#include <sys/user.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectors/alloc/alloc_probe.h"
#include "collectors/alloc/jvm_class_name.h"
#include "collectors/proc/maps.h"
#include "collectors/stacks/remote_memory.h"
#include "collectors/stacks/symbolizer.h"
#include "collectors/stacks/unwinder.h"
#include "formats/folded.h"

namespace hearth::alloc {
namespace {

constexpr auto kMapsRecheck = std::chrono::milliseconds(100);

// One distinct (thread root, IPs) of the samples, and the bytes its samples stand for.
struct SampledStack {
  std::string root;
  std::vector<uint64_t> ips;  // leaf first
  std::vector<uint32_t> exact_ips;
  std::string leaf;  // a JVM object's class ("java.lang.String"): the frame under the IPs'
  bool truncated = false;
  double bytes = 0;
  double calls = 0;
  std::vector<std::string> frames;  // root first, once named
};

}  // namespace

struct AllocProfile::Impl {
  AllocProfileOptions options;
  std::unique_ptr<stacks::RemoteMemory> memory;  // the unwinder points at it: never moved
  std::optional<stacks::Unwinder> unwinder;
  std::optional<stacks::Symbolizer> symbolizer;
  uint64_t maps_hash = 0;
  std::chrono::steady_clock::time_point last_maps_check;
  std::unordered_map<std::string, SampledStack> stacks_by_key;  // node-based: stable pointers
  std::unordered_map<uint64_t, SampledStack*> stack_of_seq;     // a sample's id: its stack
  AllocProfileStats stats;
  // Reused for every sample.
  std::vector<uint64_t> ips;
  stacks::UnwindStatus status;
  std::string key;

  std::vector<std::pair<uint64_t, uint64_t>> libjvm;  // where HotSpot's code is mapped

  Result<void> load_maps(const std::vector<proc::Mapping>& maps) {
    libjvm.clear();
    for (const proc::Mapping& m : maps) {
      if (m.exec && m.path.ends_with("/libjvm.so")) libjvm.emplace_back(m.start, m.end);
    }
    RETURN_IF_ERROR(unwinder->prepare(maps));
    return symbolizer->set_maps(options.pid, maps, memory.get());
  }

  bool in_libjvm(uint64_t ip) const {
    for (const auto& [start, end] : libjvm) {
      if (ip >= start && ip < end) return true;
    }
    return false;
  }

  // S's frames, root first, from its IPs but the SKIP leaf-most.
  void name_from(SampledStack& s, size_t skip) {
    s.frames.clear();
    if (s.truncated) s.frames.push_back("[truncated]");
    stacks::UnwindStatus st;
    st.exact_ips = s.exact_ips;
    for (size_t i = s.ips.size(); i-- > skip;) {
      const bool ret = stacks::is_return_address(st, i);
      if (i + 1 < s.ips.size() && stacks::is_return_address(st, i + 1)) {
        for (const stacks::Frame& f : symbolizer->tail_calls(s.ips[i + 1], s.ips[i], ret))
          s.frames.push_back(formats::folded_safe(f.name));
      }
      for (const stacks::Frame& f : symbolizer->symbolize(s.ips[i], ret)) {
        if (f.name == "[unknown]" && !s.frames.empty() && s.frames.back() == "[unknown]") continue;
        s.frames.push_back(formats::folded_safe(f.name) + (f.inlined ? "_[i]"
                                                           : f.jit   ? "_[j]"
                                                                     : ""));
      }
    }
  }

  void name(SampledStack& s) {
    if (!s.frames.empty()) return;
    // A Java object: the JVM's own frames between the Java code and the probe (its allocation
    // path, the same for every object) are left out, so the class sits under the allocating
    // method, as a Java programmer reads it. Only when JIT code (a method, the interpreter, a
    // stub) called them: an object the JVM allocates for itself (loading a class, in a VM
    // thread) or for native code (JNI) keeps its native stack.
    size_t skip = 0;
    if (!s.leaf.empty()) {
      while (skip + 1 < s.ips.size() && in_libjvm(s.ips[skip])) ++skip;
    }
    name_from(s, skip);
    if (skip > 0 && (s.frames.empty() || !s.frames.back().ends_with("_[j]"))) name_from(s, 0);
    if (!s.leaf.empty()) {
      // Then the runtime's allocation stubs (_new_instance_Java, C1's "new_instance Runtime1
      // stub"): JIT code that is no Java method (a method's name has its parameters in
      // parentheses). The interpreter stays: an interpreted method's frame is "Interpreter".
      while (s.frames.size() > 1 && s.frames.back().ends_with("_[j]") &&
             s.frames.back() != "Interpreter_[j]" && s.frames.back().find('(') == std::string::npos)
        s.frames.pop_back();
    }
    if (s.frames.empty()) s.frames.push_back("[unknown]");
    if (!s.leaf.empty()) s.frames.push_back(formats::folded_safe(s.leaf));
  }
};

Result<AllocProfile> AllocProfile::open(const AllocProfileOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  ASSIGN_OR_RETURN(std::vector<proc::Mapping> maps, proc::read_maps(options.pid));
  ASSIGN_OR_RETURN(stacks::RemoteMemory memory, stacks::RemoteMemory::open(options.pid));
  impl->memory = std::make_unique<stacks::RemoteMemory>(std::move(memory));
  ASSIGN_OR_RETURN(stacks::Unwinder unwinder, stacks::Unwinder::create(impl->memory.get()));
  impl->unwinder.emplace(std::move(unwinder));
  ASSIGN_OR_RETURN(stacks::Symbolizer symbolizer,
                   stacks::Symbolizer::create({.cache_dir = options.symbol_cache}));
  impl->symbolizer.emplace(std::move(symbolizer));
  if (auto h = proc::maps_fingerprint(options.pid)) impl->maps_hash = *h;
  impl->last_maps_check = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(impl->load_maps(maps));
  return AllocProfile(std::move(impl));
}

AllocProfile::AllocProfile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AllocProfile::AllocProfile(AllocProfile&&) noexcept = default;
AllocProfile& AllocProfile::operator=(AllocProfile&&) noexcept = default;
AllocProfile::~AllocProfile() = default;

void AllocProfile::add(const hearth_alloc_event& e) {
  Impl& m = *impl_;
  ++m.stats.samples;
  user_regs_struct regs{};
  static_assert(sizeof e.regs <= sizeof regs);
  std::memcpy(&regs, e.regs, sizeof e.regs);
  const uint32_t len = std::min<uint32_t>(e.stack_len, sizeof e.stack);
  if (len == 0) {
    ++m.stats.no_stack;
    m.ips.assign(1, regs.rip);
    m.status = {};
    m.status.stop = stacks::UnwindStop::kOutsideCopy;
  } else {
    const stacks::StackView view{e.stack_base, std::span<const uint8_t>(e.stack, len)};
    m.unwinder->unwind(regs, view, m.options.max_frames, &m.status, &m.ips);
    // Code the maps read last did not show (a library loaded since, an exec): read them again.
    const bool lost = m.status.stop == stacks::UnwindStop::kNoUnwindInfo ||
                      m.status.stop == stacks::UnwindStop::kBadFrame;
    if (lost && std::chrono::steady_clock::now() - m.last_maps_check > kMapsRecheck &&
        refresh_maps())
      m.unwinder->unwind(regs, view, m.options.max_frames, &m.status, &m.ips);
  }
  const bool truncated = m.status.stop != stacks::UnwindStop::kEndOfStack;
  m.stats.truncated += truncated;
  const std::string_view comm(e.comm, strnlen(e.comm, sizeof e.comm));
  std::string root = formats::thread_root(comm, static_cast<pid_t>(e.tid), m.options.merge_threads);
  m.key = root;
  m.key.push_back('\n');
  m.key.append(reinterpret_cast<const char*>(m.ips.data()), m.ips.size() * sizeof(uint64_t));
  std::string_view klass;
  if (e.kind == HEARTH_ALLOC_JVM_OBJECT) {
    klass = std::string_view(e.class_name, std::min<size_t>(e.class_len, sizeof e.class_name));
    if (klass.empty()) klass = "[unknown class]";
    m.key.push_back('\0');
    m.key.append(klass);
  }
  const double w = sample_weight(e.size, m.options.mean_bytes);
  const double calls = w / static_cast<double>(std::max<uint64_t>(e.size, 1));
  m.stats.bytes += w;
  m.stats.calls += calls;
  auto [it, added] = m.stacks_by_key.try_emplace(m.key);
  if (added) {
    it->second.root = std::move(root);
    it->second.ips = m.ips;
    it->second.exact_ips = m.status.exact_ips;
    it->second.truncated = truncated;
    if (!klass.empty()) it->second.leaf = java_class_name(klass);
    ++m.stats.stacks;
  }
  it->second.bytes += w;
  it->second.calls += calls;
  m.stack_of_seq[e.seq] = &it->second;
}

bool AllocProfile::refresh_maps() {
  Impl& m = *impl_;
  m.last_maps_check = std::chrono::steady_clock::now();
  auto h = proc::maps_fingerprint(m.options.pid);
  if (!h || *h == m.maps_hash) return false;
  auto maps = proc::read_maps(m.options.pid);
  if (!maps) return false;
  for (auto& [key, s] : m.stacks_by_key) m.name(s);  // before their files may go
  m.maps_hash = *h;
  (void)m.load_maps(*maps);
  return true;
}

stacks::StackCounts AllocProfile::counts(AllocWeight weight) {
  stacks::StackCounts out;
  for (auto& [key, s] : impl_->stacks_by_key) {
    impl_->name(s);
    const double w = weight == AllocWeight::kBytes ? s.bytes : s.calls;
    const auto n = static_cast<uint64_t>(std::llround(w));
    if (n > 0) out.add(s.root, s.frames, n);
  }
  return out;
}

stacks::StackCounts AllocProfile::live_counts(std::span<const hearth_alloc_live> live,
                                              AllocWeight weight, AllocLiveStats* stats) {
  Impl& m = *impl_;
  *stats = {};
  // Summed per stack first, rounded once: a stack's many small blocks are not lost to rounding.
  std::unordered_map<SampledStack*, double> weights;
  for (const hearth_alloc_live& b : live) {
    ++stats->blocks;
    auto it = m.stack_of_seq.find(b.seq);
    if (it == m.stack_of_seq.end()) {
      ++stats->unknown;
      continue;
    }
    const double bytes = sample_weight(b.size, m.options.mean_bytes);
    const double calls = bytes / static_cast<double>(std::max<uint64_t>(b.size, 1));
    stats->bytes += bytes;
    stats->calls += calls;
    weights[it->second] += weight == AllocWeight::kBytes ? bytes : calls;
  }
  stacks::StackCounts out;
  for (auto& [s, w] : weights) {
    m.name(*s);
    const auto n = static_cast<uint64_t>(std::llround(w));
    if (n > 0) out.add(s->root, s->frames, n);
  }
  return out;
}

const AllocProfileStats& AllocProfile::stats() const {
  return impl_->stats;
}

}  // namespace hearth::alloc
