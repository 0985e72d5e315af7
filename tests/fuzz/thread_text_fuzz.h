// What the fuzz targets of the thread-block texts (gdb's `thread apply all bt`, eu-stack's) share:
// any bytes through the text's folder, then through the folded reader forced to that format and
// with detection (InputFormat::kAuto).
//
// Invariants checked (abort with context on failure):
// - every line the folder emits is one folded stack: "[ROOT];FRAME;… 1", a root in brackets, at
//   least one frame, no frame empty, no newline or NUL;
// - one emitted line per thread block that has a frame (threads() counts them);
// - the reader given the same text as that format counts exactly those stacks, each once.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace hearth::fuzzing {

[[noreturn]] inline void thread_text_die(const char* target, const char* what,
                                         std::string_view detail) {
  std::fprintf(stderr, "%s: %s\n--- (%zu bytes)\n%.*s\n", target, what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void check_thread_text_line(const char* target, std::string_view l) {
  auto die = [&](const char* what) { thread_text_die(target, what, l); };
  if (!l.starts_with('[') || !l.ends_with(" 1")) die("not a folded line with count 1");
  if (l.find('\n') != std::string_view::npos || l.find('\0') != std::string_view::npos) {
    die("newline or NUL in a folded line");
  }
  std::string_view stack = l.substr(0, l.size() - 2);
  size_t semi = stack.find(';');
  if (semi == std::string_view::npos) die("a stack without a frame");
  if (stack.substr(0, semi).back() != ']') die("root not in brackets");
  for (size_t i = 0; i + 1 < stack.size(); ++i) {
    if (stack[i] == ';' && stack[i + 1] == ';') die("an empty frame");
  }
  if (stack.back() == ';') die("an empty last frame");
}

// FOLDER: the text's folder type (add_line, finish, threads()); FORMAT: the reader's format for
// it; READER_THREADS(reader): the threads the reader folded.
template <class Folder, class ReaderThreads>
int fuzz_thread_text(const char* target, const uint8_t* data, size_t size,
                     profile::InputFormat format, ReaderThreads reader_threads) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t emitted = 0;
  Folder folder([&](std::string_view l) {
    check_thread_text_line(target, l);
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
  if (emitted != folder.threads())
    thread_text_die(target, "threads() is not the lines emitted", text);

  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = format});
  reader.read_text(text);
  tree.finalize();
  if (reader_threads(reader) != emitted)
    thread_text_die(target, "the reader folded another number of threads", text);
  if (reader.stats().lines != emitted)
    thread_text_die(target, "the reader added another number of stacks", text);

  profile::FrameTree auto_tree;
  profile::FoldedReader auto_reader(auto_tree, {});
  auto_reader.read_text(text);  // detection: must not crash or trip a check
  auto_tree.finalize();
  return 0;
}

}  // namespace hearth::fuzzing
