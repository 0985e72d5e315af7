#include "collectors/stacks/kernel_symbols.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <system_error>

#include "common/file_io.h"
#include "formats/symbol_cache.h"

namespace hearth::stacks {
namespace {

constexpr std::string_view kHeaderMagic = "# hearth kernel symbols 1";

// The boot id's text ("c14d221b-4cfb-…"), or "" when it is missing or not what it should be.
std::string boot_id() {
  auto text = read_file("/proc/sys/kernel/random/boot_id");
  if (!text) return "";
  std::string id = *text;
  while (!id.empty() && id.back() == '\n') id.pop_back();
  if (id.size() != 36) return "";
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-')) return "";
  return id;
}

}  // namespace

std::string kernel_symbols_header() {
  const std::string id = boot_id();
  if (id.empty()) return "";
  auto notes = read_file("/sys/kernel/notes");  // the kernel's build-id note, among others
  char hash[20];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(
                    symbol_cache::identity_hash(notes ? std::string_view(*notes) : "")));
  return std::string(kHeaderMagic) + " boot=" + id + " notes=" + hash;
}

std::shared_ptr<KernelSymbols> KernelSymbols::shared(const std::string& cache_dir) {
  // The cache's process-wide state (directories, figures, warnings), which a loader thread may
  // use, is made before the table below: it then outlives the table, whose destructors wait
  // for loaders still running when hearth exits.
  (void)symbol_cache_stats();
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<KernelSymbols>> all;
  std::lock_guard lock(mutex);
  auto& k = all[cache_dir];
  if (!k) k = std::make_shared<KernelSymbols>(cache_dir);
  return k;
}

KernelSymbols::~KernelSymbols() {
  if (loader_.joinable()) loader_.join();
}

KernelSymbols::Core KernelSymbols::load_core(const std::string& cache_dir) {
  const auto began = std::chrono::steady_clock::now();
  Core c;
  SymbolCacheStats& delta = c.stats;
  auto dir = SymbolCacheDir::open(cache_dir);
  const std::string header = dir ? kernel_symbols_header() : "";
  const std::string name =
      header.empty() ? "" : "kernel-" + header.substr(header.find("boot=") + 5, 36) + ".syms";
  if (!name.empty()) {
    if (auto text = dir->read(name)) {
      if (auto k = proc::Kallsyms::parse_core_text(std::move(*text), header)) {
        c.core = std::make_shared<const proc::Kallsyms>(std::move(*k));
        ++delta.entries_loaded;
      } else {
        ++delta.entries_refused;
      }
    } else {
      ++delta.entries_absent;
    }
  }
  if (c.core) {
    delta.kernel = "core kernel symbols from the cache";
  } else {
    if (auto k = proc::Kallsyms::load())
      c.full = std::make_shared<const proc::Kallsyms>(std::move(*k));
    delta.kernel = c.full ? "/proc/kallsyms read" : "/proc/kallsyms unreadable";
    if (c.full && !name.empty() && c.full->has_core()) {
      dir->remove_stale("kernel-", name);  // earlier boots'
      dir->write(name, c.full->core_text(header));
      ++delta.entries_written;
    }
  }
  delta.kernel_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  return c;
}

void KernelSymbols::take(Core loaded,
                         std::optional<std::chrono::steady_clock::time_point> waited_from) {
  core_ = std::move(loaded.core);
  full_ = std::move(loaded.full);
  if (waited_from) {
    char waited[96];
    std::snprintf(
        waited, sizeof waited, " on a thread of its own from attach on, %.1f ms of it waited for",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - *waited_from)
            .count());
    loaded.stats.kernel += waited;
  }
  add_symbol_cache_stats(loaded.stats);
}

void KernelSymbols::prefetch() {
  std::lock_guard lock(mutex_);
  if (core_tried_) return;
  try {
    loader_ = std::thread([this] { loaded_ = load_core(cache_dir_); });
    core_tried_ = true;
  } catch (const std::system_error&) {
    // No thread to be had (a process or memory limit): the first lookup loads them instead.
  }
}

std::string_view KernelSymbols::name_of_return_address(uint64_t addr) {
  std::lock_guard lock(mutex_);
  if (loader_.joinable()) {
    const auto began = std::chrono::steady_clock::now();
    loader_.join();
    take(std::move(loaded_), began);
  } else if (!core_tried_) {
    core_tried_ = true;
    take(load_core(cache_dir_), std::nullopt);
  }
  if (core_ && core_->covers_core(addr)) return core_->name_of_return_address(addr);
  if (!full_) {
    const auto began = std::chrono::steady_clock::now();
    full_ = proc::Kallsyms::shared();
    SymbolCacheStats delta;
    delta.kernel = "core kernel symbols from the cache, /proc/kallsyms read for a module's";
    delta.kernel_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    add_symbol_cache_stats(delta);
  }
  return full_ ? full_->name_of_return_address(addr) : std::string_view();
}

}  // namespace hearth::stacks
