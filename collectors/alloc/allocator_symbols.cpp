#include "collectors/alloc/allocator_symbols.h"

#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "collectors/alloc/alloc_abi.h"
#include "collectors/stacks/unwinder.h"

namespace hearth::alloc {
namespace {

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};
using ElfPtr = std::unique_ptr<Elf, ElfCloser>;

constexpr struct {
  int kind;
  const char* name;
} kEntryNames[] = {
    {HEARTH_ALLOC_MALLOC, "malloc"},     {HEARTH_ALLOC_CALLOC, "calloc"},
    {HEARTH_ALLOC_REALLOC, "realloc"},   {HEARTH_ALLOC_POSIX_MEMALIGN, "posix_memalign"},
    {HEARTH_ALLOC_MEMALIGN, "memalign"}, {HEARTH_ALLOC_ALIGNED_ALLOC, "aligned_alloc"},
    {HEARTH_ALLOC_VALLOC, "valloc"},     {HEARTH_ALLOC_PVALLOC, "pvalloc"},
    {HEARTH_ALLOC_FREE, "free"}};

bool offset_in(Elf* elf, uint64_t vaddr, uint64_t* offset) {
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return false;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
    if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      *offset = vaddr - ph.p_vaddr + ph.p_offset;
      return true;
    }
  }
  return false;
}

// Where free's uprobe goes, relative to its entry. A uprobe whose instruction the kernel cannot
// emulate (x86-64 emulates push, jmp, call, nop) executes it out of line under a single-step
// trap: a second exception, dear on a VM (glibc 2.36's free, which starts with `test %rdi,%rdi;
// je`, cost ~30 us a call so, against ~0.5 us for malloc's `push`). When free starts with that
// null check, the probe goes just past it, where the pointer is still in rdi and not null (a
// null free is nothing to the live view anyway) and the next instruction is usually a push.
// 0 when the bytes are anything else.
uint64_t past_null_check(int fd, uint64_t offset) {
  unsigned char b[9] = {};
  if (pread(fd, b, sizeof b, static_cast<off_t>(offset)) != static_cast<ssize_t>(sizeof b))
    return 0;
  const bool test_rdi = b[0] == 0x48 && b[1] == 0x85 && b[2] == 0xff;  // test %rdi,%rdi
  if (!test_rdi) return 0;
  if (b[3] == 0x74) return 5;                  // je rel8
  if (b[3] == 0x0f && b[4] == 0x84) return 9;  // je rel32
  return 0;
}

// The allocator entries OBJECT (an open ELF file) defines; empty when it defines no malloc.
std::vector<AllocatorEntry> entries_of(int fd) {
  ElfPtr elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return {};
  std::vector<AllocatorEntry> out;
  for (const auto& e : kEntryNames) {
    std::optional<uint64_t> v = defined_symbol(elf.get(), SHT_DYNSYM, e.name, {STT_FUNC, STT_GNU_IFUNC});
    if (!v) v = defined_symbol(elf.get(), SHT_SYMTAB, e.name, {STT_FUNC, STT_GNU_IFUNC});
    uint64_t offset = 0;
    if (!v || !offset_in(elf.get(), *v, &offset)) {
      if (e.kind == HEARTH_ALLOC_MALLOC) return {};
      continue;
    }
    // Two names of one function (glibc's aligned_alloc is its memalign): one probe, or each
    // call would count twice. Only aliases of one signature are merged: a different one (a
    // malloc that is also its valloc?) would read the wrong argument, so it is left out.
    bool alias = false;
    for (AllocatorEntry& o : out) {
      if (o.offset != offset) continue;
      alias = true;
      if ((o.kind == HEARTH_ALLOC_MEMALIGN && e.kind == HEARTH_ALLOC_ALIGNED_ALLOC) ||
          (o.kind == HEARTH_ALLOC_ALIGNED_ALLOC && e.kind == HEARTH_ALLOC_MEMALIGN))
        o.name += std::string(" (= ") + e.name + ")";
    }
    if (alias) continue;
    if (e.kind == HEARTH_ALLOC_FREE) offset += past_null_check(fd, offset);
    out.push_back({e.kind, e.name, offset});
  }
  return out;
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_glibc(const std::string& path) {
  const std::string b = basename_of(path);
  return b.starts_with("libc.so") || b.starts_with("libc-");
}

}  // namespace

std::optional<uint64_t> defined_symbol(Elf* elf, uint32_t table, const char* name,
                                       std::initializer_list<int> types) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != table || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    const size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      const int t = GELF_ST_TYPE(sym.st_info);
      if (std::find(types.begin(), types.end(), t) == types.end()) continue;
      const char* s = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (s != nullptr && std::strcmp(s, name) == 0) return sym.st_value;
    }
  }
  return std::nullopt;
}

Result<Allocator> find_allocator(pid_t pid, const std::vector<proc::Mapping>& maps) {
  elf_version(EV_CURRENT);
  std::optional<Allocator> glibc, other;
  std::set<std::string> seen;
  for (const proc::Mapping& m : maps) {
    if (!m.exec || m.path.empty() || m.path.front() == '[' || !seen.insert(m.path).second) continue;
    const std::string base = basename_of(m.path);
    if (base.starts_with("ld-linux") || base.starts_with("ld-")) continue;  // the loader's own
    if (other && !is_glibc(m.path)) continue;
    auto fd = stacks::open_mapped_file(pid, m);
    if (!fd) continue;
    std::vector<AllocatorEntry> entries = entries_of(fd->get());
    if (entries.empty()) continue;
    char range[64];
    std::snprintf(range, sizeof range, "%llx-%llx", static_cast<unsigned long long>(m.start),
                  static_cast<unsigned long long>(m.end));
    Allocator a{.path = m.path,
                .attach_path = "/proc/" + std::to_string(pid) + "/map_files/" + range,
                .entries = std::move(entries),
                .glibc = is_glibc(m.path)};
    if (is_glibc(m.path)) {
      if (!glibc) glibc = std::move(a);
    } else if (!other) {
      other = std::move(a);  // interposed on glibc's: the process calls this one
    }
  }
  if (other) return std::move(*other);
  if (glibc) return std::move(*glibc);
  return fail("no mapped object of process " + std::to_string(pid) +
              " defines malloc (a static binary without symbols?): nothing to probe");
}

}  // namespace hearth::alloc
