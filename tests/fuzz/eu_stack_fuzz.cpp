// Fuzz target for eu-stack's text (render/profile/eu_stack_text.h): any bytes through the
// folder, and through the folded reader as eu-stack's text and with detection; the invariants
// are thread_text_fuzz.h's.
#include "render/profile/eu_stack_text.h"
#include "tests/fuzz/thread_text_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace profile = hearth::profile;
  return hearth::fuzzing::fuzz_thread_text<profile::EuStackFolder>(
      "eu_stack_fuzz", data, size, profile::InputFormat::kEuStack,
      [](const profile::FoldedReader& r) { return r.eu_stack_threads(); });
}
