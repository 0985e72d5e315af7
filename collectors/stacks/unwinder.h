// Unwinds a thread's user stack from registers saved while it was stopped, over its stack copy
// plus the target's cached read-only memory (RemoteMemory), with libunwind's remote API and our
// own accessors. Works on code without frame pointers (DWARF CFI from .eh_frame_hdr), through
// the vDSO (its image is read from the target) and through signal frames (glibc's __restore_rt
// has CFI). Code without .eh_frame_hdr falls back to libunwind's frame-pointer (rbp) heuristic.
//
// Runs after the target is resumed; nothing here stops or signals it.
// Not thread-safe: one Unwinder per target, used from one thread.
#pragma once

#include <libelf.h>
#include <sys/types.h>
#include <sys/user.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/proc/maps.h"
#include "collectors/stacks/remote_memory.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth::stacks {

inline constexpr size_t kDefaultMaxFrames = 128;

enum class UnwindStop {
  kEndOfStack,    // the outermost frame says so (CFI marks the return address undefined)
  kMaxFrames,     // max_frames reached; deeper frames were not unwound
  kOutsideCopy,   // needed stack memory beyond the stack copy (copy more bytes)
  kNoUnwindInfo,  // no unwind info at `ip` and the frame-pointer fallback found no caller
  kBadFrame,      // libunwind failed (garbage registers or memory), or the stack looped
};

struct UnwindStatus {
  UnwindStop stop = UnwindStop::kEndOfStack;
  uint64_t ip = 0;    // the IP of the last frame unwound (kNoUnwindInfo: the IP without info)
  int unw_error = 0;  // kBadFrame/kOutsideCopy: libunwind's error code (negative UNW_E*), or 0
  // Indices of frames other than the leaf (0) whose IP is exact rather than a return address:
  // a signal trampoline (__restore_rt) and the frame the signal interrupted. Ascending.
  std::vector<uint32_t> exact_ips;
};

// Whether frame `index` of an unwind holds a return address, i.e. the symbolizer must look up
// ip - 1 (the call instruction) rather than ip.
bool is_return_address(const UnwindStatus& status, size_t index);

const char* to_string(UnwindStop stop);

struct UnwinderStats {
  uint64_t modules = 0;               // executable mappings known (ELF objects + vDSO)
  uint64_t modules_without_info = 0;  // of which without .eh_frame_hdr (rbp fallback only)
  uint64_t find_proc_info = 0;        // libunwind lookups (misses of its register-state cache)
  uint64_t no_info = 0;               // lookups that found no unwind info
};

class Unwinder {
 public:
  // memory is not owned: it must outlive the Unwinder and stay where it is (not be moved).
  // Errors only when libunwind cannot create an address space (out of memory).
  static Result<Unwinder> create(RemoteMemory* memory);

  Unwinder(Unwinder&&) noexcept;
  Unwinder& operator=(Unwinder&&) noexcept;
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;
  ~Unwinder();

  // Call before the first stop, and again whenever the maps change: hands the maps to the
  // RemoteMemory, opens each executable mapping's ELF (through /proc/PID/map_files, so deleted
  // and replaced files work), finds its .eh_frame_hdr and load bias, and prefetches the unwind
  // tables into the page cache. Mappings unchanged since the last call keep their tables.
  // Errors only for a target that is gone; a file that cannot be opened leaves its mapping
  // without unwind info (counted in stats()).
  Result<void> prepare(const std::vector<proc::Mapping>& maps);

  // The thread's IPs, leaf first: [0] is the exact IP from regs; the others are return
  // addresses, except those listed in status->exact_ips. At most max_frames IPs. The stack copy
  // must be the one taken together with regs (same stop).
  // The copy is read where it lies (a StackView into the capture's arena, say): nothing is
  // copied again. IPS is cleared and refilled (pass the same vector again: no allocation).
  void unwind(const user_regs_struct& regs, const StackView& stack, size_t max_frames,
              UnwindStatus* status, std::vector<uint64_t>* ips);
  std::vector<uint64_t> unwind(const user_regs_struct& regs, const StackCopy& stack,
                               size_t max_frames = kDefaultMaxFrames,
                               UnwindStatus* status = nullptr);

  const UnwinderStats& stats() const;

 private:
  struct Impl;
  explicit Unwinder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// --- ELF helpers shared with the symbolizer. ---

// The load bias of the ELF object mapped by m (runtime address = bias + p_vaddr), from the
// PT_LOAD segment holding m's file offset; nullopt if none does.
std::optional<uint64_t> elf_load_bias(Elf* elf, const proc::Mapping& m);

// Opens the file behind mapping m read-only: /proc/PID/map_files/START-END first (works for
// deleted files and other mount namespaces), else /proc/PID/root/PATH, else PATH. Returns the
// fd (owned by the caller) or the error of the last attempt.
Result<UniqueFd> open_mapped_file(pid_t pid, const proc::Mapping& m);

}  // namespace hearth::stacks
