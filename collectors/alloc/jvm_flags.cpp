#include "collectors/alloc/jvm_flags.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "collectors/alloc/allocator_symbols.h"
#include "collectors/stacks/unwinder.h"
#include "common/unique_fd.h"

namespace hearth::alloc {
namespace {

struct JvmElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

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
  std::optional<uint64_t> flag =
      defined_symbol(elf.get(), SHT_SYMTAB, "DTraceAllocProbes", {STT_OBJECT});
  if (!flag) flag = defined_symbol(elf.get(), SHT_DYNSYM, "DTraceAllocProbes", {STT_OBJECT});
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
