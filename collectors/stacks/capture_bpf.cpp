#include "collectors/stacks/capture_bpf.h"

#include <bpf/bpf.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "collectors/stacks/capture_loader.h"
#include "collectors/stacks/capture_abi.h"
#include "common/unique_fd.h"

namespace hearth::stacks {
namespace {

static_assert(sizeof(user_regs_struct) >= HEARTH_REGS * sizeof(uint64_t));
static_assert(HEARTH_PAGE_SIZE == 4096);

// The arena holds one read() of the iterator: the deepest single copy (1 MiB), and reads end
// once they have filled kReadBudget pages. Made (zeroed) and mapped in one stretch of kernel
// time at load: 4096 pages took 3.7 ms there, where a real-time thread of the target waited.
constexpr size_t kArenaPages = HEARTH_MAX_STACK_PAGES;
constexpr uint32_t kReadBudget = kArenaPages / 2;
constexpr size_t kReadBytes = 64 << 10;  // > the iterator's seq_file buffer (32 KiB): whole records
constexpr size_t kMaxPasses = 16;  // per pass() call, when the arena fills up (one copy > budget)
// A pass gives the CPU away (sched_yield) between reads once it has held it this long.
constexpr std::chrono::microseconds kYieldAfter{200};
// A set's program: processes in the set, at most; its per-thread maps take the most threads
// (entries are made on use, so a large bound costs nothing until used).
constexpr uint32_t kMaxSetProcesses = 65536;
constexpr size_t kMaxThreads = 65536;

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? u.release : "?";
}

// Why the program could not be loaded or attached, as one line for the user.
std::string why_not(int err) {
  if (err == EPERM || err == EACCES) {
    if (::geteuid() != 0) return "not permitted: needs root, or CAP_BPF and CAP_PERFMON";
    return "not permitted by the kernel (lockdown, or unprivileged BPF restrictions)";
  }
  if (::access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
    return "this kernel (" + kernel_release() + ") has no BTF (/sys/kernel/btf/vmlinux)";
  }
  if (err == EINVAL || err == ENOTSUP || err == ENOENT || err == E2BIG) {
    return "this kernel (" + kernel_release() +
           ") can't run the capture program (a sleepable task iterator needs 5.18 or later)";
  }
  return std::strerror(err);
}

}  // namespace

bool BpfThread::copied() const {
  return (flags & HEARTH_CAP_COPIED) != 0;
}
bool BpfThread::unchanged() const {
  return (flags & HEARTH_CAP_UNCHANGED) != 0;
}
bool BpfThread::on_cpu() const {
  return (flags & (HEARTH_CAP_ON_CPU | HEARTH_CAP_RAN)) != 0;
}
bool BpfThread::exiting() const {
  return (flags & HEARTH_CAP_EXITING) != 0;
}
bool BpfThread::has_mm_seq() const {
  return (flags & HEARTH_CAP_MM_SEQ) != 0;
}
bool BpfThread::child() const {
  return (flags & HEARTH_CAP_CHILD) != 0;
}

char task_state_letter(uint32_t state) {
  constexpr uint32_t kReport = 0x7f;        // TASK_REPORT: the bits /proc reports
  constexpr uint32_t kIdle = 0x402;         // TASK_UNINTERRUPTIBLE | TASK_NOLOAD
  constexpr uint32_t kRtlockWait = 0x1000;  // reported as uninterruptible
  if (state == kIdle) return 'I';
  uint32_t bits = state & kReport;
  if (state & kRtlockWait) bits |= 2;
  static constexpr char kLetters[] = "RSDTtXZP";
  int index = bits == 0 ? 0 : 32 - __builtin_clz(bits);  // fls()
  return index < 8 ? kLetters[index] : '?';
}

// The program and its maps, loaded once and shared by every capture of this hearth process
// with the same settings (a process set samples its members one after another): loading and
// verifying the program takes 20-300 ms, more on a busy host, which a set of 30 processes paid
// 30 times. Each target only attaches an iterator link of its own. The maps are keyed by tid,
// unique across processes, and the arena is refilled by every pass, so the captures sharing
// them need nothing but taking turns (`turn`).
struct LoadedProgram {
  hearth_capture_loaded skel{};
  void* arena = MAP_FAILED;
  size_t arena_pages = 0;
  size_t max_threads = 0;  // entries of the per-thread maps
  uint32_t default_pages = 0;
  bool kernel_stacks = true;
  bool set = false;  // filters by the "tgids" map (BpfCaptureOptions::set)
  std::mutex turn;  // one pass at a time: the pass's cursor and pass id are the program's

  LoadedProgram() = default;
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;
  ~LoadedProgram() {
    if (arena != MAP_FAILED) ::munmap(arena, arena_pages * HEARTH_PAGE_SIZE);
    hearth_capture_unload(&skel);
  }
};

namespace {

std::mutex g_programs_mutex;
std::vector<std::weak_ptr<LoadedProgram>> g_programs;  // the live ones
size_t g_loads = 0;

// Loads a program with these settings and sizes.
Result<std::shared_ptr<LoadedProgram>> load_program(uint32_t pages, bool kernel_stacks, bool set,
                                                    size_t arena_pages, size_t max_threads) {
  auto p = std::make_shared<LoadedProgram>();
  p->arena_pages = arena_pages;
  p->max_threads = max_threads;
  p->default_pages = pages;
  p->kernel_stacks = kernel_stacks;
  p->set = set;
  const hearth_capture_settings settings{
      .read_budget = std::min<uint32_t>(kReadBudget, static_cast<uint32_t>(arena_pages)),
      .default_pages = pages,
      .kernel_stacks = kernel_stacks ? 1u : 0u,
      .arena_pages = static_cast<uint32_t>(arena_pages),
      .max_threads = static_cast<uint32_t>(max_threads),
      .filter_tgids = set ? 1u : 0u,
      .tgids_entries = set ? kMaxSetProcesses : 1u};
  if (int r = hearth_capture_load(&settings, &p->skel); r != 0) {
    int e = -r;
    return fail("BPF capture unavailable: " + why_not(e), e);
  }
  p->arena = ::mmap(nullptr, arena_pages * HEARTH_PAGE_SIZE, PROT_READ, MAP_SHARED,
                    p->skel.arena_fd, 0);
  if (p->arena == MAP_FAILED) {
    int e = errno;
    return fail("BPF capture unavailable: cannot map its stack pages: " + why_not(e), e);
  }
  ++g_loads;
  return p;
}

// A loaded program with these settings and at least these sizes, shared, or a new one.
Result<std::shared_ptr<LoadedProgram>> shared_program(uint32_t pages, bool kernel_stacks, bool set,
                                                      size_t arena_pages, size_t max_threads) {
  std::lock_guard lock(g_programs_mutex);
  std::erase_if(g_programs, [](const std::weak_ptr<LoadedProgram>& w) { return w.expired(); });
  for (const std::weak_ptr<LoadedProgram>& w : g_programs) {
    std::shared_ptr<LoadedProgram> p = w.lock();
    if (p && p->default_pages == pages && p->kernel_stacks == kernel_stacks && p->set == set &&
        p->arena_pages >= arena_pages && p->max_threads >= max_threads) {
      return p;
    }
  }
  ASSIGN_OR_RETURN(std::shared_ptr<LoadedProgram> p,
                   load_program(pages, kernel_stacks, set, arena_pages, max_threads));
  g_programs.push_back(p);
  return p;
}

}  // namespace

struct BpfCapture::Impl {
  std::shared_ptr<LoadedProgram> program;
  UniqueFd link;  // this target's iterator link
  void* arena = MAP_FAILED;       // program->arena
  size_t arena_pages = 0;         // program->arena_pages
  std::vector<uint8_t> buffer;    // one read()'s records, reused
  std::vector<uint32_t> pending;  // tids the arena had no room for, ascending
  std::vector<uint64_t> kernel;   // scratch for one record's kernel frames
  user_regs_struct regs{};        // scratch for one record's registers
  hearth_record rec{};            // scratch for one record

  // Runs the iterator once, handing each read()'s records to TAKE before the next read(): the
  // program refills the arena from its start for every read().
  template <class Take>
  Result<void> run_iterator(Take&& take) {
    hearth_capture_loaded& s = program->skel;
    *s.cursor = 0;
    *s.read_records = 0;
    int fd = bpf_iter_create(link.get());
    int e = errno;
    if (fd < 0) return fail_errno("cannot start the capture iterator", e);
    buffer.resize(kReadBytes);  // once: later passes reuse it
    auto held_since = std::chrono::steady_clock::now();
    for (;;) {
      ssize_t n = ::read(fd, buffer.data(), buffer.size());
      e = errno;
      if (n < 0 && e == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        if (n < 0) return fail_errno("capture iterator", e);
        return {};
      }
      take(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(n)));
      *s.cursor = 0;  // this read()'s pages are used: the next one starts over
      *s.read_records = 0;
      // Between reads nothing is held in the kernel: let a waiting thread have the CPU.
      auto now = std::chrono::steady_clock::now();
      if (now - held_since >= kYieldAfter) {
        ::sched_yield();
        held_since = std::chrono::steady_clock::now();
      }
    }
  }

  // The next record of BYTES at *AT into `rec` (only its written part is valid). False at the
  // end, or at a record that does not fit (not made by this program).
  bool next_record(std::span<const uint8_t> bytes, size_t* at) {
    if (bytes.size() - *at < HEARTH_RECORD_HEAD) return false;
    std::memcpy(&rec, bytes.data() + *at, HEARTH_RECORD_HEAD);
    if (rec.size < HEARTH_RECORD_HEAD || rec.size > sizeof rec || rec.size > bytes.size() - *at) {
      return false;
    }
    std::memcpy(reinterpret_cast<uint8_t*>(&rec) + HEARTH_RECORD_HEAD,
                bytes.data() + *at + HEARTH_RECORD_HEAD, rec.size - HEARTH_RECORD_HEAD);
    if ((rec.flags & HEARTH_CAP_COPIED) && rec.size < offsetof(hearth_record, kstack)) {
      rec.flags &= ~HEARTH_CAP_COPIED;  // no registers: not usable as a copy
    }
    const size_t frames = rec.size > offsetof(hearth_record, kstack)
                              ? (rec.size - offsetof(hearth_record, kstack)) / sizeof(uint64_t)
                              : 0;
    rec.kframes = static_cast<uint32_t>(std::min<size_t>(rec.kframes, frames));
    *at += rec.size;
    return true;
  }
};

BpfCapture::BpfCapture(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BpfCapture::BpfCapture(BpfCapture&&) noexcept = default;
BpfCapture& BpfCapture::operator=(BpfCapture&&) noexcept = default;
BpfCapture::~BpfCapture() = default;

Result<BpfCapture> BpfCapture::open(const BpfCaptureOptions& options) {
  auto impl = std::make_unique<Impl>();
  const size_t pages = (std::clamp<size_t>(options.stack_bytes, HEARTH_PAGE_SIZE,
                                           HEARTH_MAX_STACK_PAGES * HEARTH_PAGE_SIZE) +
                        HEARTH_PAGE_SIZE - 1) /
                       HEARTH_PAGE_SIZE;
  // Sizes rounded up to a power of two, so that targets of about the same size share a program.
  const size_t arena_pages = kArenaPages;
  const size_t max_threads =
      options.set ? kMaxThreads
                  : std::clamp<size_t>(std::bit_ceil(2 * options.threads_hint + 1024), 1024,
                                       kMaxThreads);
  ASSIGN_OR_RETURN(impl->program,
                   shared_program(static_cast<uint32_t>(pages), options.kernel_stacks,
                                  options.set, arena_pages, max_threads));
  hearth_capture_loaded& s = impl->program->skel;
  impl->arena = impl->program->arena;
  impl->arena_pages = impl->program->arena_pages;
  int link = -1;
  if (options.set) {
    // Several sets of one hearth process would share the program: any of them wanting new
    // children reported turns it on (a set that did not ask ignores such reports).
    if (options.report_children) *s.report_children = 1;
    // Every task of the host: the program keeps those of the "tgids" processes.
    link = bpf_link_create(s.prog_fd, 0, BPF_TRACE_ITER, nullptr);
  } else {
    union bpf_iter_link_info info = {};
    info.task.pid = static_cast<uint32_t>(options.pid);
    LIBBPF_OPTS(bpf_link_create_opts, link_options, .iter_info = &info,
                .iter_info_len = sizeof info);
    link = bpf_link_create(s.prog_fd, 0, BPF_TRACE_ITER, &link_options);
  }
  if (link < 0) {
    int e = errno;
    if (e == ESRCH || e == ENOENT) {
      return fail("cannot capture " + std::to_string(options.pid) + ": no such process", ESRCH);
    }
    return fail("BPF capture unavailable: " + why_not(e), e);
  }
  impl->link.reset(link);
  return BpfCapture(std::move(impl));
}

Result<size_t> BpfCapture::pass(const Visit& visit) {
  Impl& m = *impl_;
  std::lock_guard turn(m.program->turn);
  hearth_capture_loaded& s = m.program->skel;
  m.pending.clear();
  size_t visited = 0;
  // The first run visits every thread; a further run only those the arena had no room for
  // (the others come back UNCHANGED from the program, or have moved on: either way they were
  // reported already).
  for (size_t run = 0; run < kMaxPasses; ++run) {
    *s.pass_id = *s.pass_id + 1;  // see capture.bpf.c: a task shown again in one run is one record
    std::vector<uint32_t> still;
    const bool last_run = run + 1 == kMaxPasses;
    RETURN_IF_ERROR(m.run_iterator([&](std::span<const uint8_t> bytes) {
      for (size_t at = 0; m.next_record(bytes, &at);) {
        const hearth_record& rec = m.rec;
        if (run > 0 && !std::binary_search(m.pending.begin(), m.pending.end(), rec.tid)) {
          // Reported in an earlier run. If it ran since and was copied again, the program now
          // remembers that newer copy, which the caller never saw: make the next pass read it.
          if (rec.flags & HEARTH_CAP_COPIED) forget(static_cast<pid_t>(rec.tid));
          continue;
        }
        if ((rec.flags & HEARTH_CAP_NO_SPACE) && !last_run) {
          still.push_back(rec.tid);
          continue;
        }
        BpfThread t;
        t.tid = static_cast<pid_t>(rec.tid);
        t.tgid = static_cast<pid_t>(rec.tgid);
        t.parent_tgid = static_cast<pid_t>(rec.parent_tgid);
        t.mm_seq = rec.mm_seq;
        t.flags = rec.flags;
        t.state = task_state_letter(rec.state);
        t.comm = std::string_view(rec.comm, strnlen(rec.comm, sizeof rec.comm));
        t.switches = rec.switches;
        t.start_time = rec.start_time;
        t.exec_id = rec.exec_id;
        if (rec.flags & HEARTH_CAP_COPIED) {
          m.regs = {};
          std::memcpy(&m.regs, rec.regs, sizeof rec.regs);
          t.regs = &m.regs;
          size_t first = std::min<size_t>(rec.first_page, m.arena_pages);
          size_t pages = std::min<size_t>(rec.pages, m.arena_pages - first);
          // The first page is copied from sp's red zone on (capture.bpf.c): the view starts
          // there, so that a read below it goes to the target rather than to stale bytes.
          const uint64_t from = rec.regs[HEARTH_SP_REG] - HEARTH_RED_ZONE;
          const size_t skip = pages == 0 || from < rec.copy_base
                                  ? 0
                                  : std::min<uint64_t>((from - rec.copy_base) / HEARTH_COPY_CHUNK,
                                                       HEARTH_PAGE_SIZE / HEARTH_COPY_CHUNK - 1) *
                                        HEARTH_COPY_CHUNK;
          t.copy_base = rec.copy_base + skip;
          t.stack = {static_cast<const uint8_t*>(m.arena) + first * HEARTH_PAGE_SIZE + skip,
                     pages * HEARTH_PAGE_SIZE - skip};
        }
        if (rec.flags & HEARTH_CAP_KSTACK) {
          m.kernel.assign(rec.kstack, rec.kstack + rec.kframes);
          t.kernel = m.kernel;
        }
        visit(t);
        ++visited;
      }
    }));
    if (still.empty()) break;
    std::sort(still.begin(), still.end());
    m.pending = std::move(still);
  }
  return visited;
}

Result<void> BpfCapture::add_process(pid_t pid) {
  uint32_t key = static_cast<uint32_t>(pid);
  uint8_t value = 1;
  if (bpf_map_update_elem(impl_->program->skel.tgids_fd, &key, &value, BPF_ANY) != 0) {
    int e = errno;
    return fail_errno("cannot add process " + std::to_string(pid) + " to the capture", e);
  }
  return {};
}

void BpfCapture::remove_process(pid_t pid) {
  uint32_t key = static_cast<uint32_t>(pid);
  (void)bpf_map_delete_elem(impl_->program->skel.tgids_fd, &key);
}

void BpfCapture::set_stack_bytes(pid_t tid, size_t bytes) {
  uint32_t key = static_cast<uint32_t>(tid);
  uint32_t pages = static_cast<uint32_t>(
      std::clamp<size_t>((bytes + HEARTH_PAGE_SIZE - 1) / HEARTH_PAGE_SIZE, 1,
                         std::min<size_t>(HEARTH_MAX_STACK_PAGES, impl_->arena_pages)));
  // The program looks in the map only from now on (see capture.bpf.c's pages_for_used).
  *impl_->program->skel.pages_for_used = 1;
  // Full map: that thread keeps the default size. Best effort either way.
  (void)bpf_map_update_elem(impl_->program->skel.pages_for_fd, &key, &pages, BPF_ANY);
  forget(tid);
}

void BpfCapture::forget(pid_t tid) {
  uint32_t key = static_cast<uint32_t>(tid);
  (void)bpf_map_delete_elem(impl_->program->skel.seen_fd, &key);
}

size_t BpfCapture::programs_loaded() {
  std::lock_guard lock(g_programs_mutex);
  return g_loads;
}

size_t BpfCapture::arena_bytes() const {
  return impl_->arena_pages * HEARTH_PAGE_SIZE;
}

}  // namespace hearth::stacks
