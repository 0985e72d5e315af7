#include "render/replay/transport.h"

#include <gtest/gtest.h>

namespace hearth::replay {
namespace {

// Rounds every 100 ms from 0 to 900 ms; two at 300 ms (two processes sampled together).
const std::vector<uint64_t> kReplayTimes = {0,           100'000'000, 200'000'000, 300'000'000,
                                            300'000'000, 400'000'000, 500'000'000, 600'000'000,
                                            700'000'000, 800'000'000, 900'000'000};
constexpr uint64_t kReplayMs = 1'000'000;

Transport replay_transport(TransportOptions o = {.begin_ns = 0, .end_ns = 900 * kReplayMs}) {
  return Transport(kReplayTimes, o);
}

void replay_press(Transport* t, std::string_view bytes) {
  KeyDecoder d;
  for (const KeyPress& k : d.feed(bytes)) t->press(k);
  for (const KeyPress& k : d.flush()) t->press(k);
}

TEST(ReplayKeys, DecodesArrowsLettersAndALoneEscape) {
  KeyDecoder d;
  auto keys = d.feed("\x1b[C\x1b[D\x1bOC q[]lg7\r\x7f");
  std::vector<Key> got;
  for (const KeyPress& k : keys) got.push_back(k.key);
  EXPECT_EQ(got, (std::vector<Key>{Key::kRight, Key::kLeft, Key::kRight, Key::kSpace, Key::kQuit,
                                   Key::kSlower, Key::kFaster, Key::kLoop, Key::kGoTo, Key::kChar,
                                   Key::kEnter, Key::kBackspace}));
  EXPECT_EQ(keys[9].ch, '7');
  // A sequence split across reads; a lone ESC becomes Escape when the input goes quiet.
  EXPECT_TRUE(d.feed("\x1b").empty());
  EXPECT_TRUE(d.feed("[").empty());
  keys = d.feed("D");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].key, Key::kLeft);
  EXPECT_TRUE(d.feed("\x1b").empty());
  keys = d.flush();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].key, Key::kEscape);
  // ESC then a plain key: both; sequences we do not use (F5, shift-arrows): ignored.
  keys = d.feed("\x1bq\x1b[15~\x1b[1;2C");
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys[0].key, Key::kEscape);
  EXPECT_EQ(keys[1].key, Key::kQuit);
  EXPECT_EQ(keys[2].key, Key::kOther);
  EXPECT_EQ(keys[3].key, Key::kOther);
}

TEST(ReplayTransport, PlaysAtItsSpeedAndStopsAtTheEnd) {
  Transport t = replay_transport();
  EXPECT_FALSE(t.paused());
  t.advance(0.25);
  EXPECT_EQ(t.position_ns(), 250 * kReplayMs);
  EXPECT_EQ(t.round(), 2u);
  replay_press(&t, "]");  // x2
  EXPECT_EQ(t.speed(), 2);
  t.advance(0.1);
  EXPECT_EQ(t.position_ns(), 450 * kReplayMs);
  EXPECT_EQ(t.round(), 5u);
  replay_press(&t, "[[");  // x0.5
  t.advance(0.1);
  EXPECT_EQ(t.position_ns(), 500 * kReplayMs);
  t.advance(10);
  EXPECT_EQ(t.position_ns(), 900 * kReplayMs);
  EXPECT_TRUE(t.paused()) << "at the end the replay pauses";
  EXPECT_EQ(t.round(), 10u);
  replay_press(&t, " ");  // at the end: again from the start
  EXPECT_FALSE(t.paused());
  EXPECT_EQ(t.position_ns(), 0u);
}

TEST(ReplayTransport, SpeedStaysBetweenItsBounds) {
  Transport t = replay_transport();
  replay_press(&t, std::string(20, ']'));
  EXPECT_EQ(t.speed(), Transport::kMaxSpeed);
  replay_press(&t, std::string(40, '['));
  EXPECT_EQ(t.speed(), Transport::kMinSpeed);
}

TEST(ReplayTransport, SpacePausesAndArrowsStepOneSample) {
  Transport t = replay_transport();
  replay_press(&t, " ");
  EXPECT_TRUE(t.paused());
  t.advance(1);
  EXPECT_EQ(t.position_ns(), 0u) << "paused: time does not move";
  replay_press(&t, "\x1b[C\x1b[C");
  EXPECT_EQ(t.round(), 2u);
  replay_press(&t, "\x1b[C");  // two rounds at 300 ms: one instant, the last of them shown
  EXPECT_EQ(t.round(), 4u);
  replay_press(&t, "\x1b[C");
  EXPECT_EQ(t.round(), 5u);
  replay_press(&t, "\x1b[D");
  EXPECT_EQ(t.round(), 4u);
  replay_press(&t, "\x1b[D");
  EXPECT_EQ(t.round(), 2u);
  replay_press(&t, "\x1b[D\x1b[D\x1b[D");
  EXPECT_EQ(t.round(), 0u);
  EXPECT_EQ(t.note(), "at the start");
  replay_press(&t, " ");
  EXPECT_FALSE(t.paused());
  t.advance(0.05);
  replay_press(&t, "\x1b[C");  // playing: the arrow pauses, then steps
  EXPECT_TRUE(t.paused());
  EXPECT_EQ(t.round(), 1u);
}

TEST(ReplayTransport, StepsStayInTheReplayedRange) {
  Transport t =
      replay_transport({.begin_ns = 200 * kReplayMs, .end_ns = 500 * kReplayMs, .paused = true});
  EXPECT_EQ(t.round(), 2u);
  replay_press(&t, "\x1b[D");
  EXPECT_EQ(t.round(), 2u);
  replay_press(&t, "\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C");
  EXPECT_EQ(t.round(), 6u);
  EXPECT_EQ(t.note(), "at the end");
}

TEST(ReplayTransport, LKeyMarksTheLoopThenClearsIt) {
  Transport t = replay_transport({.begin_ns = 0, .end_ns = 900 * kReplayMs, .paused = true});
  replay_press(&t, "\x1b[Cl");
  EXPECT_EQ(t.loop_start(), 100 * kReplayMs);
  EXPECT_FALSE(t.loop_end());
  replay_press(&t, "l");  // same place: not a loop
  EXPECT_FALSE(t.loop_end());
  EXPECT_NE(t.note().find("must differ"), std::string::npos);
  replay_press(&t, "\x1b[C\x1b[Cl");
  EXPECT_EQ(t.loop_start(), 100 * kReplayMs);
  EXPECT_EQ(t.loop_end(), 300 * kReplayMs);
  replay_press(&t, " ");
  t.advance(0.05);
  EXPECT_EQ(t.position_ns(), 150 * kReplayMs - 1) << "wrapped past the loop's end";
  t.advance(0.1);
  EXPECT_EQ(t.round(), 2u);
  replay_press(&t, "l");
  EXPECT_FALSE(t.loop_start());
  EXPECT_FALSE(t.loop_end());
  t.advance(1);
  EXPECT_EQ(t.position_ns(), 900 * kReplayMs) << "no loop: plays to the end";
}

TEST(ReplayTransport, LoopOptionLoopsTheWholeRange) {
  Transport t =
      replay_transport({.begin_ns = 100 * kReplayMs, .end_ns = 500 * kReplayMs, .loop = true});
  EXPECT_EQ(t.loop_start(), 100 * kReplayMs);
  EXPECT_EQ(t.loop_end(), 500 * kReplayMs);
  t.advance(0.45);
  EXPECT_FALSE(t.paused());
  EXPECT_EQ(t.round(), 1u);  // 550 ms -> 149 ms
}

TEST(ReplayTransport, GTypesATimeInSeconds) {
  Transport t = replay_transport({.begin_ns = 0, .end_ns = 900 * kReplayMs, .paused = true});
  replay_press(&t, "g0.5");
  ASSERT_TRUE(t.typing());
  EXPECT_EQ(*t.typing(), "0.5");
  replay_press(&t,
               "\x7f"
               "65\r");
  EXPECT_FALSE(t.typing());
  EXPECT_EQ(t.position_ns(), 650 * kReplayMs);
  EXPECT_EQ(t.round(), 7u);
  EXPECT_TRUE(t.paused()) << "a jump keeps the transport paused";
  replay_press(&t, "g1..2\r");
  EXPECT_EQ(t.position_ns(), 650 * kReplayMs);
  EXPECT_NE(t.note().find("not a time: 1..2"), std::string::npos);
  replay_press(&t, "g30\r");
  EXPECT_EQ(t.position_ns(), 900 * kReplayMs);
  EXPECT_NE(t.note().find("moved to its end"), std::string::npos);
  replay_press(&t, "g12\x1b");  // Escape: nothing happens
  EXPECT_FALSE(t.typing());
  EXPECT_EQ(t.position_ns(), 900 * kReplayMs);
  replay_press(&t, "g1q");
  EXPECT_TRUE(t.quit()) << "q quits even while typing";
}

}  // namespace
}  // namespace hearth::replay
