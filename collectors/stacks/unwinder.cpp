#include "collectors/stacks/unwinder.h"

#include <fcntl.h>
#include <gelf.h>
#include <libunwind.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

// libunwind's DWARF table search, exported by libunwind-x86_64 but not declared in its public
// headers (libunwind-ptrace declares it for itself the same way). Looks ip up in di's binary
// search table through the address space's access_mem; fills pi.
extern "C" int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
                                                  unw_dyn_info_t* di, unw_proc_info_t* pi,
                                                  int need_unwind_info, void* arg);

namespace hearth::stacks {
namespace {

struct LoadSegment {
  uint64_t offset, vaddr, filesz;
};

// What one ELF object offers the unwinder, in link-time addresses (add the load bias).
struct ElfUnwindInfo {
  std::vector<LoadSegment> loads;
  bool has_table = false;  // .eh_frame_hdr with a binary search table libunwind can read
  uint64_t hdr_vaddr = 0;  // .eh_frame_hdr
  uint64_t hdr_size = 0;
  uint64_t table_vaddr = 0;  // its search table: fde_count pairs of int32 (datarel)
  uint64_t fde_count = 0;
  uint64_t eh_frame_vaddr = 0, eh_frame_size = 0;  // for prefetching; 0 if unknown
  uint64_t gp_vaddr = 0;  // DT_PLTGOT: base of DW_EH_PE_datarel in FDEs, 0 if none
};

struct Module {
  proc::Mapping mapping;  // the executable mapping; modules are sorted by mapping.start
  bool has_info = false;
  unw_dyn_info_t di{};  // UNW_INFO_FORMAT_REMOTE_TABLE over the target's .eh_frame_hdr
};

// Per-unwind() context: libunwind hands it back to every accessor as `arg`.
struct Context {
  RemoteMemory* memory;
  const std::vector<Module>* modules;
  const user_regs_struct* regs;
  const StackView* stack;
  UnwinderStats* stats;
  bool no_info = false;  // find_proc_info found nothing during the current step
  uint64_t no_info_ip = 0;
};

std::optional<uint64_t> bias_from(const std::vector<LoadSegment>& loads, const proc::Mapping& m) {
  for (const LoadSegment& s : loads) {
    if ((s.offset & ~(kPageSize - 1)) <= m.offset && m.offset < s.offset + s.filesz) {
      return m.start - m.offset + s.offset - s.vaddr;
    }
  }
  return std::nullopt;
}

// Reads one DW_EH_PE-encoded value at p (link-time address `at`); datarel is relative to
// `data_base`. Advances p. nullopt for encodings .eh_frame_hdr does not use in practice.
std::optional<uint64_t> read_encoded(const uint8_t*& p, const uint8_t* end, uint8_t enc,
                                     uint64_t at, uint64_t data_base) {
  if (enc == 0xff) return std::nullopt;  // DW_EH_PE_omit
  int64_t v = 0;
  size_t size = 0;
  auto load = [&](auto t) {
    size = sizeof t;
    if (static_cast<size_t>(end - p) < size) return false;
    std::memcpy(&t, p, size);
    v = static_cast<int64_t>(t);
    return true;
  };
  bool ok = false;
  switch (enc & 0x0f) {
    case 0x00:
      ok = load(uint64_t{});
      break;  // absptr
    case 0x02:
      ok = load(uint16_t{});
      break;  // udata2
    case 0x03:
      ok = load(uint32_t{});
      break;  // udata4
    case 0x04:
      ok = load(uint64_t{});
      break;  // udata8
    case 0x0a:
      ok = load(int16_t{});
      break;  // sdata2
    case 0x0b:
      ok = load(int32_t{});
      break;  // sdata4
    case 0x0c:
      ok = load(int64_t{});
      break;  // sdata8
    default:
      return std::nullopt;
  }
  if (!ok) return std::nullopt;
  p += size;
  switch (enc & 0x70) {
    case 0x00:
      return static_cast<uint64_t>(v);
    case 0x10:
      return at + static_cast<uint64_t>(v);  // pcrel
    case 0x30:
      return data_base + static_cast<uint64_t>(v);  // datarel
    default:
      return std::nullopt;
  }
}

// Reads the program headers, .eh_frame_hdr, .eh_frame's extent and DT_PLTGOT of an open ELF.
std::optional<ElfUnwindInfo> read_unwind_info(Elf* elf) {
  size_t phnum = 0;
  if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum) != 0) return std::nullopt;
  ElfUnwindInfo info;
  GElf_Phdr eh{}, dyn{};
  bool has_eh = false, has_dyn = false;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr) continue;
    if (ph.p_type == PT_LOAD) info.loads.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
    if (ph.p_type == PT_GNU_EH_FRAME) eh = ph, has_eh = true;
    if (ph.p_type == PT_DYNAMIC) dyn = ph, has_dyn = true;
  }
  if (has_dyn) {
    if (Elf_Data* d = elf_getdata_rawchunk(elf, dyn.p_offset, dyn.p_filesz, ELF_T_DYN)) {
      GElf_Dyn entry;
      for (int i = 0; gelf_getdyn(d, i, &entry) != nullptr && entry.d_tag != DT_NULL; ++i) {
        if (entry.d_tag == DT_PLTGOT) info.gp_vaddr = entry.d_un.d_ptr;
      }
    }
  }
  if (has_eh && eh.p_filesz >= 4) {
    Elf_Data* d = elf_getdata_rawchunk(elf, eh.p_offset, eh.p_filesz, ELF_T_BYTE);
    if (d != nullptr && d->d_size >= 4) {
      const auto* base = static_cast<const uint8_t*>(d->d_buf);
      const uint8_t* p = base + 4;
      const uint8_t* end = base + d->d_size;
      // version 1; eh_frame_ptr, fde_count and table encodings; then the two values.
      const uint8_t version = base[0], ptr_enc = base[1], count_enc = base[2], table_enc = base[3];
      auto eh_frame = read_encoded(p, end, ptr_enc, eh.p_vaddr + 4, eh.p_vaddr);
      auto count = read_encoded(p, end, count_enc, eh.p_vaddr + (p - base), eh.p_vaddr);
      // libunwind's remote search reads the table as (int32, int32) datarel pairs.
      if (version == 1 && count && table_enc == 0x3b &&
          static_cast<uint64_t>(end - p) >= *count * 8) {
        info.has_table = true;
        info.hdr_vaddr = eh.p_vaddr;
        info.hdr_size = eh.p_filesz;
        info.table_vaddr = eh.p_vaddr + static_cast<uint64_t>(p - base);
        info.fde_count = *count;
        if (eh_frame) info.eh_frame_vaddr = *eh_frame;
      }
    }
  }
  // The extent of .eh_frame, for prefetching only (stripped files may lack section headers).
  size_t shstrndx = 0;
  if (info.has_table && elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr) continue;
      const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (name != nullptr && std::strcmp(name, ".eh_frame") == 0) {
        info.eh_frame_vaddr = sh.sh_addr;
        info.eh_frame_size = sh.sh_size;
      }
    }
  }
  return info;
}

std::string file_key(const proc::Mapping& m) {
  return m.dev + ":" + std::to_string(m.inode) + ":" + m.path + (m.deleted ? ":deleted" : "");
}

bool same_module_mapping(const proc::Mapping& a, const proc::Mapping& b) {
  return a.start == b.start && a.end == b.end && a.offset == b.offset && a.inode == b.inode &&
         a.dev == b.dev && a.path == b.path && a.deleted == b.deleted && a.exec == b.exec;
}

const Module* find_module(const std::vector<Module>& modules, uint64_t ip) {
  auto it = std::upper_bound(modules.begin(), modules.end(), ip,
                             [](uint64_t a, const Module& m) { return a < m.mapping.start; });
  if (it == modules.begin()) return nullptr;
  --it;
  return ip < it->mapping.end ? &*it : nullptr;
}

// --- libunwind accessors. `arg` is the Context of the unwind() in progress. ---

int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi, int need_unwind_info,
                   void* arg) {
  auto* ctx = static_cast<Context*>(arg);
  ++ctx->stats->find_proc_info;
  const Module* m = find_module(*ctx->modules, ip);
  int ret = -UNW_ENOINFO;
  if (m != nullptr && m->has_info) {
    // libunwind does not write through di; the const_cast only matches its C signature.
    ret = _Ux86_64_dwarf_search_unwind_table(as, ip, const_cast<unw_dyn_info_t*>(&m->di), pi,
                                             need_unwind_info, arg);
  }
  if (ret == -UNW_ENOINFO) {
    ++ctx->stats->no_info;
    ctx->no_info = true;
    ctx->no_info_ip = ip;
  }
  return ret;
}

// DWARF unwind_info comes from libunwind's own pool and libunwind frees it itself; this is only
// called for dynamic (JIT-registered) info, which we never hand out.
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

// The JIT registration list (_U_dyn_info_list) of a remote process: not supported.
int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) {
  return -UNW_ENOINFO;
}

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EINVAL;  // we never modify the target
  auto* ctx = static_cast<Context*>(arg);
  return ctx->memory->read(addr, val, sizeof *val, ctx->stack) ? 0 : -UNW_EINVAL;
}

// libunwind's x86-64 register numbers (UNW_X86_64_RAX = 0 … UNW_X86_64_RIP = 16, the DWARF
// order) → the fields PTRACE_GETREGS filled.
constexpr unsigned long long user_regs_struct::*kRegisters[] = {
    &user_regs_struct::rax, &user_regs_struct::rdx, &user_regs_struct::rcx, &user_regs_struct::rbx,
    &user_regs_struct::rsi, &user_regs_struct::rdi, &user_regs_struct::rbp, &user_regs_struct::rsp,
    &user_regs_struct::r8,  &user_regs_struct::r9,  &user_regs_struct::r10, &user_regs_struct::r11,
    &user_regs_struct::r12, &user_regs_struct::r13, &user_regs_struct::r14, &user_regs_struct::r15,
    &user_regs_struct::rip};
static_assert(UNW_X86_64_RBP == 6 && UNW_X86_64_RSP == 7 && UNW_X86_64_RIP == 16);

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EREADONLYREG;
  if (reg < 0 || reg > UNW_X86_64_RIP) return -UNW_EBADREG;
  *val = static_cast<Context*>(arg)->regs->*kRegisters[reg];
  return 0;
}

// Unwinding never needs floating-point registers on x86-64 (no CFI saves them).
int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) {
  return -UNW_EBADREG;
}

// Only for unw_resume, which we never call: we never change the target's registers.
int resume(unw_addr_space_t, unw_cursor_t*, void*) {
  return -UNW_EINVAL;
}

// Names come from the Symbolizer, after unwinding.
int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) {
  return -UNW_ENOINFO;
}

unw_accessors_t g_accessors = {find_proc_info, put_unwind_info, get_dyn_info_list_addr,
                               access_mem,     access_reg,      access_fpreg,
                               resume,         get_proc_name};

}  // namespace

// What every Unwinder of this hearth process has parsed, by file_key: a process set's members
// map the same files (200 forks of one program: each parsed libc's and libstdc++'s headers and
// read their whole unwind tables out of its own memory, 1.4 ms a process). The tables' bytes
// are still read from each target (through its RemoteMemory): only the parse is shared, and
// the prefetch of a file's tables is made by the first Unwinder that maps it (the others read
// the few pages their unwinds touch). Locked: Unwinders of different threads may share it.
struct SharedUnwindFiles {
  std::mutex mutex;
  std::map<std::string, std::optional<ElfUnwindInfo>> parsed;  // file_key → tables, or none
  std::set<std::string> prefetched;                            // file_keys prefetched once
};

SharedUnwindFiles& shared_unwind_files() {
  static SharedUnwindFiles files;
  return files;
}

struct Unwinder::Impl {
  RemoteMemory* memory = nullptr;
  unw_addr_space_t as = nullptr;
  std::vector<Module> modules;                                // sorted by mapping.start
  std::map<std::string, std::optional<ElfUnwindInfo>> files;  // file_key → parsed tables
  UnwinderStats stats;

  ~Impl() {
    if (as != nullptr) unw_destroy_addr_space(as);
  }
  std::optional<ElfUnwindInfo> load(const proc::Mapping& m);
};

// Parses the ELF behind m (once per file; the vDSO is read from the target's memory).
std::optional<ElfUnwindInfo> Unwinder::Impl::load(const proc::Mapping& m) {
  if (m.path == "[vdso]") {
    std::vector<char> image(m.end - m.start);
    if (!memory->read(m.start, image.data(), image.size(), nullptr)) return std::nullopt;
    Elf* elf = elf_memory(image.data(), image.size());
    if (elf == nullptr) return std::nullopt;
    auto info = read_unwind_info(elf);
    elf_end(elf);
    return info;
  }
  const std::string key = file_key(m);
  if (auto it = files.find(key); it != files.end()) return it->second;
  SharedUnwindFiles& shared = shared_unwind_files();
  {
    std::lock_guard lock(shared.mutex);
    if (auto it = shared.parsed.find(key); it != shared.parsed.end()) {
      files.emplace(key, it->second);
      return it->second;
    }
  }
  std::optional<ElfUnwindInfo> info;
  if (auto fd = open_mapped_file(memory->pid(), m)) {
    if (Elf* elf = elf_begin(fd->get(), ELF_C_READ_MMAP, nullptr)) {
      info = read_unwind_info(elf);
      elf_end(elf);
    }
    // A file that could not be opened is not remembered for the others: their own
    // map_files may open it.
    std::lock_guard lock(shared.mutex);
    shared.parsed.emplace(key, info);
  }
  files.emplace(key, info);
  return info;
}

Unwinder::Unwinder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Unwinder::Unwinder(Unwinder&&) noexcept = default;
Unwinder& Unwinder::operator=(Unwinder&&) noexcept = default;
Unwinder::~Unwinder() = default;

Result<Unwinder> Unwinder::create(RemoteMemory* memory) {
  elf_version(EV_CURRENT);
  auto state = std::make_unique<Impl>();
  state->memory = memory;
  state->as = unw_create_addr_space(&g_accessors, 0);
  if (state->as == nullptr) return fail("cannot create a libunwind address space");
  // Caches register states by IP so repeated IPs skip the table search and CFI parsing (read
  // from the target through the accessors: syscalls). Debian's libunwind is built without
  // thread-local storage, so UNW_CACHE_PER_THREAD falls back to the global cache, whose lock
  // costs two sigprocmask calls per step (~10% of a 10,000-thread round's CPU); no cache at all
  // costs more (that round: 0.74-0.80 s of user CPU against 0.31-0.33 s, the machine shared).
  unw_set_caching_policy(state->as, UNW_CACHE_GLOBAL);
  return Unwinder(std::move(state));
}

Result<void> Unwinder::prepare(const std::vector<proc::Mapping>& maps) {
  Impl& s = *impl_;
  s.memory->set_maps(maps);
  std::vector<Module> next;
  for (const proc::Mapping& m : s.memory->maps()) {
    if (!m.exec || m.path.empty() || (m.path[0] != '/' && m.path != "[vdso]")) continue;
    if (const Module* old = find_module(s.modules, m.start);
        old != nullptr && same_module_mapping(old->mapping, m)) {
      next.push_back(*old);  // unchanged: keep its table
      continue;
    }
    Module mod;
    mod.mapping = m;
    const std::optional<ElfUnwindInfo> info = s.load(m);
    const std::optional<uint64_t> bias = info ? bias_from(info->loads, m) : std::nullopt;
    if (info && info->has_table && bias) {
      mod.has_info = true;
      mod.di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
      mod.di.start_ip = m.start;
      mod.di.end_ip = m.end;
      mod.di.gp = info->gp_vaddr != 0 ? *bias + info->gp_vaddr : 0;
      mod.di.u.rti.segbase = *bias + info->hdr_vaddr;       // datarel base of the table
      mod.di.u.rti.table_data = *bias + info->table_vaddr;  // target address of the table
      mod.di.u.rti.table_len = info->fde_count * 8 / sizeof(unw_word_t);  // in words
      // Warm the page cache now, while the target runs: the first unwind reads no tables. Once
      // per file in this hearth process (see SharedUnwindFiles): the first target that maps it.
      bool first = m.path == "[vdso]";
      if (!first) {
        SharedUnwindFiles& shared = shared_unwind_files();
        std::lock_guard lock(shared.mutex);
        first = shared.prefetched.insert(file_key(m)).second;
      }
      if (first) {
        s.memory->prefetch(*bias + info->hdr_vaddr, info->hdr_size);
        s.memory->prefetch(*bias + info->eh_frame_vaddr, info->eh_frame_size);
      }
    }
    next.push_back(std::move(mod));
  }
  const bool changed =
      next.size() != s.modules.size() || !std::equal(next.begin(), next.end(), s.modules.begin(),
                                                     [](const Module& a, const Module& b) {
                                                       return same_module_mapping(a.mapping, b.mapping);
                                                     });
  s.modules = std::move(next);
  // Cached register states are keyed by IP only: new code at an old address must not hit them.
  if (changed) unw_flush_cache(s.as, 0, 0);
  s.stats.modules = s.modules.size();
  s.stats.modules_without_info = static_cast<uint64_t>(std::count_if(
      s.modules.begin(), s.modules.end(), [](const Module& m) { return !m.has_info; }));
  return {};
}

std::vector<uint64_t> Unwinder::unwind(const user_regs_struct& regs, const StackCopy& stack,
                                       size_t max_frames, UnwindStatus* status) {
  UnwindStatus local;
  std::vector<uint64_t> ips;
  unwind(regs, stack.view(), max_frames, status != nullptr ? status : &local, &ips);
  return ips;
}

void Unwinder::unwind(const user_regs_struct& regs, const StackView& stack, size_t max_frames,
                      UnwindStatus* status, std::vector<uint64_t>* out) {
  Impl& s = *impl_;
  UnwindStatus& st = *status;
  st.stop = UnwindStop::kEndOfStack;
  st.ip = 0;
  st.unw_error = 0;
  st.exact_ips.clear();
  std::vector<uint64_t>& ips = *out;
  ips.clear();
  if (max_frames == 0) {
    st.stop = UnwindStop::kMaxFrames;
    return;
  }
  ips.push_back(regs.rip);
  st.ip = regs.rip;

  Context ctx{s.memory, &s.modules, &regs, &stack, &s.stats};
  unw_cursor_t cursor;
  if (int r = unw_init_remote(&cursor, s.as, &ctx); r < 0) {
    st.stop = UnwindStop::kBadFrame;
    st.unw_error = r;
    return;
  }
  uint64_t prev_sp = regs.rsp;
  while (true) {
    if (ips.size() >= max_frames) {
      st.stop = UnwindStop::kMaxFrames;
      break;
    }
    ctx.no_info = false;
    const uint64_t overruns = s.memory->stats().stack_overrun;
    const int r = unw_step(&cursor);
    // A lookup of ip or (for return addresses) ip - 1 that found nothing.
    const bool no_info_here =
        ctx.no_info && (ctx.no_info_ip == st.ip || ctx.no_info_ip + 1 == st.ip);
    if (r <= 0) {
      if (s.memory->stats().stack_overrun != overruns) {
        st.stop = UnwindStop::kOutsideCopy;
      } else if (no_info_here) {
        st.stop = UnwindStop::kNoUnwindInfo;
      } else {
        st.stop = r == 0 ? UnwindStop::kEndOfStack : UnwindStop::kBadFrame;
      }
      st.unw_error = r;
      break;
    }
    unw_word_t ip = 0, sp = 0;
    unw_get_reg(&cursor, UNW_REG_IP, &ip);
    unw_get_reg(&cursor, UNW_REG_SP, &sp);
    if (ip == 0) {
      st.stop = UnwindStop::kEndOfStack;
      break;
    }
    if (ip == st.ip && sp == prev_sp) {  // no progress: garbage CFI or a corrupt stack
      st.stop = UnwindStop::kBadFrame;
      break;
    }
    // After a step, the signal-frame flag describes the frame just left: a signal trampoline.
    // Its IP and that of the interrupted frame above it are exact, not return addresses.
    if (unw_is_signal_frame(&cursor) > 0) {
      const auto trampoline = static_cast<uint32_t>(ips.size() - 1);
      if (trampoline != 0 && (st.exact_ips.empty() || st.exact_ips.back() != trampoline)) {
        st.exact_ips.push_back(trampoline);
      }
      st.exact_ips.push_back(static_cast<uint32_t>(ips.size()));
    }
    ips.push_back(ip);
    st.ip = ip;
    prev_sp = sp;
  }
}

const UnwinderStats& Unwinder::stats() const {
  return impl_->stats;
}

bool is_return_address(const UnwindStatus& status, size_t index) {
  if (index == 0) return false;
  return !std::binary_search(status.exact_ips.begin(), status.exact_ips.end(),
                             static_cast<uint32_t>(index));
}

const char* to_string(UnwindStop stop) {
  switch (stop) {
    case UnwindStop::kEndOfStack:
      return "end of stack";
    case UnwindStop::kMaxFrames:
      return "max frames";
    case UnwindStop::kOutsideCopy:
      return "stack memory outside the copy";
    case UnwindStop::kNoUnwindInfo:
      return "no unwind info";
    case UnwindStop::kBadFrame:
      return "bad frame";
  }
  return "?";
}

std::optional<uint64_t> elf_load_bias(Elf* elf, const proc::Mapping& m) {
  size_t phnum = 0;
  if (elf == nullptr || elf_getphdrnum(elf, &phnum) != 0) return std::nullopt;
  std::vector<LoadSegment> loads;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_LOAD) {
      loads.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
    }
  }
  return bias_from(loads, m);
}

Result<UniqueFd> open_mapped_file(pid_t pid, const proc::Mapping& m) {
  char map_files[96];
  std::snprintf(map_files, sizeof map_files, "/proc/%d/map_files/%llx-%llx", pid,
                static_cast<unsigned long long>(m.start), static_cast<unsigned long long>(m.end));
  const std::string candidates[] = {map_files, "/proc/" + std::to_string(pid) + "/root" + m.path,
                                    m.path};
  int err = ENOENT;
  for (const std::string& path : candidates) {
    // A replaced file under the same path is not the mapped one: only map_files can be trusted
    // for a deleted mapping.
    if (m.deleted && &path != &candidates[0]) break;
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd) return fd;
    err = errno;
  }
  return fail_errno("cannot open " + m.path + " mapped by " + std::to_string(pid), err);
}

}  // namespace hearth::stacks
