// Fuzz target for the JIT perf-map reader (collectors/stacks/perf_map.h): any text, read in one
// go or in two parts (a map read again after it grew).
//
// Invariants checked (abort with context on failure):
// - reading never crashes, whatever the bytes;
// - the ranges kept never overlap, and a lookup finds the range that holds the address: for
//   every line that parsed, its start is named by that line or by a later one that covers it
//   (the later line wins), checked against a plain replay of the lines in order.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/stacks/perf_map.h"

namespace {

struct Line {
  uint64_t start, end;
  std::string name;
};

// The same grammar as the reader, written plainly: "START SIZE NAME", hex, optional 0x.
bool parse(std::string_view l, Line* out) {
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  const size_t a = l.find(' ');
  const size_t b = a == std::string_view::npos ? a : l.find(' ', a + 1);
  if (b == std::string_view::npos || b + 1 >= l.size()) return false;
  auto hex = [](std::string_view s, uint64_t* v) {
    if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
    if (s.empty()) return false;
    *v = 0;
    for (char c : s) {
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0 || (*v >> 60) != 0) return false;  // not hex, or past 64 bits
      *v = *v * 16 + static_cast<uint64_t>(d);
    }
    return true;
  };
  uint64_t start = 0, size = 0;
  if (!hex(l.substr(0, a), &start) || !hex(l.substr(a + 1, b - a - 1), &size)) return false;
  if (size == 0 || start + size < start) return false;
  *out = {start, start + size, std::string(l.substr(b + 1))};
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  hearth::stacks::JitSymbols symbols;
  // Two reads when the input has a form feed: the map as first seen, then what was appended.
  std::vector<std::string_view> parts;
  const size_t cut = text.find('\f');
  if (cut == std::string_view::npos) {
    parts = {text};
  } else {
    parts = {text.substr(0, cut), text.substr(cut + 1)};
  }
  std::vector<Line> lines;
  for (std::string_view part : parts) {
    symbols.add_text(part);
    while (!part.empty()) {
      const size_t nl = part.find('\n');
      Line l;
      if (parse(part.substr(0, nl), &l)) lines.push_back(l);
      part.remove_prefix(nl == std::string_view::npos ? part.size() : nl + 1);
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    // The last line covering this start names it.
    const std::string* want = nullptr;
    for (size_t j = i; j < lines.size(); ++j)
      if (lines[j].start <= lines[i].start && lines[i].start < lines[j].end) want = &lines[j].name;
    const std::string* got = symbols.lookup(lines[i].start);
    if (got == nullptr || *got != *want) {
      std::fprintf(stderr, "line %zu (start %llx): want \"%s\", got \"%s\"\n", i,
                   static_cast<unsigned long long>(lines[i].start), want->c_str(),
                   got ? got->c_str() : "(nothing)");
      std::abort();
    }
  }
  return 0;
}
