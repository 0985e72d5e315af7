// An entry of the on-disk symbol cache (README, "The symbol cache"): the names the stack
// symbolizer gave to addresses of one ELF file, so that the next run answers them without
// opening the file's symbol tables or DWARF. One writer (collectors/stacks' symbol cache), one
// reader (the same), both here. Thread-compatible: no shared state.
//
//   # hearth symbol cache 1
//   identity	v1 93ac61ec…|libc.so.6|pit|2125328:1700000000000000000|…
//   a	8c3f1	F__pthread_cond_wait	I__pthread_cond_wait_common	I__futex_abstimed_wait_common
//   t	29d8f	5f2e0c9a1b7d3e44	91a0	Fouter_tail_callee
//   end	2
//
// `a`: a file offset (hex) and its frames, outermost first, each F (a function) or I (inlined
// into the one before). `t`: the functions that left by a tail call between the caller at a
// file offset of this file and a callee (the hash of its module's identity, its file offset):
// zero or more F frames. `end` counts the `a` and `t` lines: an entry cut short is refused.
// Names and the identity are escaped: backslash, tab and line feed as \\ \t \n.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace hearth::symbol_cache {

inline constexpr std::string_view kMagic = "# hearth symbol cache 1";
// Bounds the reader enforces (and the writer keeps to, dropping what does not fit).
inline constexpr size_t kMaxNameBytes = 16 << 10;
inline constexpr size_t kMaxFramesPerLine = 256;
inline constexpr size_t kMaxLines = 1 << 18;
inline constexpr size_t kMaxIdentityBytes = 16 << 10;

struct CachedFrame {
  std::string name;      // never empty
  bool inlined = false;  // inlined into the frame before it
};

struct Address {
  uint64_t offset = 0;               // file offset of the looked-up address
  std::vector<CachedFrame> frames;   // outermost first, at least one
};

struct TailCall {
  uint64_t caller_offset = 0;        // file offset of the caller's return address - 1
  uint64_t callee_module = 0;        // identity_hash() of the callee's module
  uint64_t callee_offset = 0;        // file offset of the callee's looked-up address
  std::vector<std::string> frames;   // outermost first; may be empty (none found)
};

struct Entry {
  // What the names were made from (build-id, file, options, debug files): a reader uses the
  // entry only when it equals the identity it expects.
  std::string identity;
  std::vector<Address> addresses;
  std::vector<TailCall> tails;
};

// 64-bit FNV-1a of an identity: how `t` lines name the callee's module.
uint64_t identity_hash(std::string_view identity);

// The entry as text. Addresses or tails whose names break the bounds above are left out.
std::string write_text(const Entry& entry);

// Parses an entry. Any damage (bad magic, bad line, bounds, a missing or wrong `end`) fails,
// naming the line: the caller treats the entry as absent and rebuilds it.
Result<Entry> parse(std::string_view text);

}  // namespace hearth::symbol_cache
