// Kernel symbols from /proc/kallsyms, for the kernel stacks the BPF capture reads as
// addresses. Loaded once (~0.1 s, a few MB); lookups are a binary search.
// Thread-safe after load (read-only).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace hearth::proc {

class Kallsyms {
 public:
  // Reads /proc/kallsyms. Fails when the file is unreadable or shows no addresses (they read
  // as zero without root: kptr_restrict).
  static Result<Kallsyms> load();
  // load() once per hearth process, shared by every caller (the samplers of a process set):
  // null when it failed (not tried again). Thread-safe.
  static std::shared_ptr<const Kallsyms> shared();
  // Parses text in /proc/kallsyms's format ("ADDR TYPE NAME [MODULE]" per line); exposed for
  // tests and fuzzing. Fails when no line has a non-zero address.
  static Result<Kallsyms> parse(std::string_view text);

  // The function holding ADDR (a return address: ADDR - 1 is looked up, as the kernel's own
  // stack dumps do), or "" when ADDR is below the first symbol.
  std::string_view name_of_return_address(uint64_t addr) const;

  size_t size() const { return symbols_.size(); }

 private:
  struct Symbol {
    uint64_t address;
    uint32_t name;  // offset into names_
    uint32_t length;
  };
  std::vector<Symbol> symbols_;  // text symbols, ascending address
  std::string names_;
};

}  // namespace hearth::proc
