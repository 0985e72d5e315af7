// Names of kernel frames (the BPF capture's kernel stacks are addresses), read as late and as
// little as possible: /proc/kallsyms costs ~0.1 s of CPU to read and parse (the kernel formats
// every symbol), so the core kernel's symbols, which are fixed for a boot, are kept in the
// symbol cache (symbol_cache.h) under the boot id and the kernel's build notes; an address
// outside the core text (a module, a BPF program, a trampoline: those change while the system
// runs) reads the whole /proc/kallsyms, once (a cold start-up's read, which fills the cache,
// serves it). prefetch() starts the load on a thread of its own as soon as a capture that takes
// kernel stacks is ready, so that a cold start-up's read of /proc/kallsyms (the kernel formats
// ~120,000 lines) overlaps the capture, the unwinding and the user-space names instead of
// following them.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "collectors/proc/kallsyms.h"
#include "collectors/stacks/symbol_cache.h"

namespace hearth::stacks {

class KernelSymbols {
 public:
  // One per cache directory ("": no cache) per hearth process.
  static std::shared_ptr<KernelSymbols> shared(const std::string& cache_dir);

  // Starts loading the core symbols (the cache's entry, else /proc/kallsyms, which is then
  // written to the cache) on a thread of its own; the first name_of_return_address() waits
  // for it. Does nothing once they are loaded or loading.
  void prefetch();

  // As proc::Kallsyms::name_of_return_address(); "" when kernel symbols cannot be read.
  std::string_view name_of_return_address(uint64_t addr);

  explicit KernelSymbols(std::string cache_dir) : cache_dir_(std::move(cache_dir)) {}
  ~KernelSymbols();  // waits for a prefetch() still loading

 private:
  // What load_core() found. It touches nothing of the hearth process but its arguments and the
  // cache directory, so that it may run on the loader thread.
  struct Core {
    std::shared_ptr<const proc::Kallsyms> core, full;
    SymbolCacheStats stats;
  };
  static Core load_core(const std::string& cache_dir);
  // Keeps what load_core() found and adds its figures; WAITED_FROM: when a lookup began waiting
  // for prefetch()'s loader. With mutex_ held.
  void take(Core loaded, std::optional<std::chrono::steady_clock::time_point> waited_from);
  std::mutex mutex_;
  std::string cache_dir_;
  bool core_tried_ = false;
  std::thread loader_;                          // prefetch()'s, until a lookup joins it
  Core loaded_;                                 // the loader's result (read after joining it)
  std::shared_ptr<const proc::Kallsyms> core_;  // from the cache: the core text only
  // /proc/kallsyms whole: the cold load's own read, else proc::Kallsyms::shared() on demand.
  std::shared_ptr<const proc::Kallsyms> full_;
};

// The cache entry's first line for this boot: boot id and a hash of the kernel's notes (its
// build-id). "" when the boot id cannot be read (then nothing is cached).
std::string kernel_symbols_header();

}  // namespace hearth::stacks
