#include "collectors/stacks/symbol_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

#include "common/atomic_file.h"

namespace hearth::stacks {
namespace {

struct CacheState {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const SymbolCacheDir>> dirs;  // by path; null: refused
  SymbolCacheStats stats;
  std::set<std::string> said;
  std::vector<std::string> warnings;
};

CacheState& cache_state() {
  static CacheState state;
  return state;
}

// Why a file or directory the user does not control must not be used, or "".
std::string unsafe_because(const struct stat& st) {
  if (st.st_uid != ::geteuid())
    return "owned by uid " + std::to_string(st.st_uid) + ", not " + std::to_string(::geteuid());
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "writable by others";
  return "";
}

// mkdir -p with mode 0700 for the parts that do not exist.
int make_dirs(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return 0;
  if (errno != ENOENT) return errno;
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return ENOENT;
  if (int e = make_dirs(path.substr(0, slash)); e != 0) return e;
  return ::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST ? 0 : errno;
}

}  // namespace

std::string default_symbol_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/hearth";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.cache/hearth";
  return "";
}

std::shared_ptr<const SymbolCacheDir> SymbolCacheDir::open(const std::string& path) {
  if (path.empty()) return nullptr;
  CacheState& c = cache_state();
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.dirs.find(path); it != c.dirs.end()) return it->second;
  }
  std::shared_ptr<const SymbolCacheDir> dir;
  std::string why;
  if (int e = make_dirs(path); e != 0) {
    why = std::string("cannot create it: ") + std::strerror(e);
  } else {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st;
    if (!fd) {
      why = std::string("cannot open it: ") + std::strerror(errno);
    } else if (::fstat(fd.get(), &st) != 0) {
      why = std::string("cannot stat it: ") + std::strerror(errno);
    } else if (why = unsafe_because(st); why.empty()) {
      dir.reset(new SymbolCacheDir(path, std::move(fd)));
    }
  }
  if (!why.empty())
    symbol_cache_warning("not using the symbol cache " + path + ": " + why);
  std::lock_guard lock(c.mutex);
  return c.dirs.try_emplace(path, dir).first->second;
}

std::optional<std::string> SymbolCacheDir::read(const std::string& name) const {
  UniqueFd fd(::openat(fd_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    if (errno != ENOENT)
      symbol_cache_warning("ignoring symbol cache entry " + path_ + "/" + name + ": " +
                           std::strerror(errno));
    return std::nullopt;
  }
  struct stat st;
  std::string why;
  if (::fstat(fd.get(), &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (why = unsafe_because(st); why.empty() && static_cast<uint64_t>(st.st_size) >
                                                           kMaxEntryBytes) {
    why = "larger than " + std::to_string(kMaxEntryBytes) + " bytes";
  }
  if (!why.empty()) {
    symbol_cache_warning("ignoring symbol cache entry " + path_ + "/" + name + ": " + why);
    return std::nullopt;
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    // 64 KiB per read(): one read() of a 5 MB entry copied whole large folios between two
    // resched points, keeping a CPU ~0.3 ms in the kernel (no preemption) while a real-time
    // thread of the target waited (issue 30).
    const ssize_t n = ::read(fd.get(), text.data() + got, std::min<size_t>(text.size() - got, 64 << 10));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);  // a shorter file (cut while we read) fails to parse: rebuilt
  return text;
}

void SymbolCacheDir::write(const std::string& name, std::string_view text) const {
  if (text.size() > kMaxEntryBytes) return;
  auto file = AtomicFile::create(path_ + "/" + name, 0600);
  Result<void> done = file ? Result<void>{} : std::unexpected(file.error());
  if (file) {
    file->write(text);
    done = file->commit();
  }
  if (!done) {
    symbol_cache_warning("cannot write the symbol cache: " + done.error().message);
    return;
  }
  trim();
}

void SymbolCacheDir::trim() const {
  // Entries only (names the symbolizer and the kernel symbols write), oldest first.
  UniqueFd copy(::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* d = copy ? ::fdopendir(copy.release()) : nullptr;
  if (d == nullptr) return;
  std::vector<std::tuple<int64_t, uint64_t, std::string>> entries;  // mtime ns, bytes, name
  uint64_t total = 0;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (!n.ends_with(".sym") && !n.starts_with("kernel-")) continue;
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    entries.emplace_back(st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec,
                         static_cast<uint64_t>(st.st_size), e->d_name);
    total += static_cast<uint64_t>(st.st_size);
  }
  if (total > kMaxCacheBytes) {
    std::sort(entries.begin(), entries.end());
    for (const auto& [mtime, bytes, n] : entries) {
      if (total <= kMaxCacheBytes / 4 * 3) break;
      if (::unlinkat(::dirfd(d), n.c_str(), 0) == 0) total -= bytes;
    }
  }
  ::closedir(d);
}

std::string debug_files_identity(const std::string& build_id, const std::string& path,
                                 const std::string& debuglink, const std::string& debuginfo_path) {
  std::vector<std::string> candidates;
  const std::string dirs = debuginfo_path.empty() ? ":.debug:/usr/lib/debug" : debuginfo_path;
  const size_t slash = path.find_last_of('/');
  const std::string file_dir = slash == std::string::npos ? "" : path.substr(0, slash);
  size_t at = 0;
  while (at <= dirs.size()) {
    size_t colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(at, colon - at);
    at = colon + 1;
    if (!dir.empty() && (dir[0] == '+' || dir[0] == '-')) dir.erase(0, 1);  // CRC check flags
    if (!dir.empty() && dir[0] == '/' && build_id.size() > 2) {
      candidates.push_back(dir + "/.build-id/" + build_id.substr(0, 2) + "/" +
                           build_id.substr(2) + ".debug");
    }
    if (debuglink.empty() || debuglink.find('/') != std::string::npos) continue;
    if (dir.empty()) {
      candidates.push_back(file_dir + "/" + debuglink);
    } else if (dir[0] != '/') {
      candidates.push_back(file_dir + "/" + dir + "/" + debuglink);
    } else {
      candidates.push_back(dir + file_dir + "/" + debuglink);
    }
  }
  std::string out;
  for (const std::string& c : candidates) {
    struct stat st;
    out += c;
    if (::stat(c.c_str(), &st) == 0) {
      out += "=" + std::to_string(st.st_size) + ":" +
             std::to_string(st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec) + "\n";
    } else {
      out += "=-\n";
    }
  }
  return out;
}

void SymbolCacheDir::remove_stale(std::string_view prefix, const std::string& keep) const {
  UniqueFd copy(::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* d = copy ? ::fdopendir(copy.release()) : nullptr;
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (dirent* e = ::readdir(d)) {
    if (std::string_view(e->d_name).starts_with(prefix) && e->d_name != keep)
      stale.emplace_back(e->d_name);
  }
  for (const std::string& n : stale) ::unlinkat(::dirfd(d), n.c_str(), 0);
  ::closedir(d);
}

SymbolCacheStats symbol_cache_stats() {
  CacheState& c = cache_state();
  std::lock_guard lock(c.mutex);
  return c.stats;
}

void add_symbol_cache_stats(const SymbolCacheStats& d) {
  CacheState& c = cache_state();
  std::lock_guard lock(c.mutex);
  SymbolCacheStats& s = c.stats;
  s.entries_loaded += d.entries_loaded;
  s.entries_absent += d.entries_absent;
  s.entries_refused += d.entries_refused;
  s.entries_written += d.entries_written;
  s.names_cached += d.names_cached;
  s.names_resolved += d.names_resolved;
  s.load_ms += d.load_ms;
  s.write_ms += d.write_ms;
  s.kernel_ms += d.kernel_ms;
  if (!d.kernel.empty()) s.kernel = d.kernel;
}

void symbol_cache_warning(const std::string& text) {
  CacheState& c = cache_state();
  std::lock_guard lock(c.mutex);
  if (c.said.insert(text).second) c.warnings.push_back(text);
}

std::vector<std::string> take_symbol_cache_warnings() {
  CacheState& c = cache_state();
  std::lock_guard lock(c.mutex);
  return std::exchange(c.warnings, {});
}

}  // namespace hearth::stacks
