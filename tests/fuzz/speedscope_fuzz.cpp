// Fuzz target for the speedscope reader (render/profile/speedscope_reader.h): any bytes as a
// speedscope file, read by the folded reader as `hearth flame` reads a .speedscope.json, with a
// 1 MiB limit.
//
// Invariants checked (abort with context on failure):
// - a file that is not valid adds nothing: no stack, no node; its error is one line;
// - a valid one adds one stack per stack the reader reports, and no frame name holds ';' or a
//   line break;
// - writing the tree as speedscope and reading that back gives the same folded stacks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "render/profile/speedscope_reader.h"
#include "render/profile/speedscope_writer.h"

namespace {

namespace profile = hearth::profile;

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "speedscope_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

constexpr size_t kLimit = 1 << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.max_speedscope_bytes = kLimit});
  auto r = reader.read_speedscope(bytes, "fuzz");
  tree.finalize();
  if (!r) {
    if (r.error().message.find('\n') != std::string::npos) die("an error of two lines", bytes);
    if (tree.size() != 1 || reader.stats().lines != 0) die("a bad file added stacks", bytes);
    return 0;
  }
  uint64_t stacks = 0;
  auto stats = profile::read_speedscope(
      bytes, [&](std::span<const std::string_view> frames, profile::Count) {
        ++stacks;
        for (std::string_view f : frames) {
          if (f.find_first_of(";\n\r") != std::string_view::npos) die("a frame name with ';'", f);
        }
      });
  if (!stats) die("read_speedscope refuses what the folded reader took", bytes);
  if (stats->stacks != stacks) die("stats' stacks are not the stacks given", bytes);
  if (reader.stats().lines + reader.stats().overlong != stacks) {
    die("the reader added another number of stacks", bytes);
  }
  // The round trip (names came from JSON: valid UTF-8, kept as they are); a whole-count overflow
  // makes the counts wrong on both sides.
  if (tree.overflowed()) return 0;
  auto written = profile::to_speedscope(tree);
  if (!written) die("a tree of one column not written", bytes);
  profile::FrameTree back;
  profile::FoldedReader back_reader(back, {});
  if (!back_reader.read_speedscope(*written, "back")) die("hearth's own file refused", *written);
  back.finalize();
  if (profile::to_folded(back) != profile::to_folded(tree)) {
    die("speedscope -> tree -> speedscope changed stacks", bytes);
  }
  return 0;
}
