// Fuzz target for the Java class-name reader (collectors/alloc/jvm_class_name.h): any bytes, as
// the object__alloc probe may hand over a truncated or odd name.
//
// Invariants checked (abort with context on failure):
// - reading never crashes, whatever the bytes;
// - no '/' is left (package separators become '.');
// - a name that is no array ('[' first) keeps its length; an array's name is no longer than the
//   descriptor plus two bytes a dimension plus a primitive's name, and ends in "[]" when the
//   descriptor was well-formed (its element changed).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "collectors/alloc/jvm_class_name.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string out = hearth::alloc::java_class_name(in);
  auto fail = [&](const char* what) {
    std::fprintf(stderr, "java_class_fuzz: %s (input %zu bytes, output '%s')\n", what, size,
                 out.c_str());
    std::abort();
  };
  if (out.find('/') != std::string::npos) fail("a '/' left");
  size_t dims = 0;
  while (dims < in.size() && in[dims] == '[') ++dims;
  if (dims == 0 && out.size() != in.size()) fail("a plain name changed length");
  if (dims > 0 && out.size() > in.size() + 2 * dims + 8) fail("an array's name grew too much");
  if (dims > 0 && out.size() != in.size() && !out.ends_with("[]")) fail("no [] at the end");
  return 0;
}
