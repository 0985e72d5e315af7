// Names of kernel frames (the BPF capture's kernel stacks are addresses), read as late and as
// little as possible: /proc/kallsyms costs ~0.1 s of CPU to read and parse (the kernel formats
// every symbol), so the core kernel's symbols, which are fixed for a boot, are kept in the
// symbol cache (symbol_cache.h) under the boot id and the kernel's build notes; an address
// outside the core text (a module, a BPF program, a trampoline: those change while the system
// runs) reads the whole /proc/kallsyms, once per hearth process.
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "collectors/proc/kallsyms.h"

namespace hearth::stacks {

class KernelSymbols {
 public:
  // One per cache directory ("": no cache) per hearth process.
  static std::shared_ptr<KernelSymbols> shared(const std::string& cache_dir);

  // As proc::Kallsyms::name_of_return_address(); "" when kernel symbols cannot be read.
  std::string_view name_of_return_address(uint64_t addr);

  explicit KernelSymbols(std::string cache_dir) : cache_dir_(std::move(cache_dir)) {}

 private:
  void load_core();  // with mutex_ held
  std::mutex mutex_;
  std::string cache_dir_;
  bool core_tried_ = false;
  std::shared_ptr<const proc::Kallsyms> core_;  // from the cache: the core text only
  std::shared_ptr<const proc::Kallsyms> full_;  // /proc/kallsyms (proc::Kallsyms::shared())
};

// The cache entry's first line for this boot: boot id and a hash of the kernel's notes (its
// build-id). "" when the boot id cannot be read (then nothing is cached).
std::string kernel_symbols_header();

}  // namespace hearth::stacks
