#include "collectors/stacks/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "collectors/stacks/call_sites.h"
#include "collectors/stacks/dwarf_sections.h"
#include "collectors/stacks/perf_map.h"
#include "collectors/stacks/symbol_cache.h"
#include "collectors/stacks/unwinder.h"
#include "common/hex.h"
#include "formats/symbol_cache.h"

namespace hearth::stacks {
namespace {

// A sizeless symbol (hand-written assembly) is trusted this far past its start, no further.
constexpr uint64_t kMaxSizelessOffset = 4096;
constexpr int kOffsetBits = 40;  // file offsets below 1 TiB; the module id sits above them

struct Range {  // one executable mapping
  uint64_t start, end, offset;
  uint32_t module;  // index into Impl::modules
};

struct ModuleName {
  std::string key;       // build-id in hex, or dev:inode:path when the file has none
  std::string basename;  // for "[basename+0xOFFSET]"
  // For the on-disk cache (symbol_cache.h): set by set_maps().
  std::string build_id;   // "" when the file has none: never cached on disk
  std::string path;       // as mapped
  std::string debuglink;  // .gnu_debuglink's file name, or ""
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  bool vdso = false;
  bool reported = false;  // given to libdwfl: its names are the file's own, fit to cache
  std::optional<std::string> identity;  // the entry identity, once computed ("" not cacheable)
};

// Names shared by every Symbolizer of this hearth process: a process set's members map the
// same files (30 processes of one program: libc's DWARF was decompressed and read 30 times,
// 11 s of a one-shot's 12 under load). What an address of a file is called depends only on the
// file, its name and the options, so the first Symbolizer to resolve it answers for the others.
// Keys: "OPTIONS\nMODULE KEY\nBASENAME\nCACHE" (OPTIONS: parameters, inlines, tail calls,
// debuginfo path; CACHE: the on-disk cache's directory, and whether the file may be cached
// there), then the file offset (tail calls: the caller's offset, the callee's module and
// offset). Locked: Symbolizers of different threads may share it.
struct FileNames {
  std::unordered_map<uint64_t, std::vector<Frame>> frames;  // by file offset
  std::unordered_set<uint64_t> from_disk;                   // offsets the entry answered
  // By (caller's file offset, callee module's identity hash, callee's file offset).
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, std::vector<Frame>> tails;
  // The on-disk entry (cacheable files only).
  bool disk_tried = false;  // read (or found absent, or refused)
  bool dirty = false;       // names added since: written when a Symbolizer using it ends
};
struct SharedNames {
  std::mutex mutex;
  std::unordered_map<std::string, FileNames> files;
  // Tail calls into a file that cannot be cached: by the 4-tuple of keys and offsets.
  std::map<std::tuple<std::string, uint64_t, std::string, uint64_t>, std::vector<Frame>> tails;
};

SharedNames& shared_names() {
  static SharedNames names;
  return names;
}

// The on-disk entry of a file: its build-id, then a hash of its shared key (options, name).
std::string entry_name(const std::string& build_id, const std::string& shared_key) {
  char hash[20];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(symbol_cache::identity_hash(shared_key)));
  return build_id + "-" + hash + ".sym";
}

std::string basename_of(const std::string& path) {
  if (path == "[vdso]") return "vdso";
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The ending parameter list of a demangled name ("ns::foo(int) const" → "ns::foo"): the last
// balanced "(…)" group; qualifiers after it go too. Names without one are returned whole.
std::string strip_parameters(std::string name) {
  size_t close = name.rfind(')');
  if (close == std::string::npos) return name;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      // "operator()(int)" and "(anonymous namespace)" keep what is not the parameter list.
      if (i == 0) return name;
      name.resize(i);
      return name;
    }
  }
  return name;
}

}  // namespace

std::string clean_symbol_name(const char* name, bool parameters) {
  std::string raw = name;
  // Symbol versions as .symtab spells them: "pthread_cond_wait@@GLIBC_2.3.2".
  if (const size_t at = raw.find('@'); at != std::string::npos && at > 0) raw.resize(at);
  // glibc's internal aliases of its own functions: "__GI___lll_lock_wait" is __lll_lock_wait.
  if (raw.starts_with("__GI_") && raw.size() > 5) raw.erase(0, 5);
  std::string out;
  int status = -1;
  if (raw.starts_with("_Z")) {
    char* demangled = abi::__cxa_demangle(raw.c_str(), nullptr, nullptr, &status);
    if (status == 0 && demangled != nullptr) out = demangled;
    std::free(demangled);
  }
  if (status != 0) {
    out = std::move(raw);
  } else if (!parameters) {
    out = strip_parameters(std::move(out));
  }
  std::replace(out.begin(), out.end(), ';', ':');
  return out;
}

struct Symbolizer::Impl {
  SymbolizerOptions options;
  char* debuginfo_path = nullptr;  // points into options.debuginfo_path, or nullptr
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  std::set<std::pair<uint64_t, std::string>> reported;  // (load bias, key) given to libdwfl
  std::vector<Range> ranges;                            // sorted by start
  std::vector<ModuleName> modules;
  std::unordered_map<std::string, uint32_t> module_ids;    // key → index into modules
  std::unordered_map<uint64_t, std::vector<Frame>> cache;  // id << kOffsetBits | file offset
  std::string options_key;  // SharedNames keys' first line: this Symbolizer's options
  std::vector<Frame> unknown{{"[unknown]", false}};
  // Tail-call frames by (caller's return address, callee's looked-up address): absolute
  // addresses, so both are dropped when the maps change. Symbol tables by module, for them.
  std::map<std::pair<uint64_t, uint64_t>, std::vector<Frame>> tail_cache;
  std::unordered_map<Dwfl_Module*, std::unique_ptr<SymbolIndex>> symbol_indexes;
  // The function DIE holding an address add_inlines() looked up, and its module's DWARF bias
  // (valid while the Dwfl is): cleared with the Dwfl.
  std::unordered_map<uint64_t, std::pair<Dwarf_Die, Dwarf_Addr>> function_dies;
  // Modules whose unread debug sections were left out (dwarf_sections.h), before their DWARF
  // was first opened: cleared with the Dwfl.
  std::unordered_set<Dwfl_Module*> trimmed;
  // JIT code (outside every file mapping): the runtime's perf map, and its names by address
  // (dropped whenever the map is read again).
  pid_t pid = 0;
  std::unique_ptr<PerfMap> perf_map;
  std::unordered_map<uint64_t, std::vector<Frame>> jit_cache;
  uint64_t jit_generation = 0;
  SymbolizerStats stats;
  // The on-disk cache (null: none), and the modules whose shared names this Symbolizer used.
  std::shared_ptr<const SymbolCacheDir> cache_dir;
  std::set<uint32_t> touched;
  SymbolCacheStats cache_stats;  // added to the process's figures at the end

  ~Impl() {
    save_cache();
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
  bool cacheable(const ModuleName& m) const {
    return cache_dir != nullptr && !m.build_id.empty() && m.reported;
  }
  // The on-disk entry's identity of MODULE: what its names were made from.
  const std::string& identity_of(uint32_t module);
  // The shared names of MODULE's file, its on-disk entry read in on first use. Call with
  // shared_names().mutex held.
  FileNames& file_names(uint32_t module);
  // Writes the entries of the files this Symbolizer touched that gained names.
  void save_cache();
  uint32_t module_id(const std::string& key, const std::string& path);
  std::vector<Frame> resolve(uint64_t addr, const Range& range);
  // The symbol table's name of the function at ADDR in MOD (no DWARF read); "" when none covers it.
  std::string symbol_name(Dwfl_Module* mod, uint64_t addr) const;
  // "[basename+0xOFFSET]": ADDR in RANGE's file, unnamed.
  std::string unnamed(uint64_t addr, const Range& range) const;
  // function_name()'s answers, by the same key as cache.
  std::unordered_map<uint64_t, std::string> name_cache;
  // Tail-call frames between a caller's return address and a callee's address (tail_calls()).
  void find_tail_calls(uint64_t caller_ip, uint64_t callee, std::vector<Frame>* out);
  // The module mapped at ADDR, and ADDR's file offset in it.
  std::optional<std::pair<uint32_t, uint64_t>> file_of(uint64_t addr) const;
  // The SharedNames key of MODULE's file under this Symbolizer's options.
  std::string shared_key(uint32_t module) const;
  // The module at ADDR, ready for its DWARF to be read (dwarf_sections.h); null when none.
  Dwfl_Module* dwarf_module(uint64_t addr);
  void add_inlines(Dwfl_Module* mod, uint64_t addr, std::string* function,
                   std::vector<Frame>* inlined);
};

uint32_t Symbolizer::Impl::module_id(const std::string& key, const std::string& path) {
  auto [it, added] = module_ids.emplace(key, static_cast<uint32_t>(modules.size()));
  if (added) modules.push_back({key, basename_of(path)});
  return it->second;
}

Symbolizer::Symbolizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Symbolizer::Symbolizer(Symbolizer&&) noexcept = default;
Symbolizer& Symbolizer::operator=(Symbolizer&&) noexcept = default;
Symbolizer::~Symbolizer() = default;

Result<Symbolizer> Symbolizer::create(SymbolizerOptions options) {
  elf_version(EV_CURRENT);
  auto state = std::make_unique<Impl>();
  state->options = std::move(options);
  if (!state->options.debuginfo_path.empty()) {
    state->debuginfo_path = state->options.debuginfo_path.data();
  }
  state->callbacks.find_elf = dwfl_build_id_find_elf;  // unused: we hand libdwfl open files
  state->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  state->callbacks.section_address = dwfl_offline_section_address;
  state->callbacks.debuginfo_path = &state->debuginfo_path;
  const SymbolizerOptions& o = state->options;
  state->options_key = std::string(o.parameters ? "p" : "-") + (o.inlines ? "i" : "-") +
                       (o.tail_calls ? "t" : "-") + o.debuginfo_path;
  state->cache_dir = SymbolCacheDir::open(o.cache_dir);
  return Symbolizer(std::move(state));
}

Result<void> Symbolizer::set_maps(pid_t pid, const std::vector<proc::Mapping>& maps,
                                  RemoteMemory* memory) {
  Impl& s = *impl_;
  if (!s.perf_map || s.pid != pid) {
    s.pid = pid;
    s.perf_map = std::make_unique<PerfMap>(PerfMap::path_for(pid));
    s.jit_cache.clear();
  }
  struct Pending {  // a module to report, with its file already open
    UniqueFd fd;
    std::string path;
    uint64_t bias;
  };
  std::vector<Range> ranges;
  std::vector<std::pair<std::pair<uint64_t, std::string>, Pending>> modules;
  std::set<std::pair<uint64_t, std::string>> current;
  for (const proc::Mapping& m : maps) {
    const bool vdso = m.path == "[vdso]";
    if (!m.exec || m.path.empty() || (m.path[0] != '/' && !vdso)) continue;
    UniqueFd fd;
    std::vector<char> image;
    Elf* elf = nullptr;
    if (vdso) {
      image.resize(m.end - m.start);
      if (memory != nullptr && memory->read(m.start, image.data(), image.size(), nullptr)) {
        elf = elf_memory(image.data(), image.size());
      }
    } else if (auto opened = open_mapped_file(pid, m)) {
      fd = std::move(*opened);
      elf = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
    }
    std::string key = m.dev + ":" + std::to_string(m.inode) + ":" + m.path;
    const void* id_bits = nullptr;
    const ssize_t id_len = elf != nullptr ? dwelf_elf_gnu_build_id(elf, &id_bits) : -1;
    if (id_len > 0) {
      key.clear();
      for (ssize_t i = 0; i < id_len; ++i) {
        char two[3];
        std::snprintf(two, sizeof two, "%02x", static_cast<const uint8_t*>(id_bits)[i]);
        key += two;
      }
    }
    uint64_t bias = 0;
    bool has_bias = false;
    std::string debuglink;
    if (elf != nullptr) {
      if (auto b = elf_load_bias(elf, m)) bias = *b, has_bias = true;
      GElf_Word crc = 0;
      if (const char* link = dwelf_elf_gnu_debuglink(elf, &crc)) debuglink = link;
      elf_end(elf);
    }
    if (vdso && has_bias) {  // libdwfl reads files: give it the image as an anonymous one
      fd.reset(memfd_create("hearth-vdso", MFD_CLOEXEC));
      if (fd && write(fd.get(), image.data(), image.size()) != static_cast<ssize_t>(image.size())) {
        fd.reset();
      }
    }
    const uint32_t module = s.module_id(key, m.path);
    if (ModuleName& name = s.modules[module]; id_len > 0 && name.build_id.empty()) {
      name.build_id = key;
      name.path = m.path;
      name.debuglink = std::move(debuglink);
      name.vdso = vdso;
      struct stat st;
      if (!vdso && fd && ::fstat(fd.get(), &st) == 0) {
        name.size = static_cast<uint64_t>(st.st_size);
        name.mtime_ns = st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
      }
    }
    ranges.push_back({m.start, m.end, m.offset, module});
    // One libdwfl module per object, however many executable mappings it has.
    auto id = std::make_pair(bias, key);
    if (!fd || !has_bias || current.contains(id)) continue;
    current.insert(id);
    modules.push_back({id, Pending{std::move(fd), m.path, bias}});
  }
  // libdwfl cannot re-report a module with a new file, so unless every module we have stays,
  // start over with a new Dwfl. Cached names are keyed by build-id and survive.
  const bool only_added =
      std::includes(current.begin(), current.end(), s.reported.begin(), s.reported.end());
  if (s.dwfl == nullptr || !only_added) {
    if (s.dwfl != nullptr) dwfl_end(s.dwfl);
    s.dwfl = dwfl_begin(&s.callbacks);
    if (s.dwfl == nullptr) {
      return fail(std::string("cannot start libdwfl: ") + dwfl_errmsg(-1));
    }
    s.reported.clear();
    for (ModuleName& m : s.modules) m.reported = false;
    s.tail_cache.clear();
    s.symbol_indexes.clear();  // their modules are reported again
    s.trimmed.clear();
    s.function_dies.clear();
    dwfl_report_begin(s.dwfl);
  } else {
    dwfl_report_begin_add(s.dwfl);
  }
  for (auto& [id, p] : modules) {
    if (s.reported.contains(id)) continue;
    const char* name = p.path.c_str();
    // add_p_vaddr: the module sits at bias + p_vaddr, like the dynamic loader put it.
    // libdwfl takes the descriptor only when it reports the module; on failure it stays ours
    // (and is closed) and the module's frames stay "[module+0x…]".
    if (dwfl_report_elf(s.dwfl, name, name, p.fd.get(), p.bias, true) == nullptr) continue;
    p.fd.release();
    s.reported.insert(id);
    s.modules[s.module_ids.at(id.second)].reported = true;
  }
  if (dwfl_report_end(s.dwfl, nullptr, nullptr) != 0) {
    return fail(std::string("cannot report modules to libdwfl: ") + dwfl_errmsg(-1));
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  s.ranges = std::move(ranges);
  s.stats.modules = s.reported.size();
  return {};
}

void Symbolizer::Impl::add_inlines(Dwfl_Module* mod, uint64_t addr, std::string* function,
                                   std::vector<Frame>* inlined) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* cudie = dwfl_module_addrdie(mod, addr, &bias);
  if (cudie == nullptr) return;
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(cudie, addr - bias, &scopes);
  if (n <= 0) return;
  // dwarf_getscopes stops at the innermost inlined instance; the concrete chain of scopes
  // containing it (every inline level up to the real function) comes from its DIE.
  Dwarf_Die* chain = nullptr;
  const int m = dwarf_getscopes_die(&scopes[0], &chain);
  std::free(scopes);
  // The function the code is in (the outermost subprogram), for a tail-call lookup from this
  // address as a caller's (find_tail_calls) which would walk the same scopes again.
  for (int i = m - 1; i >= 0; --i) {
    if (dwarf_tag(&chain[i]) == DW_TAG_subprogram) {
      function_dies[addr] = {chain[i], bias};
      break;
    }
  }
  for (int i = 0; i < m; ++i) {
    const int tag = dwarf_tag(&chain[i]);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
    const char* name = dwarf_function_name(&chain[i]);
    if (tag == DW_TAG_subprogram) {
      if (function->empty() && name != nullptr)
        *function = clean_symbol_name(name, options.parameters);
      break;
    }
    inlined->push_back(
        {name != nullptr ? clean_symbol_name(name, options.parameters) : "[inlined]", true});
  }
  std::free(chain);
  std::reverse(inlined->begin(), inlined->end());  // outermost first
}

std::string Symbolizer::Impl::symbol_name(Dwfl_Module* mod, uint64_t addr) const {
  if (mod == nullptr) return "";
  GElf_Off offset = 0;
  GElf_Sym sym{};
  const char* name = dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr);
  // libdwfl returns the closest symbol at or below addr; it must also cover addr.
  if (name != nullptr && name[0] != '\0' &&
      (sym.st_size != 0 ? offset < sym.st_size : offset < kMaxSizelessOffset)) {
    return clean_symbol_name(name, options.parameters);
  }
  return "";
}

std::string Symbolizer::Impl::unnamed(uint64_t addr, const Range& range) const {
  return "[" + modules[range.module].basename + "+" + hex(addr - range.start + range.offset) + "]";
}

Dwfl_Module* Symbolizer::Impl::dwarf_module(uint64_t addr) {
  Dwfl_Module* mod = dwfl != nullptr ? dwfl_addrmodule(dwfl, addr) : nullptr;
  if (mod != nullptr && trimmed.insert(mod).second) leave_out_unread_debug_sections(mod);
  return mod;
}

std::vector<Frame> Symbolizer::Impl::resolve(uint64_t addr, const Range& range) {
  std::vector<Frame> inlined;
  Dwfl_Module* mod = dwarf_module(addr);
  std::string function = symbol_name(mod, addr);
  if (mod != nullptr && options.inlines) add_inlines(mod, addr, &function, &inlined);
  if (function.empty()) function = unnamed(addr, range);
  std::vector<Frame> frames;
  frames.reserve(1 + inlined.size());
  frames.push_back({std::move(function), false});
  for (Frame& f : inlined) frames.push_back(std::move(f));
  return frames;
}

const std::vector<Frame>& Symbolizer::symbolize(uint64_t ip, bool is_return_address) {
  Impl& s = *impl_;
  ++s.stats.lookups;
  const uint64_t addr = is_return_address && ip > 0 ? ip - 1 : ip;
  auto it = std::upper_bound(s.ranges.begin(), s.ranges.end(), addr,
                             [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == s.ranges.begin() || addr >= std::prev(it)->end) {
    // Outside every file: JIT-compiled code, named by the runtime's perf map if it wrote one.
    if (!s.options.perf_map || !s.perf_map) return s.unknown;
    const std::string* name = s.perf_map->lookup(addr);
    if (s.perf_map->generation() != s.jit_generation) {
      s.jit_cache.clear();
      s.jit_generation = s.perf_map->generation();
    }
    if (name == nullptr) return s.unknown;
    auto [hit, added] = s.jit_cache.try_emplace(addr);
    if (added) {
      std::string jit = *name;
      std::replace(jit.begin(), jit.end(), ';', ':');
      hit->second.push_back({std::move(jit), false, true});
    }
    return hit->second;
  }
  const Range& range = *std::prev(it);
  const uint64_t offset = addr - range.start + range.offset;
  const uint64_t key =
      (uint64_t{range.module} << kOffsetBits) | (offset & ((uint64_t{1} << kOffsetBits) - 1));
  if (auto hit = s.cache.find(key); hit != s.cache.end()) {
    ++s.stats.cache_hits;
    return hit->second;
  }
  SharedNames& shared = shared_names();
  {
    std::lock_guard lock(shared.mutex);
    FileNames& file = s.file_names(range.module);
    if (auto hit = file.frames.find(offset); hit != file.frames.end()) {
      if (file.from_disk.contains(offset)) {
        ++s.stats.disk_hits;
      } else {
        ++s.stats.shared_hits;
      }
      return s.cache.emplace(key, hit->second).first->second;
    }
  }
  std::vector<Frame> frames = s.resolve(addr, range);
  ++s.stats.resolved;
  {
    std::lock_guard lock(shared.mutex);
    FileNames& file = s.file_names(range.module);
    if (file.frames.try_emplace(offset, frames).second && s.cacheable(s.modules[range.module]))
      file.dirty = true;
  }
  return s.cache.emplace(key, std::move(frames)).first->second;
}

const std::string& Symbolizer::function_name(uint64_t ip, bool is_return_address) {
  Impl& s = *impl_;
  const uint64_t addr = is_return_address && ip > 0 ? ip - 1 : ip;
  auto it = std::upper_bound(s.ranges.begin(), s.ranges.end(), addr,
                             [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == s.ranges.begin() || addr >= std::prev(it)->end) {
    // JIT code: the perf map's name, as symbolize() gives it (read, no DWARF).
    return symbolize(ip, is_return_address).front().name;
  }
  const Range& range = *std::prev(it);
  const uint64_t offset = addr - range.start + range.offset;
  const uint64_t key =
      (uint64_t{range.module} << kOffsetBits) | (offset & ((uint64_t{1} << kOffsetBits) - 1));
  auto [hit, added] = s.name_cache.try_emplace(key);
  if (added) {
    ++s.stats.names_resolved;
    Dwfl_Module* mod = s.dwfl != nullptr ? dwfl_addrmodule(s.dwfl, addr) : nullptr;
    hit->second = s.symbol_name(mod, addr);
    if (hit->second.empty()) hit->second = s.unnamed(addr, range);
  }
  return hit->second;
}

const std::vector<Frame>& Symbolizer::tail_calls(uint64_t caller_ip, uint64_t callee_ip,
                                                 bool callee_is_return_address) {
  Impl& s = *impl_;
  const uint64_t callee = callee_is_return_address && callee_ip > 0 ? callee_ip - 1 : callee_ip;
  auto [it, added] = s.tail_cache.try_emplace({caller_ip, callee});
  if (!added || !s.options.tail_calls || s.dwfl == nullptr || caller_ip == 0) return it->second;
  // Another Symbolizer's answer (or an earlier run's) for the same two places of the same
  // files: kept with the caller's file, under the callee's identity.
  auto caller_file = s.file_of(caller_ip - 1);
  auto callee_file = s.file_of(callee);
  if (!caller_file || !callee_file) {
    s.find_tail_calls(caller_ip, callee, &it->second);
    return it->second;
  }
  const auto [caller_module, caller_offset] = *caller_file;
  const auto [callee_module, callee_offset] = *callee_file;
  SharedNames& shared = shared_names();
  const bool keep_with_caller = s.cacheable(s.modules[callee_module]);
  const std::tuple<uint64_t, uint64_t, uint64_t> file_key(
      caller_offset,
      keep_with_caller ? symbol_cache::identity_hash(s.identity_of(callee_module)) : 0,
      callee_offset);
  const std::tuple<std::string, uint64_t, std::string, uint64_t> loose_key(
      s.shared_key(caller_module), caller_offset, s.shared_key(callee_module), callee_offset);
  {
    std::lock_guard lock(shared.mutex);
    if (keep_with_caller) {
      FileNames& file = s.file_names(caller_module);
      if (auto hit = file.tails.find(file_key); hit != file.tails.end()) {
        ++s.stats.shared_hits;
        it->second = hit->second;
        return it->second;
      }
    } else if (auto hit = shared.tails.find(loose_key); hit != shared.tails.end()) {
      ++s.stats.shared_hits;
      it->second = hit->second;
      return it->second;
    }
  }
  s.find_tail_calls(caller_ip, callee, &it->second);
  ++s.stats.resolved;
  std::lock_guard lock(shared.mutex);
  if (keep_with_caller) {
    FileNames& file = s.file_names(caller_module);
    if (file.tails.try_emplace(file_key, it->second).second &&
        s.cacheable(s.modules[caller_module]))
      file.dirty = true;
  } else {
    shared.tails.try_emplace(loose_key, it->second);
  }
  return it->second;
}

void Symbolizer::Impl::find_tail_calls(uint64_t caller_ip, uint64_t callee,
                                       std::vector<Frame>* out) {
  Dwfl_Module* caller_mod = dwarf_module(caller_ip - 1);
  Dwfl_Module* callee_mod = dwarf_module(callee);
  if (caller_mod == nullptr || callee_mod == nullptr) return;
  auto known = function_dies.find(caller_ip - 1);
  std::optional<std::string> called =
      known != function_dies.end()
          ? called_function(&known->second.first, known->second.second, caller_ip)
          : called_function(caller_mod, caller_ip);
  if (!called) return;  // an indirect call, or no call-site information
  GElf_Off offset = 0;
  GElf_Sym sym{};
  const char* name =
      dwfl_module_addrinfo(callee_mod, callee, &offset, &sym, nullptr, nullptr, nullptr);
  if (name == nullptr || (sym.st_size != 0 ? offset >= sym.st_size : offset >= kMaxSizelessOffset))
    return;
  auto& index = symbol_indexes[callee_mod];
  if (!index) index = std::make_unique<SymbolIndex>(callee_mod);
  for (const std::string& f : tail_call_chain(callee_mod, *index, *called, callee - offset))
    out->push_back({clean_symbol_name(f.c_str(), options.parameters), false});
}

std::optional<std::pair<uint32_t, uint64_t>> Symbolizer::Impl::file_of(uint64_t addr) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), addr,
                             [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == ranges.begin() || addr >= std::prev(it)->end) return std::nullopt;
  const Range& range = *std::prev(it);
  return std::make_pair(range.module, addr - range.start + range.offset);
}

std::string Symbolizer::Impl::shared_key(uint32_t module) const {
  const ModuleName& m = modules[module];
  std::string key = options_key + "\n" + m.key + "\n" + m.basename + "\n";
  if (cacheable(m)) key += cache_dir->path();  // names that go to (and come from) its entry
  return key;
}

const std::string& Symbolizer::Impl::identity_of(uint32_t module) {
  ModuleName& m = modules[module];
  if (!m.identity) {
    std::string id = "v1\n" + m.build_id + "\n" + m.basename + "\n" + options_key + "\n";
    id += m.vdso ? std::string("vdso") : std::to_string(m.size) + ":" + std::to_string(m.mtime_ns);
    id += "\n" + debug_files_identity(m.build_id, m.path, m.debuglink, options.debuginfo_path);
    m.identity = std::move(id);
  }
  return *m.identity;
}

FileNames& Symbolizer::Impl::file_names(uint32_t module) {
  touched.insert(module);
  FileNames& file = shared_names().files[shared_key(module)];
  if (file.disk_tried || !cacheable(modules[module])) return file;
  file.disk_tried = true;
  const auto began = std::chrono::steady_clock::now();
  const ModuleName& m = modules[module];
  const std::string& identity = identity_of(module);
  SymbolCacheStats delta;
  std::optional<std::string> text = cache_dir->read(entry_name(m.build_id, shared_key(module)));
  Result<symbol_cache::Entry> entry = text ? symbol_cache::parse(*text) : fail("absent");
  if (!text) {
    ++delta.entries_absent;
  } else if (!entry || entry->identity != identity) {
    // Damaged, cut short, or made from another file (or debug file): rebuilt from this run.
    ++delta.entries_refused;
    file.dirty = true;
  } else {
    ++delta.entries_loaded;
    for (symbol_cache::Address& a : entry->addresses) {
      std::vector<Frame> frames;
      for (symbol_cache::CachedFrame& f : a.frames)
        frames.push_back({std::move(f.name), f.inlined});
      if (file.frames.try_emplace(a.offset, std::move(frames)).second)
        file.from_disk.insert(a.offset);
    }
    for (symbol_cache::TailCall& t : entry->tails) {
      std::vector<Frame> frames;
      for (std::string& f : t.frames) frames.push_back({std::move(f), false});
      file.tails.try_emplace({t.caller_offset, t.callee_module, t.callee_offset},
                             std::move(frames));
    }
  }
  delta.load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  add_symbol_cache_stats(delta);
  return file;
}

void Symbolizer::Impl::save_cache() {
  SymbolCacheStats delta;
  delta.names_cached = stats.disk_hits;
  delta.names_resolved = stats.resolved;
  if (cache_dir != nullptr) {
    const auto began = std::chrono::steady_clock::now();
    std::vector<std::pair<std::string, std::string>> writes;  // entry name, text
    {
      SharedNames& shared = shared_names();
      std::lock_guard lock(shared.mutex);
      for (uint32_t module : touched) {
        const ModuleName& m = modules[module];
        if (!cacheable(m)) continue;
        const std::string key = shared_key(module);
        auto it = shared.files.find(key);
        if (it == shared.files.end() || !it->second.dirty) continue;
        FileNames& file = it->second;
        file.dirty = false;
        symbol_cache::Entry entry;
        entry.identity = identity_of(module);
        std::vector<uint64_t> offsets;
        for (const auto& [offset, frames] : file.frames) offsets.push_back(offset);
        std::sort(offsets.begin(), offsets.end());  // a stable file for a stable cache
        for (uint64_t offset : offsets) {
          symbol_cache::Address a{offset, {}};
          for (const Frame& f : file.frames.at(offset)) a.frames.push_back({f.name, f.inlined});
          entry.addresses.push_back(std::move(a));
        }
        for (const auto& [k, frames] : file.tails) {
          symbol_cache::TailCall t{std::get<0>(k), std::get<1>(k), std::get<2>(k), {}};
          for (const Frame& f : frames) t.frames.push_back(f.name);
          entry.tails.push_back(std::move(t));
        }
        writes.emplace_back(entry_name(m.build_id, key), symbol_cache::write_text(entry));
      }
    }
    for (const auto& [name, text] : writes) cache_dir->write(name, text);
    delta.entries_written = writes.size();
    delta.write_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  }
  add_symbol_cache_stats(delta);
}

bool Symbolizer::perf_map_found() const {
  return impl_->perf_map && impl_->perf_map->found();
}

std::string Symbolizer::perf_map_path() const {
  return impl_->perf_map ? impl_->perf_map->path() : "";
}

const SymbolizerStats& Symbolizer::stats() const {
  return impl_->stats;
}

}  // namespace hearth::stacks
