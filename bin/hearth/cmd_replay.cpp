#include "bin/hearth/cmd_replay.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "bin/hearth/input_checks.h"
#include "bin/hearth/seconds.h"
#include "bin/hearth/terminal.h"
#include "common/atomic_file.h"
#include "common/shutdown.h"
#include "formats/timed_samples.h"
#include "render/profile/process_names.h"
#include "render/replay/replay_screen.h"
#include "render/replay/sample_window.h"
#include "render/replay/transport.h"

namespace hearth::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kNsPerS = 1e9;
// Redraws while playing: 25 a second (a sample every 10 ms at -F 100 and x4 still moves
// smoothly); paused, only keys wake it.
constexpr int kPlayingTickMs = 40;
constexpr int kPausedTickMs = 250;
// Printed once: every stack and every thread, nothing cut.
constexpr int kPlainCols = 1 << 20;
constexpr int kPlainRows = 1 << 20;

std::string secs(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / kNsPerS);
  return buf;
}

// The file to replay: INPUT itself, or in a report directory its timed samples, else its raw
// samples.
Result<std::string> samples_file(const std::string& input) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;
  for (const char* name : {"stacks.samples.txt", "stacks.raw.txt"}) {
    fs::path p = fs::path(input) / name;
    if (fs::exists(p, ec)) return p.string();
  }
  return fail(input + ": no stacks.samples.txt or stacks.raw.txt in it (recorded by `hearth " +
              "record`, or `hearth stacks --raw FILE`)");
}

// Plays the recording on the terminal until q, Ctrl-C or another signal.
void play(const timed_samples::Samples& samples, replay::SampleWindow* window,
          const replay::TransportOptions& options, uint64_t window_ns, Terminal* term) {
  std::vector<uint64_t> times;
  times.reserve(samples.rounds.size());
  for (const timed_samples::Round& r : samples.rounds) times.push_back(r.time_ns);
  replay::Transport transport(times, options);
  replay::KeyDecoder keys;
  std::string shown;
  int shown_cols = 0, shown_rows = 0;
  auto last = Clock::now();
  while (!transport.quit() && !shutdown_requested()) {
    std::string typed;
    for (char c; (c = term->read_key()) != 0;) typed += c;
    for (const replay::KeyPress& k : typed.empty() ? keys.flush() : keys.feed(typed))
      transport.press(k);
    if (transport.quit()) break;
    auto now = Clock::now();
    transport.advance(std::chrono::duration<double>(now - last).count());
    last = now;
    window->seek(transport.round());
    int cols, rows;
    term->size(&cols, &rows);
    std::string text = replay::replay_screen(samples, *window, &transport, window_ns, cols, rows);
    if (text != shown || cols != shown_cols || rows != shown_rows) {
      term->show(text);
      shown = std::move(text);
      shown_cols = cols;
      shown_rows = rows;
    }
    term->wait_for_key(transport.paused() ? kPausedTickMs : kPlayingTickMs);
  }
}

}  // namespace

std::vector<std::string> validate_replay(const ReplayArgs& a) {
  std::vector<std::string> problems;
  if (a.input.empty()) problems.push_back("give a report directory or a samples file");
  if (!(a.speed >= replay::Transport::kMinSpeed && a.speed <= replay::Transport::kMaxSpeed))
    problems.push_back("--speed must be between 1/64 and 64");
  auto check_time = [&](const char* option, double s) {
    if (given(s) && !(s >= 0 && s <= kMaxSeconds))
      problems.push_back(std::string(option) +
                         " must be seconds since the recording's start (0 or more)");
  };
  check_time("--from", a.from);
  check_time("--to", a.to);
  check_time("--at", a.at);
  if (given(a.from) && given(a.to) && a.from > a.to)
    problems.push_back("--from must not be after --to");
  if (given(a.at) && given(a.from) && a.at < a.from)
    problems.push_back("--at must not be before --from");
  if (given(a.at) && given(a.to) && a.at > a.to) problems.push_back("--at must not be after --to");
  if (!(a.window >= 0 && a.window <= kMaxSeconds))
    problems.push_back("--window must be 0 or more seconds");
  return problems;
}

int run_replay(const ReplayArgs& a) {
  std::vector<std::string> problems = validate_replay(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth replay: %s\n", p.c_str());
    return 2;
  }
  auto path = samples_file(a.input);
  if (!path) {
    std::fprintf(stderr, "hearth replay: %s\n", path.error().message.c_str());
    return 2;
  }
  if (!a.output.empty() && !outputs_are_new("replay", {*path}, {a.output})) return 2;
  auto read = timed_samples::read(*path);
  if (!read) {
    std::fprintf(stderr, "hearth replay: %s\n", read.error().message.c_str());
    return 2;
  }
  profile::title_process_roots(&*read);  // processes by their titles, as the other pictures
  const timed_samples::Samples& samples = *read;
  if (samples.rounds.empty()) {
    std::fprintf(
        stderr, "hearth replay: %s\n",
        samples.damage.empty() ? (*path + ": no samples in it").c_str() : samples.damage.c_str());
    return 2;
  }
  std::string warning;
  if (!samples.damage.empty()) {
    warning = "hearth replay: warning: " + samples.damage + "; replaying the " +
              std::to_string(samples.rounds.size()) + " samples before it (to +" +
              secs(samples.rounds.back().time_ns) + " s)\n";
    std::fputs(warning.c_str(), stderr);
  }

  // The range replayed: its first and last rounds.
  const auto& rounds = samples.rounds;
  auto by_time = [](const timed_samples::Round& r, uint64_t t) { return r.time_ns < t; };
  uint64_t from = given(a.from) ? seconds_to_ns(a.from) : rounds.front().time_ns;
  uint64_t to = given(a.to) ? seconds_to_ns(a.to) : rounds.back().time_ns;
  size_t first = static_cast<size_t>(std::lower_bound(rounds.begin(), rounds.end(), from, by_time) -
                                     rounds.begin());
  size_t end = static_cast<size_t>(
      std::upper_bound(rounds.begin(), rounds.end(), to,
                       [](uint64_t t, const timed_samples::Round& r) { return t < r.time_ns; }) -
      rounds.begin());
  if (first >= end) {
    std::string asked =
        "from " + secs(from) + " s to " + (given(a.to) ? secs(to) + " s" : "the end");
    std::fprintf(stderr, "hearth replay: %s: no sample %s: the recording spans %s to %s s\n",
                 path->c_str(), asked.c_str(), secs(rounds.front().time_ns).c_str(),
                 secs(rounds.back().time_ns).c_str());
    return 2;
  }
  const size_t last = end - 1;
  size_t at_round = last;
  if (given(a.at)) {
    uint64_t at = seconds_to_ns(a.at);
    if (at > rounds[last].time_ns) {
      std::fprintf(stderr,
                   "hearth replay: %s: --at %s s is after the last sample replayed (%s s)\n",
                   path->c_str(), secs(at).c_str(), secs(rounds[last].time_ns).c_str());
      return 2;
    }
    size_t after = static_cast<size_t>(
        std::upper_bound(rounds.begin(), rounds.end(), at,
                         [](uint64_t t, const timed_samples::Round& r) { return t < r.time_ns; }) -
        rounds.begin());
    at_round = std::clamp(after == 0 ? 0 : after - 1, first, last);
  }
  const uint64_t window_ns = seconds_to_ns(a.window);
  replay::SampleWindow window(samples, window_ns, first);

  install_shutdown_handlers();
  bool played = false;
  if (a.output.empty() && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
    Terminal term;
    if (term.active()) {
      replay::TransportOptions o{.begin_ns = rounds[first].time_ns,
                                 .end_ns = rounds[last].time_ns,
                                 .speed = a.speed,
                                 .loop = a.loop,
                                 .paused = given(a.at)};
      if (given(a.at)) o.start_ns = rounds[at_round].time_ns;
      play(samples, &window, o, window_ns, &term);
      played = true;
    }
  }
  if (played) {
    if (!warning.empty()) std::fputs(warning.c_str(), stderr);  // again: the replay hid it
    return 0;
  }
  window.seek(at_round);
  std::string text =
      replay::replay_screen(samples, window, nullptr, window_ns, kPlainCols, kPlainRows);
  auto written = write_file_atomically(a.output.empty() ? "-" : a.output, text);
  if (!written) {
    std::fprintf(stderr, "hearth replay: %s\n", written.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace hearth::cli
