// The on-disk symbol cache's directory (README, "The symbol cache"): entries the symbolizer
// wrote in earlier runs (formats/symbol_cache.h, one per ELF file by build-id) and the kernel's
// core symbols of this boot (kernel_symbols.h).
//
// Nothing read from it is trusted: the directory must be owned by the running user and not
// writable by others (else it is not used, with one warning); an entry must be a regular file
// owned by the user, not writable by others, at most kMaxEntryBytes (else it is ignored, with a
// warning, and rewritten); its text must parse and carry the identity the reader expects (else
// it is rebuilt). Entries are written atomically (common/atomic_file), mode 0600; past
// kMaxCacheBytes the least recently written go.
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth::stacks {

inline constexpr size_t kMaxEntryBytes = 32 << 20;
inline constexpr uint64_t kMaxCacheBytes = 256ull << 20;

// $XDG_CACHE_HOME/hearth, else $HOME/.cache/hearth; "" when neither variable is set.
std::string default_symbol_cache_dir();

class SymbolCacheDir {
 public:
  // The directory at PATH, created (mode 0700, with missing parents) when absent; one per
  // path per hearth process. Null when PATH is "" or the directory cannot be used (a warning
  // says why, once).
  static std::shared_ptr<const SymbolCacheDir> open(const std::string& path);

  // The text of entry NAME (a plain file name), or nothing: absent, or refused (a warning).
  std::optional<std::string> read(const std::string& name) const;
  // Replaces entry NAME atomically, then trims the directory to the size cap. Failures are
  // warnings: the cache is an optimization, never a reason to fail.
  void write(const std::string& name, std::string_view text) const;

  // Removes the entries whose names start with PREFIX, except KEEP.
  void remove_stale(std::string_view prefix, const std::string& keep) const;

  const std::string& path() const { return path_; }

 private:
  SymbolCacheDir(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  void trim() const;
  std::string path_;
  UniqueFd fd_;  // the directory, checked when opened
};

// The separate debug files libdwfl could use for an ELF file (by BUILD_ID, or by its
// .gnu_debuglink name DEBUGLINK next to PATH), searched along DEBUGINFO_PATH as libdwfl does
// ("" is libdwfl's default), each as "PATH=SIZE:MTIME" or "PATH=-" when absent: a part of a
// cache entry's identity, so that installing or removing a -dbg package rebuilds the entry.
std::string debug_files_identity(const std::string& build_id, const std::string& path,
                                 const std::string& debuglink, const std::string& debuginfo_path);

// What the caches did in this hearth process (every Symbolizer adds to it), for --verbose.
struct SymbolCacheStats {
  uint64_t entries_loaded = 0;   // entries read and used
  uint64_t entries_absent = 0;   // no entry yet for a file the stacks touched
  uint64_t entries_refused = 0;  // unsafe, damaged, or made from another file: rebuilt
  uint64_t entries_written = 0;
  uint64_t names_cached = 0;     // addresses and tail calls answered from entries
  uint64_t names_resolved = 0;   // addresses and tail calls resolved from ELF/DWARF
  double load_ms = 0, write_ms = 0;
  std::string kernel;            // how kernel symbols were had ("" when none were needed)
  double kernel_ms = 0;
};
SymbolCacheStats symbol_cache_stats();
void add_symbol_cache_stats(const SymbolCacheStats& delta);  // adds counters; sets kernel
// The warnings recorded so far (each said once per process), emptied.
std::vector<std::string> take_symbol_cache_warnings();
void symbol_cache_warning(const std::string& text);

}  // namespace hearth::stacks
