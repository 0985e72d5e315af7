#include "collectors/alloc/alloc_probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "collectors/alloc/alloc_loader.h"
#include "collectors/alloc/jvm_alloc_loader.h"

namespace hearth::alloc {
namespace {

struct LinkCloser {
  void operator()(bpf_link* l) const { bpf_link__destroy(l); }
};
using LinkPtr = std::unique_ptr<bpf_link, LinkCloser>;

struct RingCloser {
  void operator()(ring_buffer* r) const { ring_buffer__free(r); }
};
using RingPtr = std::unique_ptr<ring_buffer, RingCloser>;

// Owns the loaded skeleton: unloaded last, after the links and the ring buffer.
struct Loaded {
  hearth_alloc_loaded l{};
  Loaded() = default;
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;
  ~Loaded() { hearth_alloc_unload(&l); }
};

// The JVM probe's skeleton, likewise.
struct JvmLoaded {
  hearth_jvm_alloc_loaded l{};
  JvmLoaded() = default;
  JvmLoaded(const JvmLoaded&) = delete;
  JvmLoaded& operator=(const JvmLoaded&) = delete;
  ~JvmLoaded() { hearth_jvm_alloc_unload(&l); }
};

// glibc's MALLOC_ALIGNMENT on x86-64: its aligned family hands alignments up to this to malloc.
constexpr uint64_t kGlibcMallocAlignment = 16;

std::string permission_hint(int e) {
  return e == EPERM || e == EACCES ? " (needs root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)"
                                   : "";
}

}  // namespace

struct AllocProbe::Impl {
  Loaded loaded;  // declared first: destroyed last
  JvmLoaded jvm;  // or this one, for the JVM's probe
  int stats_fd = -1;
  std::vector<LinkPtr> links;
  RingPtr ring;
  double mean = 0;
  bool live = false;
  const Sample* sample = nullptr;  // poll()'s callback while it runs

  static int on_event(void* ctx, void* data, size_t size) {
    auto* self = static_cast<Impl*>(ctx);
    if (size >= sizeof(hearth_alloc_event) && self->sample != nullptr)
      (*self->sample)(*static_cast<const hearth_alloc_event*>(data));
    return 0;
  }
};

double sample_weight(uint64_t size, double mean) {
  const double s = static_cast<double>(size);
  const double p = -std::expm1(-s / mean);  // 1 - exp(-s/mean), exact for small s/mean
  return p > 0 ? std::max(s, s / p) : s;
}

std::vector<uint64_t> exponential_thresholds(double mean) {
  std::vector<uint64_t> t(HEARTH_ALLOC_THRESHOLDS);
  for (size_t i = 0; i < t.size(); ++i) {
    const double u = (static_cast<double>(i) + 0.5) / static_cast<double>(t.size());
    t[i] = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(-mean * std::log1p(-u))));
  }
  return t;
}

Result<AllocProbe> AllocProbe::open(const AllocProbeOptions& options, const Allocator& allocator) {
  libbpf_set_print(nullptr);  // errors are said here, in one line each
  auto impl = std::make_unique<Impl>();
  const std::vector<uint64_t> thresholds =
      exponential_thresholds(static_cast<double>(options.mean_bytes));
  double sum = 0;
  for (uint64_t t : thresholds) sum += static_cast<double>(t);
  impl->mean = sum / static_cast<double>(thresholds.size());
  impl->live = options.live;
  hearth_alloc_settings settings{.tgid = static_cast<uint32_t>(options.pid),
                                 .ring_bytes = options.ring_bytes,
                                 .thresholds = thresholds.data(),
                                 .track_live = options.live ? 1u : 0u,
                                 .live_entries = options.live ? options.live_entries : 1,
                                 .relay_align = allocator.glibc ? kGlibcMallocAlignment : 0};
  if (int r = hearth_alloc_load(&settings, &impl->loaded.l); r != 0) {
    return fail(
        "cannot load the allocation probe: " + std::string(std::strerror(-r)) + permission_hint(-r),
        -r);
  }
  // free and the returns before the entries: a block sampled is never missed leaving.
  enum Stage { kFree, kReturn, kEntry };
  for (Stage stage : {kFree, kReturn, kEntry}) {
    for (const AllocatorEntry& e : allocator.entries) {
      const bool is_free = e.kind == HEARTH_ALLOC_FREE;
      if (stage == kFree ? !(is_free && options.live)
                         : is_free || (stage == kReturn && !options.live))
        continue;
      bpf_link* link = hearth_alloc_attach(&impl->loaded.l, e.kind, stage == kReturn ? 1 : 0,
                                           options.pid, allocator.attach_path.c_str(), e.offset);
      if (link == nullptr) {
        const int err = errno;
        return fail(std::string("cannot place a ") + (stage == kReturn ? "uretprobe" : "uprobe") +
                        " on " + e.name + " of " + allocator.path + ": " + std::strerror(err) +
                        permission_hint(err),
                    err);
      }
      impl->links.emplace_back(link);
    }
  }
  impl->stats_fd = impl->loaded.l.stats_fd;
  impl->ring.reset(
      ring_buffer__new(impl->loaded.l.events_fd, &Impl::on_event, impl.get(), nullptr));
  if (!impl->ring) {
    const int err = errno;
    return fail_errno("cannot open the allocation probe's ring buffer", err);
  }
  return AllocProbe(std::move(impl));
}

Result<AllocProbe> AllocProbe::open_jvm(const AllocProbeOptions& options,
                                        const std::string& libjvm_path) {
  libbpf_set_print(nullptr);
  if (options.live)
    return fail(
        "the live view is native only (malloc and free): a JVM's objects are freed by its "
        "garbage collector, which no probe follows");
  auto impl = std::make_unique<Impl>();
  const std::vector<uint64_t> thresholds =
      exponential_thresholds(static_cast<double>(options.mean_bytes));
  double sum = 0;
  for (uint64_t t : thresholds) sum += static_cast<double>(t);
  impl->mean = sum / static_cast<double>(thresholds.size());
  if (int r = hearth_jvm_alloc_load(static_cast<uint32_t>(options.pid), options.ring_bytes,
                                    thresholds.data(), &impl->jvm.l);
      r != 0) {
    return fail("cannot load the JVM allocation probe: " + std::string(std::strerror(-r)) +
                    permission_hint(-r),
                -r);
  }
  bpf_link* link = hearth_jvm_alloc_attach(&impl->jvm.l, options.pid, libjvm_path.c_str());
  if (link == nullptr) {
    const int err = errno;
    return fail(
        "cannot attach to the object__alloc probe of " + libjvm_path + ": " + std::strerror(err) +
            (err == ENOENT ? " (a JVM built without DTrace probes?)" : permission_hint(err)),
        err);
  }
  impl->links.emplace_back(link);
  impl->stats_fd = impl->jvm.l.stats_fd;
  impl->ring.reset(ring_buffer__new(impl->jvm.l.events_fd, &Impl::on_event, impl.get(), nullptr));
  if (!impl->ring) {
    const int err = errno;
    return fail_errno("cannot open the JVM allocation probe's ring buffer", err);
  }
  return AllocProbe(std::move(impl));
}

AllocProbe::AllocProbe(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AllocProbe::AllocProbe(AllocProbe&&) noexcept = default;
AllocProbe& AllocProbe::operator=(AllocProbe&&) noexcept = default;
AllocProbe::~AllocProbe() {
  if (impl_) {
    impl_->links.clear();  // the probes first: the target stops calling into the program
    impl_->ring.reset();
  }
}

Result<size_t> AllocProbe::poll(std::chrono::milliseconds timeout, const Sample& sample) {
  impl_->sample = &sample;
  const int n = ring_buffer__poll(impl_->ring.get(), static_cast<int>(timeout.count()));
  impl_->sample = nullptr;
  if (n == -EINTR) return 0;
  if (n < 0) return fail_errno("cannot read the allocation probe's ring buffer", -n);
  return static_cast<size_t>(n);
}

void AllocProbe::detach() {
  impl_->links.clear();
}

AllocProbeTotals AllocProbe::totals() const {
  AllocProbeTotals t;
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return t;
  std::vector<hearth_alloc_stats> per_cpu(static_cast<size_t>(cpus));
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(impl_->stats_fd, &zero, per_cpu.data()) != 0) return t;
  for (const hearth_alloc_stats& s : per_cpu) {
    t.calls += s.calls;
    t.bytes += s.bytes;
    t.samples += s.samples;
    t.lost += s.lost;
    t.freed += s.freed;
    t.dropped += s.dropped;
  }
  return t;
}

std::vector<hearth_alloc_live> AllocProbe::live_blocks() const {
  std::vector<hearth_alloc_live> out;
  if (!impl_->live) return out;
  const int fd = impl_->loaded.l.live_fd;
  if (fd < 0) return out;
  uint64_t key = 0;
  bool first = true;
  if (!impl_->live) return out;
  // Read after detach(), the map no longer changes. (Before, a key the target freed under us
  // would restart the walk at the first key: the bound keeps it finite.)
  for (size_t guard = 0; guard < (size_t{1} << 24); ++guard) {
    uint64_t next = 0;
    if (bpf_map_get_next_key(fd, first ? nullptr : &key, &next) != 0) break;
    first = false;
    key = next;
    hearth_alloc_live v{};
    if (bpf_map_lookup_elem(fd, &key, &v) == 0) out.push_back(v);
  }
  return out;
}

double AllocProbe::mean_bytes() const {
  return impl_->mean;
}

}  // namespace hearth::alloc
