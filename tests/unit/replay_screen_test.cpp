#include "render/replay/replay_screen.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "tests/unit/replay_samples.h"

namespace hearth::replay {
namespace {

using replay_testing::small_recording;

std::vector<std::string> replay_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(ReplayScreen, TheLiveViewWithTheRecordingsTimeAndAStateLinePerThread) {
  Samples s = small_recording();
  SampleWindow w(s, 0);
  w.seek(4);
  EXPECT_EQ(replay_screen(s, w, nullptr, 0, 100, 40),
            "hearth replay  pid 42 (app)  +0.400 s  5 samples x 3 threads  stall median 0.03 "
            "ms, max 0.05 ms\n"
            "    %   SAMPLES  THREAD                STACK (leaf first)\n"
            " 33.3         5  [app tid=42]          futex_wait_[k] ... < poll < start_thread\n"
            " 33.3         5  [worker-1 tid=43]     work < start_thread\n"
            " 20.0         3  [worker-2 tid=44]     futex_wait_[k] ... < poll < start_thread\n"
            " 13.3         2  [worker-2 tid=44]     io_schedule_[k] < read < start_thread\n"
            "STATE       FOR  THREAD                STACK (leaf first)\n"
            "    D    0.10 s  [worker-2 tid=44]     io_schedule_[k] < read < start_thread\n"
            "    R    0.40 s  [worker-1 tid=43]     work < start_thread\n"
            "    S    0.40 s  [app tid=42]          futex_wait_[k] ... < poll < start_thread\n");
}

TEST(ReplayScreen, TheHeaderSaysTheTransportAndTheWallClock) {
  Samples s = small_recording();
  s.real_ns = 1'795'762'269'123'000'000ull;
  SampleWindow w(s, 200'000'000);
  w.seek(9);
  std::vector<uint64_t> times;
  for (const auto& r : s.rounds) times.push_back(r.time_ns);
  Transport t(times, {.begin_ns = 0, .end_ns = 900'000'000, .paused = true});
  KeyDecoder d;
  for (const KeyPress& k : d.feed("[[lg1.5")) t.press(k);
  std::string header = replay_header(s, w, &t, 200'000'000);
  EXPECT_NE(header.find("  +0.900 s  "), std::string::npos) << header;
  // The wall clock: time 0 + 0.9 s, in local time (the zone's offset is whole minutes).
  EXPECT_TRUE(
      std::regex_search(header, std::regex(" \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.023")))
      << header;
  EXPECT_NE(header.find("  x1/4 paused  loop 0.000-  go to: 1.5_ s"), std::string::npos) << header;
  EXPECT_NE(header.find("2 samples x 3 threads in 0.2 s"), std::string::npos) << header;
  EXPECT_EQ(header.find("keys:"), std::string::npos) << "typing: the prompt instead of the keys";
  t.press({Key::kEscape, 0});
  EXPECT_NE(replay_header(s, w, &t, 0).find("keys: space <- -> [ ] l g q"), std::string::npos);
  EXPECT_EQ(wall_clock(small_recording(), 0), "") << "unknown wall clock: none";
}

TEST(ReplayScreen, FitsTheTerminal) {
  Samples s = replay_testing::random_recording(400, 30, 5);
  SampleWindow w(s, 0);
  w.seek(399);
  for (int cols : {20, 80, 200}) {
    for (int rows : {3, 5, 24, 60}) {
      auto lines = replay_lines(replay_screen(s, w, nullptr, 0, cols, rows));
      EXPECT_EQ(lines.size(), static_cast<size_t>(rows)) << cols << "x" << rows;
      for (const auto& l : lines) EXPECT_LE(l.size(), static_cast<size_t>(cols)) << l;
      if (rows >= 24) {
        EXPECT_EQ(lines.back().find("... "), 0u) << "threads that did not fit: " << lines.back();
      }
    }
  }
}

}  // namespace
}  // namespace hearth::replay
