// Fuzz target for `hearth replay` over whatever the timed samples reader accepts
// (render/replay: the sample window, the transport and its key decoder, the screen).
//
// Input: a timed samples file's text; its own bytes, fed to the key decoder, are the keys
// typed (a stream of spaces, brackets, digits, escape sequences…), with time passing between
// them. Invariants checked (abort with context on failure; the window's own CHECKs too):
// - the window's counts add up to its total, and equal a recount after a jump;
// - the transport stays in its range and its speed in its bounds;
// - the screen has at most ROWS lines, none wider than COLS.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "formats/timed_samples.h"
#include "render/replay/replay_screen.h"
#include "render/replay/sample_window.h"
#include "render/replay/transport.h"

namespace {

using hearth::replay::SampleWindow;

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "replay_fuzz: %s\n--- (%zu bytes)\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

uint64_t sum_of(const SampleWindow& w) {
  uint64_t sum = 0;
  for (const SampleWindow::Entry& e : w.top(SIZE_MAX)) sum += e.count;
  return sum;
}

void check_screen(const std::string& screen, int cols, int rows) {
  int lines = 0;
  size_t start = 0;
  for (size_t nl; (nl = screen.find('\n', start)) != std::string::npos; start = nl + 1) {
    ++lines;
    if (nl - start > static_cast<size_t>(cols)) die("a line wider than the terminal", screen);
  }
  if (lines > rows) die("more lines than the terminal has", screen);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = hearth::timed_samples::parse(text, "in/stacks.samples.txt");
  if (!parsed || parsed->rounds.empty()) return 0;
  const hearth::timed_samples::Samples& s = *parsed;
  std::vector<uint64_t> times;
  for (const auto& r : s.rounds) times.push_back(r.time_ns);
  const uint64_t window_ns = size % 3 == 0 ? 0 : 1 + size % 700'000'000;
  // Half way in, sometimes (the first of the rounds at that time, as --from picks it).
  size_t first = 0;
  if (size % 5 == 0) {
    uint64_t mid = times[times.size() / 2];
    first = static_cast<size_t>(std::lower_bound(times.begin(), times.end(), mid) - times.begin());
  }
  SampleWindow window(s, window_ns, first);
  hearth::replay::Transport transport(
      times, {.begin_ns = times[first], .end_ns = times.back(), .loop = size % 2 == 0});
  hearth::replay::KeyDecoder keys;
  size_t step = 0;
  for (size_t at = 0; at < size && step < 400; at += 7, ++step) {
    for (const auto& k : keys.feed(text.substr(at, 7))) transport.press(k);
    transport.advance(0.001 * static_cast<double>(data[at] % 97));
    if (transport.position_ns() < transport.begin_ns() ||
        transport.position_ns() > transport.end_ns()) {
      die("the transport left its range");
    }
    if (!(transport.speed() >= transport.kMinSpeed && transport.speed() <= transport.kMaxSpeed))
      die("speed out of bounds");
    window.seek(transport.round());
    if (sum_of(window) != window.total()) die("the counts do not add up to the total");
  }
  // After all those moves, the same counts as a window that went straight there.
  SampleWindow fresh(s, window_ns, first);
  fresh.seek(window.round());
  if (fresh.total() != window.total() || fresh.top(SIZE_MAX).size() != window.top(SIZE_MAX).size())
    die("moving around changed the counts");
  for (int cols : {20, 80}) {
    for (int rows : {3, 24}) {
      check_screen(hearth::replay::replay_screen(s, window, &transport, window_ns, cols, rows),
                   cols, rows);
    }
  }
  return 0;
}
