#include "collectors/stacks/call_sites.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
#include <cstdlib>

namespace hearth::stacks {
namespace {

constexpr int kMaxNesting = 64;  // DIE levels searched below a function (blocks, inlines)

std::optional<std::string> origin_name(Dwarf_Die* site) {
  Dwarf_Attribute attr;
  Dwarf_Die origin;
  for (int at : {DW_AT_call_origin, DW_AT_abstract_origin}) {  // DWARF 5, then GNU's DWARF 4
    if (dwarf_attr(site, at, &attr) != nullptr && dwarf_formref_die(&attr, &origin) != nullptr) {
      if (const char* name = dwarf_function_name(&origin)) return std::string(name);
    }
  }
  return std::nullopt;
}

std::optional<Dwarf_Addr> return_pc(Dwarf_Die* site) {
  Dwarf_Attribute attr;
  Dwarf_Addr pc = 0;
  for (int at : {DW_AT_call_return_pc, DW_AT_low_pc}) {  // DWARF 5, then GNU's DWARF 4
    if (dwarf_attr(site, at, &attr) != nullptr && dwarf_formaddr(&attr, &pc) == 0) return pc;
  }
  return std::nullopt;
}

bool is_tail_call(Dwarf_Die* site) {
  return dwarf_hasattr(site, DW_AT_call_tail_call) || dwarf_hasattr(site, DW_AT_GNU_tail_call);
}

// Calls VISIT on every call site below DIE: in its lexical blocks and inlined code too, not in
// nested functions.
template <typename Visit>
void for_each_call_site(Dwarf_Die* die, const Visit& visit, int nesting = 0) {
  if (nesting > kMaxNesting) return;
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
      visit(&child);
    } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
      for_each_call_site(&child, visit, nesting + 1);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The function (its outermost DW_TAG_subprogram) holding the absolute address ADDR, and the
// module's DWARF bias; false without DWARF there.
bool function_at(Dwfl_Module* mod, uint64_t addr, Dwarf_Die* function, Dwarf_Addr* bias) {
  Dwarf_Die* cu = dwfl_module_addrdie(mod, addr, bias);
  if (cu == nullptr) return false;
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(cu, addr - *bias, &scopes);
  if (n <= 0) return false;
  // In inlined code dwarf_getscopes goes on through the inlined function's abstract definition;
  // the concrete scopes holding the innermost one lead to the function the code is in.
  Dwarf_Die* chain = nullptr;
  const int m = dwarf_getscopes_die(&scopes[0], &chain);
  std::free(scopes);
  bool found = false;
  for (int i = m - 1; i >= 0 && !found; --i) {  // outermost first
    if (dwarf_tag(&chain[i]) == DW_TAG_subprogram) {
      *function = chain[i];
      found = true;
    }
  }
  std::free(chain);
  return found;
}

}  // namespace

const char* dwarf_function_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name}) {
    if (dwarf_attr_integrate(die, at, &attr) != nullptr) {
      if (const char* s = dwarf_formstring(&attr)) return s;
    }
  }
  return nullptr;
}

SymbolIndex::SymbolIndex(Dwfl_Module* mod) {
  const int n = dwfl_module_getsymtab(mod);
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &addr, nullptr, nullptr, nullptr);
    if (name == nullptr || name[0] == '\0' || sym.st_shndx == SHN_UNDEF) continue;
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    std::string key = name;
    if (const size_t at = key.find('@'); at != std::string::npos && at > 0) key.resize(at);
    auto [it, added] = by_name_.emplace(std::move(key), addr);
    if (!added && it->second != addr) it->second = 0;  // two functions of that name: ambiguous
  }
}

std::optional<uint64_t> SymbolIndex::address_of(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end() || it->second == 0) return std::nullopt;
  return it->second;
}

std::optional<std::string> called_function(Dwfl_Module* mod, uint64_t return_address) {
  if (return_address == 0) return std::nullopt;
  Dwarf_Die function;
  Dwarf_Addr bias = 0;
  if (!function_at(mod, return_address - 1, &function, &bias)) return std::nullopt;
  return called_function(&function, bias, return_address);
}

std::optional<std::string> called_function(Dwarf_Die* function, Dwarf_Addr bias,
                                           uint64_t return_address) {
  const Dwarf_Addr want = return_address - bias;
  std::optional<std::string> called;
  bool seen = false;
  for_each_call_site(function, [&](Dwarf_Die* site) {
    if (seen) return;
    if (auto pc = return_pc(site); pc && *pc == want) {
      seen = true;
      called = origin_name(site);
    }
  });
  return called;
}

std::vector<std::string> tail_call_targets(Dwfl_Module* mod, uint64_t entry) {
  std::vector<std::string> out;
  Dwarf_Die function;
  Dwarf_Addr bias = 0;
  if (!function_at(mod, entry, &function, &bias)) return out;
  for_each_call_site(&function, [&](Dwarf_Die* site) {
    if (!is_tail_call(site)) return;
    if (auto name = origin_name(site)) out.push_back(std::move(*name));
  });
  return out;
}

namespace {

void find_chains(Dwfl_Module* mod, const SymbolIndex& symbols, uint64_t from, uint64_t to,
                 int depth, std::vector<std::string>* path,
                 std::vector<std::vector<std::string>>* chains) {
  if (depth <= 0 || chains->size() > 1) return;
  for (const std::string& next : tail_call_targets(mod, from)) {
    auto addr = symbols.address_of(next);
    if (!addr) continue;
    if (*addr == to) {
      // The same route through two jump sites of one function is still one route.
      if (std::find(chains->begin(), chains->end(), *path) == chains->end())
        chains->push_back(*path);
      continue;
    }
    path->push_back(next);
    find_chains(mod, symbols, *addr, to, depth - 1, path, chains);
    path->pop_back();
  }
}

}  // namespace

std::vector<std::string> tail_call_chain(Dwfl_Module* mod, const SymbolIndex& symbols,
                                         const std::string& called, uint64_t callee_entry,
                                         int max_depth) {
  auto addr = symbols.address_of(called);
  if (!addr || *addr == callee_entry) return {};
  std::vector<std::string> path{called};
  std::vector<std::vector<std::string>> chains;
  find_chains(mod, symbols, *addr, callee_entry, max_depth, &path, &chains);
  // Two routes that both end at the callee (or one function reached twice): nothing is sure.
  if (chains.size() != 1) return {};
  return chains.front();
}

}  // namespace hearth::stacks
