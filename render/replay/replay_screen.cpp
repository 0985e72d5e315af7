#include "render/replay/replay_screen.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#include "render/live/live_view.h"

namespace hearth::replay {
namespace {

constexpr double kNsPerS = 1e9;

std::string seconds(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / kNsPerS);
  return buf;
}

std::string speed_text(double speed) {
  char buf[32];
  if (speed < 1) {
    std::snprintf(buf, sizeof buf, "x1/%.0f", 1 / speed);
  } else {
    std::snprintf(buf, sizeof buf, "x%.0f", speed);
  }
  return buf;
}

// Threads in uninterruptible sleep first (I/O, the kernel's locks), then those running: where
// an SRE looks first.
int state_rank(char state) {
  if (state == 'D') return 0;
  if (state == 'R') return 1;
  return 2;
}

// The thread's own root frame: the last of its root frames ("[app pid=42];[worker tid=43]").
std::string_view own_root(std::string_view root) {
  size_t semi = root.rfind(';');
  return semi == std::string_view::npos ? root : root.substr(semi + 1);
}

}  // namespace

std::string wall_clock(const Samples& samples, uint64_t time_ns) {
  if (samples.real_ns == 0) return {};
  uint64_t at = samples.real_ns + time_ns;
  time_t secs = static_cast<time_t>(at / 1000000000);
  tm local{};
  if (!localtime_r(&secs, &local)) return {};
  char day[64];
  if (std::strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &local) == 0) return {};
  char zone[16];
  if (std::strftime(zone, sizeof zone, "%Z", &local) == 0) zone[0] = 0;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s.%03u%s%s", day,
                static_cast<unsigned>(at % 1000000000 / 1000000), zone[0] ? " " : "", zone);
  return buf;
}

std::string replay_header(const Samples& samples, const SampleWindow& window,
                          const Transport* transport, uint64_t window_ns) {
  const uint64_t now = samples.rounds[window.round()].time_ns;
  std::string h = "hearth replay  ";
  h += live::target_name(static_cast<pid_t>(samples.pid), samples.name, samples.processes.size());
  h += "  +" + seconds(now) + " s";
  if (std::string clock = wall_clock(samples, now); !clock.empty()) h += "  " + clock;
  if (transport) {
    h += "  " + speed_text(transport->speed()) + (transport->paused() ? " paused" : " playing");
    if (transport->loop_start()) {
      h += "  loop " + seconds(*transport->loop_start()) + "-";
      if (transport->loop_end()) h += seconds(*transport->loop_end()) + " s";
    }
    if (transport->typing()) h += "  go to: " + *transport->typing() + "_ s (Enter; Esc: cancel)";
    if (!transport->note().empty()) h += "  (" + transport->note() + ")";
  }
  char buf[192];
  std::snprintf(buf, sizeof buf, "  %zu samples x %zu threads", window.rounds_counted(),
                window.threads().size());
  h += buf;
  if (window_ns > 0) {
    std::snprintf(buf, sizeof buf, " in %g s", static_cast<double>(window_ns) / kNsPerS);
    h += buf;
  }
  std::snprintf(buf, sizeof buf, "  stall median %.2f ms, max %.2f ms",
                static_cast<double>(window.stall_median_ns()) / 1e6,
                static_cast<double>(window.stall_max_ns()) / 1e6);
  h += buf;
  if (transport && !transport->typing()) h += "  keys: space <- -> [ ] l g q";
  return h;
}

std::string replay_screen(const Samples& samples, const SampleWindow& window,
                          const Transport* transport, uint64_t window_ns, int cols, int rows) {
  std::vector<SampleWindow::Entry> top = window.top(static_cast<size_t>(std::max(rows, 0)));
  std::vector<live::StackRow> stack_rows;
  stack_rows.reserve(top.size());
  for (const SampleWindow::Entry& e : top) stack_rows.push_back({e.stack, e.count});

  std::vector<ThreadNow> threads = window.threads();
  std::sort(threads.begin(), threads.end(), [](const ThreadNow& a, const ThreadNow& b) {
    int ra = state_rank(a.state), rb = state_rank(b.state);
    if (ra != rb) return ra < rb;
    return a.tid != b.tid ? a.tid < b.tid : a.pid < b.pid;
  });
  const uint64_t now = samples.rounds[window.round()].time_ns;
  std::vector<live::ThreadRow> thread_rows;
  thread_rows.reserve(threads.size());
  for (const ThreadNow& t : threads) {
    uint64_t since = samples.rounds[t.since].time_ns;
    thread_rows.push_back({.name = own_root(samples.threads[t.thread].root),
                           .frames = samples.stacks[t.stack],
                           .state = t.state,
                           .for_s = static_cast<double>(now - std::min(now, since)) / kNsPerS});
  }
  return live::render({.header = replay_header(samples, window, transport, window_ns),
                       .stacks = stack_rows,
                       .total = window.total(),
                       .threads = thread_rows},
                      cols, rows);
}

}  // namespace hearth::replay
