// Fuzz target for `perf script`'s text (render/profile/perf_script.h): any bytes through the
// folder, and through the folded reader, forced (kPerfScript) and detecting the format (kAuto).
//
// Invariants checked (abort with context on failure):
// - every line the folder emits is one folded stack: "[ROOT];FRAME;… COUNT" (or "[ROOT] COUNT"),
//   a root in brackets, no frame empty, no newline or NUL, COUNT a whole number above 0;
// - one emitted line per sample counted (samples());
// - the reader given the same text as perf script's counts exactly those stacks;
// - in time (perf_script_timed.h): an error exactly when no sample with a time was emitted; else
//   one round per such sample (those without a time counted), one thread in each, times from 0,
//   not decreasing.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"
#include "render/profile/perf_script.h"
#include "render/profile/perf_script_timed.h"

namespace {

namespace profile = hearth::profile;

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "perf_script_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_folded(std::string_view l) {
  if (l.find('\n') != std::string_view::npos || l.find('\0') != std::string_view::npos) {
    die("newline or NUL in a folded line", l);
  }
  size_t blank = l.rfind(' ');
  if (blank == std::string_view::npos) die("no count", l);
  std::string_view count = l.substr(blank + 1);
  if (count.empty() || count == "0" || count.front() == '0') die("a count that is not 1+", l);
  for (char c : count) {
    if (c < '0' || c > '9') die("a count that is not a whole number", l);
  }
  std::string_view stack = l.substr(0, blank);
  if (!stack.starts_with('[')) die("root not in brackets", l);
  size_t semi = stack.find(';');
  if (stack.substr(0, semi).back() != ']') die("root not in brackets", l);
  for (size_t i = 0; i + 1 < stack.size(); ++i) {
    if (stack[i] == ';' && stack[i + 1] == ';') die("an empty frame", l);
  }
  if (stack.back() == ';') die("an empty last frame", l);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t emitted = 0, untimed = 0;
  profile::PerfScriptFolder folder([&](std::string_view l, int64_t time_ns) {
    check_folded(l);
    ++emitted;
    if (time_ns < 0) ++untimed;
  });
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    folder.add_line(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  folder.finish();
  if (emitted != folder.samples()) die("samples() is not the lines emitted", text);

  profile::FrameTree tree;
  profile::FoldedReader reader(tree, {.format = profile::InputFormat::kPerfScript});
  reader.read_text(text);
  tree.finalize();
  if (reader.perf_script().samples != emitted) die("the reader folded another number", text);
  if (reader.stats().overflow_line == 0 && reader.stats().lines != emitted) {
    die("the reader added another number of stacks", text);
  }

  profile::FrameTree auto_tree;
  profile::FoldedReader auto_reader(auto_tree, {});
  auto_reader.read_text(text);  // detection: must not crash or trip a check
  auto_tree.finalize();

  auto timed = profile::perf_script_timed(text, "fuzz");
  const uint64_t timed_emitted = emitted - untimed;
  if (!timed) {
    if (timed_emitted != 0) die("in time: an error on timed samples", text);
    return 0;
  }
  if (timed_emitted == 0) die("in time: no error without timed samples", text);
  if (timed->untimed_samples != untimed) die("in time: another count of untimed samples", text);
  const hearth::timed_samples::Samples& ts = timed->samples;
  if (ts.rounds.size() != timed_emitted) die("in time: not one round per timed sample", text);
  if (ts.rounds.front().time_ns != 0) die("in time: time 0 is not the first sample's", text);
  for (size_t i = 1; i < ts.rounds.size(); ++i) {
    if (ts.rounds[i].time_ns < ts.rounds[i - 1].time_ns) die("in time: time goes back", text);
  }
  size_t rounds = 0;
  hearth::timed_samples::expand(ts, [&](size_t, std::span<const hearth::timed_samples::Sample> th) {
    if (th.size() != 1 || th[0].state != 'R') die("in time: a round not of one thread in R", text);
    ++rounds;
  });
  if (rounds != timed_emitted) die("in time: expand() saw another number of rounds", text);
  return 0;
}
