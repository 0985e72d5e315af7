// Fuzz target for gdb's `thread apply all bt` text (render/profile/gdb_text.h): any bytes through
// the folder, and through the folded reader as gdb's text and with detection; the invariants
// are thread_text_fuzz.h's.
#include "render/profile/gdb_text.h"
#include "tests/fuzz/thread_text_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace profile = hearth::profile;
  return hearth::fuzzing::fuzz_thread_text<profile::GdbTextFolder>(
      "gdb_text_fuzz", data, size, profile::InputFormat::kGdb,
      [](const profile::FoldedReader& r) { return r.gdb_threads(); });
}
