#include "collectors/stacks/perf_map.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <string>

#include "collectors/proc/threads.h"
#include "common/file_io.h"

namespace hearth::stacks {
namespace {

// How often a changed file is looked for, at most: lookups come in bursts (every frame of
// every stack), the runtime appends as it compiles.
constexpr std::chrono::milliseconds kRecheck{10};
// A perf map larger than this is not read (a runaway writer; real ones are a few MiB).
constexpr off_t kMaxMapBytes = off_t{512} << 20;

bool parse_hex(std::string_view s, uint64_t* out) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

void JitSymbols::add(uint64_t start, uint64_t end, std::string name) {
  // Trim or split what the new range overlaps: the later line wins.
  auto it = ranges_.lower_bound(start);
  if (it != ranges_.begin()) {
    auto before = std::prev(it);
    if (before->second.end > start) {
      if (before->second.end > end)
        ranges_.emplace(end, Range{before->second.end, before->second.name});
      before->second.end = start;
    }
  }
  while (it != ranges_.end() && it->first < end) {
    if (it->second.end > end) {
      Range rest{it->second.end, std::move(it->second.name)};
      it = ranges_.erase(it);
      ranges_.emplace(end, std::move(rest));
      break;
    }
    it = ranges_.erase(it);
  }
  ranges_[start] = Range{end, std::move(name)};
}

void JitSymbols::add_text(std::string_view text) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t a = line.find(' ');
    const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
    uint64_t start = 0, size = 0;
    if (b == std::string_view::npos || !parse_hex(line.substr(0, a), &start) ||
        !parse_hex(line.substr(a + 1, b - a - 1), &size) || size == 0 || start + size < start ||
        b + 1 >= line.size()) {
      ++bad_lines_;
      continue;
    }
    add(start, start + size, std::string(line.substr(b + 1)));
  }
}

const std::string* JitSymbols::lookup(uint64_t addr) const {
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return nullptr;
  --it;
  return addr < it->second.end ? &it->second.name : nullptr;
}

std::string PerfMap::path_for(pid_t pid) {
  pid_t inner = pid;
  if (auto status = read_file("/proc/" + std::to_string(pid) + "/status")) {
    // "NSpid:\t4242\t17": the pid in each namespace, the process's own last.
    const size_t at = status->find("\nNSpid:");
    if (at != std::string::npos) {
      const size_t end = status->find('\n', at + 1);
      std::string_view line(status->data() + at + 7, end - at - 7);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      const size_t last = line.find_last_of(" \t");
      std::string_view field = last == std::string_view::npos ? line : line.substr(last + 1);
      int v = 0;
      auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
      if (ec == std::errc() && v > 0) inner = v;
    }
  }
  return "/proc/" + std::to_string(pid) + "/root/tmp/perf-" + std::to_string(inner) + ".map";
}

void PerfMap::reload_if_changed() {
  const auto now = std::chrono::steady_clock::now();
  if (checked_ != std::chrono::steady_clock::time_point{} && now - checked_ < kRecheck) return;
  checked_ = now;
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // none (yet): the runtime may write one later
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxMapBytes) {
    ::close(fd);
    return;
  }
  const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (found_ && st.st_size == size_ && mtime == mtime_ns_) {
    ::close(fd);
    return;
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t have = 0;
  while (have < text.size()) {
    // In 64 KiB steps: a large read() stays in the kernel long (see symbol_cache.cpp).
    const ssize_t n = ::pread(fd, text.data() + have, std::min<size_t>(text.size() - have, 64 << 10),
                              static_cast<off_t>(have));
    if (n <= 0) break;
    have += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(have);
  // A line still being written (no newline yet) is left for the next read.
  if (const size_t nl = text.rfind('\n'); nl != std::string::npos) text.resize(nl + 1);
  JitSymbols fresh;
  fresh.add_text(text);
  symbols_ = std::move(fresh);
  found_ = true;
  size_ = st.st_size;
  mtime_ns_ = mtime;
  ++generation_;
}

const std::string* PerfMap::lookup(uint64_t addr) {
  reload_if_changed();
  return symbols_.lookup(addr);
}

}  // namespace hearth::stacks
