// Tail calls: functions that ran between a caller and its callee but left no frame on the stack
// (F ends in `jmp G`, so G returns straight to F's caller). The unwinder cannot see them; the
// compiler's DWARF call-site information (DW_TAG_call_site, -O2 -g by default) can: the caller's
// call site names the function it called, and each function's tail-call sites name where it
// jumps. When the call named F but the callee is G, the chain F → … → G is put back, as gdb
// shows it (glibc's pthread_cond_wait → __futex_abstimed_wait_cancelable64 (jmp) →
// __futex_abstimed_wait_common is the everyday case).
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace hearth::stacks {

// The name of a DWARF function DIE, following abstract_origin/specification: the linkage
// (mangled) name when there is one, else DW_AT_name. nullptr when it has neither.
const char* dwarf_function_name(Dwarf_Die* die);

// The function names of one module's symbol table → their addresses (version suffixes such as
// "@@GLIBC_2.3.2" removed), built on first use.
class SymbolIndex {
 public:
  explicit SymbolIndex(Dwfl_Module* mod);
  // The address of the function named NAME, if the table has exactly one.
  std::optional<uint64_t> address_of(const std::string& name) const;

 private:
  std::unordered_map<std::string, uint64_t> by_name_;  // 0: more than one address
};

// The name of the function the call whose return address is RETURN_ADDRESS called (its
// linkage name when it has one), from the call site's DW_AT_call_origin; nullopt for an indirect
// call or without call-site information.
std::optional<std::string> called_function(Dwfl_Module* mod, uint64_t return_address);
// The same, when the function holding RETURN_ADDRESS - 1 is known: its DIE (the outermost
// DW_TAG_subprogram of the scopes there) and its module's DWARF bias.
std::optional<std::string> called_function(Dwarf_Die* function, Dwarf_Addr bias,
                                           uint64_t return_address);

// The names of the functions the function starting at ENTRY ends in a tail call to (its
// call sites with DW_AT_call_tail_call, inlined code included); empty without DWARF.
std::vector<std::string> tail_call_targets(Dwfl_Module* mod, uint64_t entry);

// The tail-call chain from the function named CALLED to the function starting at CALLEE_ENTRY,
// both in MOD: the names of CALLED and of each function it passed through, outermost first,
// without the callee; empty when CALLED is the callee (or an alias of it), when no chain of at
// most MAX_DEPTH tail calls leads there, or when more than one does (as gdb, nothing is guessed).
std::vector<std::string> tail_call_chain(Dwfl_Module* mod, const SymbolIndex& symbols,
                                         const std::string& called, uint64_t callee_entry,
                                         int max_depth = 4);

}  // namespace hearth::stacks
