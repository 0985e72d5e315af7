#include "collectors/stacks/kernel_symbols.h"

#include <chrono>
#include <cstdio>
#include <map>

#include "collectors/stacks/symbol_cache.h"
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
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<KernelSymbols>> all;
  std::lock_guard lock(mutex);
  auto& k = all[cache_dir];
  if (!k) k = std::make_shared<KernelSymbols>(cache_dir);
  return k;
}

void KernelSymbols::load_core() {
  core_tried_ = true;
  const auto began = std::chrono::steady_clock::now();
  SymbolCacheStats delta;
  auto dir = SymbolCacheDir::open(cache_dir_);
  const std::string header = dir ? kernel_symbols_header() : "";
  const std::string name =
      header.empty() ? "" : "kernel-" + header.substr(header.find("boot=") + 5, 36) + ".syms";
  if (!name.empty()) {
    if (auto text = dir->read(name)) {
      if (auto k = proc::Kallsyms::parse_core_text(std::move(*text), header)) {
        core_ = std::make_shared<const proc::Kallsyms>(std::move(*k));
        ++delta.entries_loaded;
      } else {
        ++delta.entries_refused;
      }
    } else {
      ++delta.entries_absent;
    }
  }
  if (core_) {
    delta.kernel = "core kernel symbols from the cache";
  } else {
    full_ = proc::Kallsyms::shared();
    delta.kernel = full_ ? "/proc/kallsyms read" : "/proc/kallsyms unreadable";
    if (full_ && !name.empty() && full_->has_core()) {
      dir->remove_stale("kernel-", name);  // earlier boots'
      dir->write(name, full_->core_text(header));
      ++delta.entries_written;
    }
  }
  delta.kernel_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  add_symbol_cache_stats(delta);
}

std::string_view KernelSymbols::name_of_return_address(uint64_t addr) {
  std::lock_guard lock(mutex_);
  if (!core_tried_) load_core();
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
