// Turns the IPs an Unwinder found into function names, with elfutils (libdwfl/libdw): symbol
// tables (.symtab, else .dynsym), separate debug files found by build-id (e.g. libc6-dbg under
// /usr/lib/debug/.build-id) and DWARF inline information. C++ names are demangled.
//
// Modules are reported from the target's maps with files opened through /proc/PID/map_files,
// so symbolization keeps working after the target exits (the files stay open here).
// Results are cached per (module build-id, or path when it has none; file offset): an IP seen
// before costs a binary search and a hash lookup. With SymbolizerOptions::cache_dir they also
// persist between runs, per build-id (symbol_cache.h): a file's names are read from there the
// first time a stack touches the file, and only addresses not found there open its DWARF. The names are also shared by every
// Symbolizer of the hearth process (with the same options): a process set's members, mapping
// the same files, read each file's DWARF once between them.
// Not thread-safe: one Symbolizer per target, used from one thread (the shared names are
// locked).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectors/proc/maps.h"
#include "collectors/stacks/remote_memory.h"
#include "common/result.h"

namespace hearth::stacks {

struct Frame {
  std::string name;      // never empty; ';' replaced by ':' (the folded format's separator)
  bool inlined = false;  // inlined into the frame before it (rendered with the _[i] suffix)
  bool jit = false;      // JIT-compiled code named by the runtime's perf map (the _[j] suffix)
};

struct SymbolizerOptions {
  bool parameters = true;  // keep C++ parameter lists: "ns::foo(int)"; false: "ns::foo"
  bool inlines = true;     // add the functions inlined at the IP (from DWARF)
  bool tail_calls = true;  // tail_calls(): put back functions that left by a tail call
  bool perf_map = true;    // name JIT code from the target's perf map (perf_map.h)
  // Where libdw looks for separate debug files (Dwfl_Callbacks::debuginfo_path). Empty: libdw's
  // default (":.debug:/usr/lib/debug", build-id first). A path without debug files makes the
  // symbolizer behave as on a machine without -dbg packages.
  std::string debuginfo_path;
  // The on-disk symbol cache's directory (symbol_cache.h): names of files with a build-id are
  // read from it on first use of the file and written back when the Symbolizer is destroyed.
  // "" (the default): no on-disk cache.
  std::string cache_dir;
};

struct SymbolizerStats {
  uint64_t lookups = 0;     // symbolize() calls
  uint64_t cache_hits = 0;  // answered from the cache
  uint64_t shared_hits = 0;  // answered from another Symbolizer's names (same file and offset)
  uint64_t disk_hits = 0;  // answered from the on-disk cache (SymbolizerOptions::cache_dir)
  uint64_t resolved = 0;   // addresses and tail calls resolved from ELF/DWARF
  uint64_t modules = 0;     // ELF objects (and the vDSO) reported to libdwfl
  uint64_t names_resolved = 0;  // addresses function_name() looked up (symbol tables only)
};

class Symbolizer {
 public:
  static Result<Symbolizer> create(SymbolizerOptions options = {});

  Symbolizer(Symbolizer&&) noexcept;
  Symbolizer& operator=(Symbolizer&&) noexcept;
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;
  ~Symbolizer();

  // Reports the target's executable mappings: ELF files (opened now, kept open) and the vDSO
  // (its image read through `memory`; without memory, vDSO frames are "[vdso+0x…]"). Call it
  // again when the maps change; cached names stay valid. Errors only for a libdwfl failure;
  // a file that cannot be opened leaves its frames as "[module+0x…]".
  Result<void> set_maps(pid_t pid, const std::vector<proc::Mapping>& maps,
                        RemoteMemory* memory = nullptr);

  // The frames at ip, outermost first: the function, then the functions inlined into it, each
  // inlined into the one before; e.g. {"foo", false}, {"bar", true} when bar was inlined into
  // foo. is_return_address: ip is a caller's return address (see is_return_address() in
  // unwinder.h), so ip - 1, the call instruction, is looked up.
  // Unknown names: "[libc.so.6+0x8c3f2]" (module basename, file offset of the looked-up
  // address) when no symbol covers the address — never the name of a symbol that ends before
  // it — and "[unknown]" outside any file mapping (JIT code, garbage IPs).
  // The reference stays valid until the Symbolizer is destroyed.
  const std::vector<Frame>& symbolize(uint64_t ip, bool is_return_address);

  // The function at IP as the symbol tables name it (.symtab, from a separate debug file when
  // the file has one, else .dynsym), without reading DWARF: symbolize()'s first frame when the
  // symbol tables name it, no inlined functions ("[module+0x…]" when no symbol covers IP; JIT
  // code as symbolize() names it). Much cheaper on first use of a file than symbolize(): a
  // file's debug information (libc's: 20-30 MB once decompressed) is never read. The reference
  // stays valid until the Symbolizer is destroyed.
  const std::string& function_name(uint64_t ip, bool is_return_address);

  // The functions that ran between a caller and its callee but left no frame (tail calls, see
  // call_sites.h), outermost first: CALLER_IP is the caller's return address, CALLEE_IP the
  // callee's IP (is_return_address as for symbolize()). Usually empty. The reference stays valid
  // until the next set_maps().
  const std::vector<Frame>& tail_calls(uint64_t caller_ip, uint64_t callee_ip,
                                       bool callee_is_return_address);

  // Whether the target's perf map (perf_map.h) was found, and where it is looked for.
  bool perf_map_found() const;
  std::string perf_map_path() const;

  const SymbolizerStats& stats() const;

 private:
  struct Impl;
  explicit Symbolizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A demangled C++ name ("_ZN2ns3fooEi" → "ns::foo(int)", or "ns::foo" without parameters);
// other names unchanged. ';' becomes ':'. Exposed for tests.
std::string clean_symbol_name(const char* name, bool parameters);

}  // namespace hearth::stacks
