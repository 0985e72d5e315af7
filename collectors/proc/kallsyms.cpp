#include "collectors/proc/kallsyms.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <mutex>

#include "collectors/proc/threads.h"
#include "common/file_io.h"
#include "common/unique_fd.h"

namespace hearth::proc {

Result<Kallsyms> Kallsyms::load() {
  // 8 KiB per read(): the kernel formats the symbols in the read itself, and a 64 KiB read
  // kept a CPU 0.66 ms (a thread of the target waited behind it).
  UniqueFd fd(::open("/proc/kallsyms", O_RDONLY | O_CLOEXEC));
  if (!fd) {
    const int e = errno;
    return fail_errno("cannot read /proc/kallsyms", e);
  }
  // Read in place: reserved for the ~5 MB the file holds (a page costs only once written), so
  // that neither a bounce buffer nor a doubling string copies it.
  constexpr size_t kStep = 8 << 10;
  std::string text;
  text.reserve(8 << 20);
  for (;;) {
    const size_t used = text.size();
    if (text.capacity() - used < kStep) text.reserve(text.capacity() * 2);
    text.resize(used + kStep);
    const ssize_t n = ::read(fd.get(), text.data() + used, kStep);
    const int e = errno;
    text.resize(used + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0 && e == EINTR) continue;
    if (n < 0) return fail_errno("cannot read /proc/kallsyms", e);
    if (n == 0) break;
  }
  return parse(std::move(text));
}

std::shared_ptr<const Kallsyms> Kallsyms::shared() {
  static std::mutex mutex;
  static bool tried = false;
  static std::shared_ptr<const Kallsyms> kallsyms;
  std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    tried = true;
    if (auto k = load()) kallsyms = std::make_shared<const Kallsyms>(std::move(*k));
  }
  return kallsyms;
}

Result<Kallsyms> Kallsyms::parse(std::string text) {
  // The names stay where they are in TEXT, which the table keeps.
  if (text.size() > UINT32_MAX) return fail("/proc/kallsyms: larger than 4 GiB");
  Kallsyms k;
  k.symbols_.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  bool sorted = true;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const size_t line_at = at;
    std::string_view line = std::string_view(text).substr(at, end - at);
    at = end + 1;
    // "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[module]"
    size_t sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || sp1 + 3 > line.size() || line[sp1 + 2] != ' ') continue;
    char type = line[sp1 + 1];
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;  // code only
    uint64_t address = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + sp1, address, 16);
    if (ec != std::errc() || p != line.data() + sp1 || address == 0) continue;
    std::string_view name = line.substr(sp1 + 3);
    name = name.substr(0, name.find_first_of("\t "));
    if (name.empty() || name.size() > 1024) continue;
    if (name == "_stext" && k.core_start_ == 0) k.core_start_ = address;
    if (name == "_etext" && k.core_end_ == 0) k.core_end_ = address;
    if (!k.symbols_.empty() && address < k.symbols_.back().address) sorted = false;
    k.symbols_.push_back(
        {address, static_cast<uint32_t>(line_at + sp1 + 3), static_cast<uint32_t>(name.size())});
  }
  if (k.symbols_.empty()) {
    return fail("/proc/kallsyms shows no kernel addresses (needs root; see kptr_restrict)");
  }
  if (!sorted) {  // the core kernel's lines come sorted; modules' and BPF programs' may not
    std::stable_sort(k.symbols_.begin(), k.symbols_.end(),
                     [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  }
  k.names_ = std::move(text);
  return k;
}

bool Kallsyms::covers_core(uint64_t addr) const {
  return addr != 0 && core_start_ != 0 && core_start_ < core_end_ && addr - 1 >= core_start_ &&
         addr - 1 < core_end_;
}

std::string Kallsyms::core_text(std::string_view header) const {
  std::string out(header);
  out += '\n';
  size_t n = 0;
  char addr[24];
  for (const Symbol& s : symbols_) {
    if (s.address < core_start_ || s.address > core_end_) continue;
    std::snprintf(addr, sizeof addr, "%016llx t ", static_cast<unsigned long long>(s.address));
    out += addr;
    out.append(names_, s.name, s.length);
    out += '\n';
    ++n;
  }
  out += "# end " + std::to_string(n) + "\n";
  return out;
}

Result<Kallsyms> Kallsyms::parse_core_text(std::string text, std::string_view header) {
  const size_t first = text.find('\n');
  if (first == std::string::npos || std::string_view(text).substr(0, first) != header)
    return fail("line 1: not the kernel symbols of this boot");
  if (text.size() > UINT32_MAX) return fail("larger than 4 GiB");
  if (!text.ends_with('\n')) return fail("cut short: no end line");
  const size_t last = text.rfind('\n', text.size() - 2);
  if (last == std::string::npos || last < first) return fail("cut short: no end line");
  const std::string_view end = std::string_view(text).substr(last + 1, text.size() - last - 2);
  // One pass that checks every line is exactly as core_text() writes it ("%016llx t NAME", NAME
  // without blanks or control characters: a cache must refuse what parse() alone would skip)
  // and indexes it. The names stay where they are in TEXT, which the table keeps: a warm
  // start-up neither copies the 5 MB nor grows a table by doubling.
  const size_t body_begin = first + 1, body_end = last + 1;
  Kallsyms k;
  k.symbols_.reserve(
      static_cast<size_t>(std::count(text.begin() + static_cast<ptrdiff_t>(body_begin),
                                     text.begin() + static_cast<ptrdiff_t>(body_end), '\n')));
  size_t lines = 0;
  bool sorted = true;
  for (size_t at = body_begin; at < body_end; ++lines) {
    const size_t nl = text.find('\n', at);
    const std::string_view line(text.data() + at, nl - at);
    const size_t line_at = at;
    at = nl + 1;
    bool ok = line.size() > 19 && line.size() <= 19 + 1024 && line.substr(16, 3) == " t ";
    uint64_t address = 0;
    if (ok) {
      // Branch-free over the line (the compiler vectorizes the name's loop): ~100,000 lines.
      unsigned bad = 0;
      for (size_t i = 0; i < 16; ++i) {
        const unsigned c = static_cast<unsigned char>(line[i]);  // unsigned: c - '0' wraps
        const unsigned digit = c - '0' <= 9u ? c - '0' : c - 'a' <= 5u ? c - 'a' + 10 : 16;
        bad |= digit >> 4;
        address = address << 4 | (digit & 0xf);
      }
      for (size_t i = 19; i < line.size(); ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        bad |= static_cast<unsigned>(c <= ' ') | static_cast<unsigned>(c == 0x7f);
      }
      ok = bad == 0;
    }
    if (!ok || address == 0) return fail("damaged: line " + std::to_string(lines + 2));
    const std::string_view name = line.substr(19);
    if (name == "_stext" && k.core_start_ == 0) k.core_start_ = address;
    if (name == "_etext" && k.core_end_ == 0) k.core_end_ = address;
    if (!k.symbols_.empty() && address < k.symbols_.back().address) sorted = false;
    k.symbols_.push_back(
        {address, static_cast<uint32_t>(line_at + 19), static_cast<uint32_t>(name.size())});
  }
  if (k.symbols_.empty()) return fail("no symbols");
  if (!sorted) {  // core_text() writes them sorted; an edited file may not be
    std::stable_sort(k.symbols_.begin(), k.symbols_.end(),
                     [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  }
  k.names_ = std::move(text);
  if (end != "# end " + std::to_string(lines) || k.size() != lines || !k.covers_core(k.core_end_))
    return fail("damaged: the end line does not count the symbols");
  if (k.symbols_.front().address < k.core_start_ || k.symbols_.back().address > k.core_end_)
    return fail("damaged: a symbol outside the core kernel text");
  return k;
}

std::string_view Kallsyms::name_of_return_address(uint64_t addr) const {
  if (addr == 0) return {};
  uint64_t at = addr - 1;
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), at,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return {};
  --it;
  // Aliases share an address: the kernel's own lookup (/proc/PID/stack) names the first one
  // listed, and the stable sort kept the file's order.
  while (it != symbols_.begin() && std::prev(it)->address == it->address) --it;
  return std::string_view(names_).substr(it->name, it->length);
}

}  // namespace hearth::proc
