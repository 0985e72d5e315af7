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
  // tests and fuzzing. Fails when no line has a non-zero address. The table keeps TEXT (its
  // names are read in place).
  static Result<Kallsyms> parse(std::string text);

  // The function holding ADDR (a return address: ADDR - 1 is looked up, as the kernel's own
  // stack dumps do), or "" when ADDR is below the first symbol.
  std::string_view name_of_return_address(uint64_t addr) const;

  size_t size() const { return symbols_.size(); }

  // The core kernel's text (_stext to _etext) is fixed for a boot, unlike modules' and BPF
  // programs' symbols: a table of its symbols alone can be kept between runs (the kernel
  // symbols cache). covers_core(): ADDR (a return address) lies there, so that such a table
  // names it as the whole /proc/kallsyms would. False when _stext or _etext is missing.
  bool covers_core(uint64_t addr) const;
  bool has_core() const { return core_start_ != 0 && core_start_ < core_end_; }
  // The core text's symbols as /proc/kallsyms lines ("ADDR t NAME"), after HEADER (one line)
  // and before an end line counting them.
  std::string core_text(std::string_view header) const;
  // Reads core_text() back. Fails unless the first line is HEADER and the end line is there and
  // counts the symbols (a cut or damaged file). The table keeps TEXT (its names are read in
  // place).
  static Result<Kallsyms> parse_core_text(std::string text, std::string_view header);

 private:
  struct Symbol {
    uint64_t address;
    uint32_t name;  // offset into names_
    uint32_t length;
  };
  std::vector<Symbol> symbols_;             // text symbols, ascending address
  std::string names_;                       // Symbol::name is an offset into it: the text parsed
  uint64_t core_start_ = 0, core_end_ = 0;  // _stext, _etext (0: not seen)
};

}  // namespace hearth::proc
