// Which allocator a process calls, and where its entry points are: the ELF object among its
// mappings that defines malloc (an interposed one — jemalloc, tcmalloc, the executable's own —
// before glibc's), and the file offsets of its entry points (malloc, calloc, realloc, the
// aligned family, free), which is what a uprobe is placed at. Symbols come from .dynsym, else
// .symtab, read with libelf.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "collectors/proc/maps.h"
#include "common/result.h"

typedef struct Elf Elf;  // libelf's

namespace hearth::alloc {

// The st_value of the defined symbol NAME in ELF's symbol table of type TABLE (SHT_DYNSYM or
// SHT_SYMTAB) whose symbol type is one of TYPES (STT_FUNC, STT_GNU_IFUNC, STT_OBJECT, ...).
std::optional<uint64_t> defined_symbol(Elf* elf, uint32_t table, const char* name,
                                       std::initializer_list<int> types);

struct AllocatorEntry {
  int kind = 0;         // hearth_alloc_kind (alloc_abi.h)
  std::string name;     // "malloc"; "memalign (= aligned_alloc)" for two names of one function
  uint64_t offset = 0;  // file offset of its first instruction (free: maybe past a null check)
};

struct Allocator {
  std::string path;         // the object's path, as /proc/PID/maps shows it
  std::string attach_path;  // a path to that same file from here (/proc/PID/map_files/…)
  std::vector<AllocatorEntry> entries;  // malloc first; the others that are defined
  bool glibc = false;  // glibc's libc: its aligned family relays small alignments to malloc
};

// Finds the allocator of process PID among MAPS. Fails with one line when no mapped object
// defines malloc ("a static binary without symbols?").
Result<Allocator> find_allocator(pid_t pid, const std::vector<proc::Mapping>& maps);

}  // namespace hearth::alloc
