#include "collectors/stacks/dwarf_sections.h"

#include <gelf.h>

#include <cstring>
#include <string_view>

namespace hearth::stacks {
namespace {

// Sections libdw recognizes (and so inflates) that no symbolizer lookup reads: the line table
// (source lines are not shown), location lists (variables are not read), macros.
bool unread(std::string_view name) {
  if (name.starts_with(".zdebug_"))
    name.remove_prefix(2);  // GNU's older compressed form
  else if (name.starts_with(".debug_"))
    name.remove_prefix(1);
  else
    return false;
  return name == "debug_line" || name == "debug_loclists" || name == "debug_loc" ||
         name == "debug_macro" || name == "debug_macinfo";
}

}  // namespace

int leave_out_unread_debug_sections(Dwfl_Module* mod) {
  if (mod == nullptr) return 0;
  // The file holding the symbol table: the separate debug file when the symbols come from it,
  // which is where its DWARF is too (libdwfl takes both from the file it found by build-id).
  if (dwfl_module_getsymtab(mod) < 2) return 0;
  GElf_Sym sym;
  GElf_Addr addr = 0;
  GElf_Word shndx = 0;
  Elf* elf = nullptr;
  Dwarf_Addr bias = 0;
  if (dwfl_module_getsym_info(mod, 1, &sym, &addr, &shndx, &elf, &bias) == nullptr ||
      elf == nullptr)
    return 0;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;
  int marked = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (name == nullptr || !unread(name)) continue;
    shdr.sh_type = SHT_NOBITS;
    if (gelf_update_shdr(scn, &shdr) != 0) ++marked;
  }
  return marked;
}

}  // namespace hearth::stacks
