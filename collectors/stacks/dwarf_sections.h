// The DWARF sections the symbolizer reads, and libdw's cost for the others.
//
// libdw inflates every compressed debug section of a file when it first opens the file's DWARF
// (dwarf_begin_elf), whether or not anything reads it later. Names, inlined functions and call
// sites need .debug_info and what it refers to (abbreviations, strings, ranges, addresses,
// .debug_aranges); never the line table or the location lists, which are 30% of libc6-dbg's
// compressed DWARF (1.1 of 3.7 MB): a cold one-shot inflated them for nothing.
#pragma once

#include <elfutils/libdwfl.h>

namespace hearth::stacks {

// Call before libdw first reads MOD's DWARF (dwfl_module_addrdie, dwfl_module_getdwarf): marks
// the debug sections no symbolizer reads (.debug_line, .debug_loclists, .debug_loc, the macro
// sections) empty (SHT_NOBITS, which dwarf_begin_elf skips) in libdwfl's in-memory section
// headers of the file holding MOD's symbol table, its separate debug file when it has one.
// Nothing is written to the file. Returns how many sections it marked (0 too when its symbols
// and its DWARF are in different files: then nothing is saved). Too late once the DWARF is open:
// the caller calls it once per module, first.
int leave_out_unread_debug_sections(Dwfl_Module* mod);

}  // namespace hearth::stacks
