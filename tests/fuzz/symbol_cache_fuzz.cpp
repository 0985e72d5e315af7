// Fuzz target for the symbol cache's readers: an entry (formats/symbol_cache.h) and the kernel
// symbols' core text (collectors/proc/kallsyms.h, parse_core_text), both read from files a
// damaged disk or a bug could have left anything in.
//
// Invariants checked (abort with context on failure):
// - reading never crashes, whatever the bytes;
// - an entry that parses keeps the bounds (names non-empty and at most kMaxNameBytes, frames
//   per line at most kMaxFramesPerLine), and writes back to text that parses to the same entry;
// - a core text that parses (its first line as the expected header) names the core addresses
//   it covers, and written again parses again with the same number of symbols.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "collectors/proc/kallsyms.h"
#include "formats/symbol_cache.h"

namespace {

namespace sc = hearth::symbol_cache;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "symbol_cache_fuzz: %s\n", what);
  std::abort();
}

bool same(const sc::Entry& a, const sc::Entry& b) {
  if (a.identity != b.identity || a.addresses.size() != b.addresses.size() ||
      a.tails.size() != b.tails.size())
    return false;
  for (size_t i = 0; i < a.addresses.size(); ++i) {
    const sc::Address& x = a.addresses[i];
    const sc::Address& y = b.addresses[i];
    if (x.offset != y.offset || x.frames.size() != y.frames.size()) return false;
    for (size_t j = 0; j < x.frames.size(); ++j)
      if (x.frames[j].name != y.frames[j].name || x.frames[j].inlined != y.frames[j].inlined)
        return false;
  }
  for (size_t i = 0; i < a.tails.size(); ++i) {
    const sc::TailCall& x = a.tails[i];
    const sc::TailCall& y = b.tails[i];
    if (x.caller_offset != y.caller_offset || x.callee_module != y.callee_module ||
        x.callee_offset != y.callee_offset || x.frames != y.frames)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto entry = sc::parse(text)) {
    for (const sc::Address& a : entry->addresses) {
      if (a.frames.empty() || a.frames.size() > sc::kMaxFramesPerLine) die("frames out of bounds");
      for (const sc::CachedFrame& f : a.frames)
        if (f.name.empty() || f.name.size() > sc::kMaxNameBytes) die("name out of bounds");
    }
    auto again = sc::parse(sc::write_text(*entry));
    if (!again) die(("written entry does not parse: " + again.error().message).c_str());
    if (!same(*entry, *again)) die("written entry parses to another entry");
  }
  const size_t nl = text.find('\n');
  const std::string_view header = text.substr(0, nl == std::string_view::npos ? 0 : nl);
  if (auto core = hearth::proc::Kallsyms::parse_core_text(std::string(text), header)) {
    if (!core->has_core()) die("core text without a core range");
    auto again = hearth::proc::Kallsyms::parse_core_text(core->core_text(header), header);
    if (!again) die(("written core text does not parse: " + again.error().message).c_str());
    if (again->size() != core->size()) die("written core text has another size");
  }
  return 0;
}
