// Fuzz target for eu-stack's text (render/profile/eu_stack_text.h): any bytes through the
// folder, and through the folded reader that detects the format (InputFormat::kAuto).
//
// Invariants checked (abort with context on failure):
// - every line the folder emits is one folded stack: "[ROOT];FRAME;… 1", a root in brackets, at
//   least one frame, no frame empty, no newline or NUL;
// - one emitted line per thread block that has a frame (threads() counts them);
// - the reader given the same text as eu-stack's (kEuStack) counts exactly those stacks, each once.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/profile/eu_stack_text.h"
#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace {

namespace profile = hearth::profile;

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "eu_stack_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_line(std::string_view l) {
  if (!l.starts_with('[') || !l.ends_with(" 1")) die("not a folded line with count 1", l);
  if (l.find('\n') != std::string_view::npos || l.find('\0') != std::string_view::npos) {
    die("newline or NUL in a folded line", l);
  }
  std::string_view stack = l.substr(0, l.size() - 2);
  size_t semi = stack.find(';');
  if (semi == std::string_view::npos) die("a stack without a frame", l);
  if (stack.substr(0, semi).back() != ']') die("root not in brackets", l);
  for (size_t i = 0; i + 1 < stack.size(); ++i) {
    if (stack[i] == ';' && stack[i + 1] == ';') die("an empty frame", l);
  }
  if (stack.back() == ';') die("an empty last frame", l);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t emitted = 0;
  profile::EuStackFolder folder([&](std::string_view l) {
    check_line(l);
    ++emitted;
  });
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    folder.add_line(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  folder.finish();
  if (emitted != folder.threads()) die("threads() is not the lines emitted", text);

  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = profile::InputFormat::kEuStack});
  reader.read_text(text);
  tree.finalize();
  if (reader.eu_stack_threads() != emitted)
    die("the reader folded another number of threads", text);
  if (reader.stats().lines != emitted) die("the reader added another number of stacks", text);

  profile::FrameTree auto_tree;
  profile::FoldedReader auto_reader(auto_tree, {});
  auto_reader.read_text(text);  // detection: must not crash or trip a check
  auto_tree.finalize();
  return 0;
}
