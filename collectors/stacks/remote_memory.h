// The target's memory, as the unwinder sees it after the target has been resumed: the stack
// copies taken while it was stopped, plus a cache of pages that cannot change while the maps
// stay the same (read-only file-backed mappings: code, .eh_frame, .rodata; and the vDSO).
//
// Reads go through /proc/PID/mem with pread (no ptrace needed for reading, no stop).
// Not thread-safe: one RemoteMemory per target, used from one thread.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "collectors/proc/maps.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth::stacks {

inline constexpr uint64_t kPageSize = 4096;  // x86-64; the only target we build for

// The top of one thread's stack, copied while the thread was stopped: bytes[i] is the target's
// byte at base + i. base is page aligned; the copy is whole pages unless the kernel returned a
// short read (it stops at the first unreadable page).
// A stack copy where it lies: bytes[i] is the target's byte at base + i. Points into a
// StackCopy, or straight into the BPF capture's arena (no copy of its own).
struct StackView {
  uint64_t base = 0;
  std::span<const uint8_t> bytes;
};

struct StackCopy {
  uint64_t base = 0;
  std::vector<uint8_t> bytes;

  StackView view() const { return {base, bytes}; }
};

struct RemoteMemoryStats {
  uint64_t hits = 0;           // reads served by the page cache (read-only mappings)
  uint64_t misses = 0;         // page-cache misses: each cost one pread of up to kMissPages
  uint64_t bytes_read = 0;     // bytes pread from /proc/PID/mem on every path, stack copies too
  uint64_t outside_copy = 0;   // direct preads of writable memory that is not in the stack copy
  uint64_t stack_overrun = 0;  // refused reads: the stack copy's mapping, beyond the copy
  uint64_t failed = 0;         // reads that could not be served (unmapped, unreadable)
  uint64_t cached_pages = 0;   // pages held now
};

class RemoteMemory {
 public:
  static constexpr size_t kRedZone = 128;  // bytes below rsp a leaf function may use (x86-64 ABI)
  static constexpr size_t kMissPages = 4;  // pages read per cache miss (that one and the next)
  static constexpr size_t kMaxCachedBytes = size_t{256} << 20;  // dropped all at once past this

  // Opens /proc/PID/mem for reading. Errors: ESRCH/ENOENT (no such process), EACCES/EPERM (not
  // ours to read: needs root or CAP_SYS_PTRACE).
  static Result<RemoteMemory> open(pid_t pid);

  RemoteMemory(RemoteMemory&& other) noexcept;
  RemoteMemory& operator=(RemoteMemory&& other) noexcept;
  RemoteMemory(const RemoteMemory&) = delete;
  RemoteMemory& operator=(const RemoteMemory&) = delete;
  ~RemoteMemory();

  // Replaces the target's memory map (sorted by start or not: it is sorted here). Cached pages
  // survive only if the mapping that holds them is unchanged (same range, offset, permissions,
  // device, inode and path); everything else is dropped.
  void set_maps(std::vector<proc::Mapping> maps);
  const std::vector<proc::Mapping>& maps() const { return maps_; }
  // The mapping containing addr, or nullptr. O(log n).
  const proc::Mapping* find_mapping(uint64_t addr) const;

  // Copies [page_floor(sp - kRedZone), …) in ONE pread: max_bytes rounded up to whole pages (at
  // least one), but never past the end (nor before the start) of the mapping containing sp —
  // /proc/PID/mem would read on into the next mapping, even a PROT_NONE guard. When sp is in
  // no known mapping (maps older than the thread), only max_bytes and the kernel bound it.
  // Meant for the stop window: the overload taking `out` allocates nothing once out.bytes has
  // had the capacity (reuse one StackCopy per thread).
  Result<StackCopy> copy_stack(uint64_t sp, size_t max_bytes);
  Result<void> copy_stack(uint64_t sp, size_t max_bytes, StackCopy& out);

  // Reads len bytes at addr: from the stack copy when the range is inside it; else from the page
  // cache for cacheable mappings (pread of whole pages on a miss); else, for other memory, a
  // direct pread counted in stats().outside_copy. Refused (false, stats().stack_overrun) when
  // the range is in the stack copy's own mapping but outside the copy: the target runs again,
  // so that memory no longer matches the saved registers. False when unreadable.
  bool read(uint64_t addr, void* out, size_t len, const StackView* stack);

  // Fills the page cache for [addr, addr + len) ahead of use, in large preads, and returns the
  // bytes now cached there. Only cacheable mappings are read; call it before the first stop.
  size_t prefetch(uint64_t addr, size_t len);

  // True when pages of this mapping are cached: read-only (not writable) and backed by a file
  // or the vDSO ([vvar] changes all the time and [heap]/[stack]/anonymous memory is writable).
  static bool cacheable(const proc::Mapping& m);

  pid_t pid() const { return pid_; }
  const RemoteMemoryStats& stats() const { return stats_; }

 private:
  RemoteMemory(pid_t pid, UniqueFd fd) : pid_(pid), fd_(std::move(fd)) {}

  // A cached page, or nullptr data when the kernel refused to read it (e.g. past the end of the
  // file under a mapping): remembered so a bad address costs one syscall, not one per read.
  struct Page {
    std::unique_ptr<uint8_t[]> data;
  };

  // The cached page at `page` (filled on a miss), or nullptr: *is_cacheable then tells an
  // unreadable page of a cacheable mapping from memory that is not cached at all.
  const uint8_t* cached_page(uint64_t page, bool* is_cacheable);
  void fill(const proc::Mapping& m, uint64_t lo, uint64_t hi);
  bool read_direct(uint64_t addr, void* out, size_t len);
  ssize_t pread_all(void* out, size_t len, uint64_t addr);
  void clear_cache();

  pid_t pid_ = -1;
  UniqueFd fd_;
  std::vector<proc::Mapping> maps_;  // sorted by start
  std::unordered_map<uint64_t, Page> pages_;
  uint64_t last_page_ = ~uint64_t{0};  // one-entry lookup cache: most reads hit the same page
  const uint8_t* last_data_ = nullptr;
  RemoteMemoryStats stats_;
};

}  // namespace hearth::stacks
