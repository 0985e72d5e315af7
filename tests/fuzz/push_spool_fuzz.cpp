// Fuzz target for `hearth push`'s spool entries (push/spool.h, decode_entry): read back from
// files a damaged disk, a killed run or a hand could have left anything in.
//
// Invariants checked (abort with context on failure):
// - reading never crashes, whatever the bytes;
// - an entry that reads has a server and a target starting with '/', and written again reads
//   back as the same entry, byte for byte.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "push/spool.h"

namespace {

[[noreturn]] void push_spool_die(const char* what) {
  std::fprintf(stderr, "push_spool_fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto entry = hearth::push::decode_entry(bytes);
  if (!entry) return 0;
  if (entry->url.empty() || entry->target.empty() || entry->target[0] != '/') {
    push_spool_die("an entry read without a server or a target");
  }
  if (hearth::push::encode_entry(*entry) != bytes) push_spool_die("written again, it differs");
  return 0;
}
