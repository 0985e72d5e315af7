#include "collectors/alloc/jvm_flags.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "collectors/stacks/unwinder.h"
#include "common/unique_fd.h"

namespace hearth::alloc {
namespace {

struct JvmElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

// The st_value of the defined data object NAME in ELF's tables (.symtab, then .dynsym).
std::optional<uint64_t> data_symbol(Elf* elf, const char* name) {
  for (const uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != type || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (data == nullptr) continue;
      const size_t n = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < n; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
        if (sym.st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_OBJECT) continue;
        const char* s = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (s != nullptr && std::strcmp(s, name) == 0) return sym.st_value;
      }
    }
  }
  return std::nullopt;
}

// The lowest PT_LOAD's page-aligned p_vaddr (0 for a shared object as linked).
std::optional<uint64_t> first_load_vaddr(Elf* elf) {
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return std::nullopt;
  std::optional<uint64_t> low;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
    if (ph.p_offset == 0 && (!low || ph.p_vaddr < *low)) low = ph.p_vaddr & ~uint64_t{0xfff};
  }
  return low;
}

}  // namespace

std::optional<bool> jvm_alloc_probes_on(pid_t pid, const std::vector<proc::Mapping>& maps,
                                        const proc::Mapping& libjvm) {
  elf_version(EV_CURRENT);
  auto fd = stacks::open_mapped_file(pid, libjvm);
  if (!fd) return std::nullopt;
  std::unique_ptr<Elf, JvmElfCloser> elf(elf_begin(fd->get(), ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return std::nullopt;
  const std::optional<uint64_t> flag = data_symbol(elf.get(), "DTraceAllocProbes");
  const std::optional<uint64_t> low = first_load_vaddr(elf.get());
  if (!flag || !low) return std::nullopt;
  // Where the file's first page is mapped: the load bias, from the mapping of offset 0.
  std::optional<uint64_t> base;
  for (const proc::Mapping& m : maps) {
    if (m.path == libjvm.path && m.inode == libjvm.inode && m.dev == libjvm.dev && m.offset == 0)
      base = m.start;
  }
  if (!base) return std::nullopt;
  const uint64_t addr = *base - *low + *flag;
  UniqueFd mem(open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC));
  if (mem.get() < 0) return std::nullopt;
  unsigned char b = 0;
  if (pread(mem.get(), &b, 1, static_cast<off_t>(addr)) != 1 || b > 1) return std::nullopt;
  return b == 1;
}

}  // namespace hearth::alloc
