// The heatmap's model (render/time/heat_grid.h): the layouts chosen, bucketing, counts by state
// class, the thread filter, the folded stacks of a time range; the page data's encoding
// (heat_data.h) decoded back into the samples' changes; the static picture's cells.
#include "render/time/heat_grid.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <tuple>

#include "render/time/heat_data.h"
#include "render/time/heat_page.h"
#include "render/time/heat_picture.h"
#include "templates/templates.h"

namespace hearth::heat {
namespace {

using timed_samples::Builder;
using timed_samples::Samples;

constexpr uint64_t kMsNs = 1'000'000;

struct HeatThread {
  int64_t tid;
  const char* root;
};
constexpr HeatThread kHeatThreads[] = {{10, "[main tid=10]"}, {11, "[worker-1 tid=11]"},
                                       {12, "[worker-2 tid=12]"}};

// ROUNDS samples every INTERVAL_NS; thread i is in state STATE_OF(round, i) with stack "f<k>".
Samples heat_samples(size_t rounds, uint64_t interval_ns,
                     const std::function<char(size_t, size_t)>& state_of) {
  Builder b(4242, "app", {}, 0, 0);
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<std::string> frames;
    std::vector<Builder::Entry> entries;
    for (size_t i = 0; i < std::size(kHeatThreads); ++i) {
      frames.push_back("start;f" + std::to_string((r + i) % 3));
    }
    for (size_t i = 0; i < std::size(kHeatThreads); ++i) {
      entries.push_back({kHeatThreads[i].tid, kHeatThreads[i].root, frames[i], state_of(r, i)});
    }
    timed_samples::Round round;
    round.time_ns = r * interval_ns;
    round.pid = 4242;
    b.add(round, entries);
  }
  return b.take();
}

char heat_all_running(size_t, size_t) {
  return 'R';
}

TEST(HeatGrid, StateClasses) {
  EXPECT_EQ(state_class('R'), StateClass::kRunning);
  EXPECT_EQ(state_class('D'), StateClass::kBlocked);
  EXPECT_EQ(state_class('S'), StateClass::kSleeping);
  EXPECT_EQ(state_class('T'), StateClass::kOther);
  EXPECT_EQ(state_class('I'), StateClass::kOther);
}

TEST(HeatGrid, LayoutChosenFromTheSamplingRate) {
  // 100 Hz for 3 s: 1 s columns of 20 ms rows.
  auto fast = choose_layout(heat_samples(300, 10 * kMsNs, heat_all_running), 0, 0);
  ASSERT_TRUE(fast.has_value()) << fast.error().message;
  EXPECT_EQ(fast->row_ns, 20 * kMsNs);
  EXPECT_EQ(fast->rows, 50u);
  EXPECT_EQ(fast->columns, 3u);
  EXPECT_EQ(fast->chosen, "the defaults");
  // 10 Hz: 20 ms rows would be 4 in 5 empty; rows of the interval.
  auto slow = choose_layout(heat_samples(30, 100 * kMsNs, heat_all_running), 0, 0);
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(slow->row_ns, 100 * kMsNs);
  EXPECT_EQ(slow->rows, 10u);
  EXPECT_EQ(slow->columns, 3u);
  EXPECT_EQ(slow->chosen, "samples every 100 ms");
  // 20 min at 1 Hz: a long recording, minute columns of 1 s rows.
  auto long_one = choose_layout(heat_samples(1200, 1000 * kMsNs, heat_all_running), 0, 0);
  ASSERT_TRUE(long_one.has_value());
  EXPECT_EQ(long_one->row_ns, 1000 * kMsNs);
  EXPECT_EQ(long_one->rows, 60u);
  EXPECT_EQ(long_one->columns, 20u);
  EXPECT_EQ(long_one->chosen, "a recording of 20 min");
  // Given: --bucket alone keeps the column, --rows alone divides it, both are taken as given.
  Samples s = heat_samples(30, 100 * kMsNs, heat_all_running);
  EXPECT_EQ(choose_layout(s, 250 * kMsNs, 0)->rows, 4u);
  EXPECT_EQ(choose_layout(s, 0, 4)->row_ns, 250 * kMsNs);
  auto given = choose_layout(s, 50 * kMsNs, 10);
  EXPECT_EQ(given->column_ns(), 500 * kMsNs);
  EXPECT_EQ(given->columns, 6u);
  EXPECT_EQ(given->chosen, "");
  // Too many cells: refused with a hint.
  auto huge = choose_layout(s, 1, 0);
  ASSERT_FALSE(huge.has_value());
  EXPECT_NE(huge.error().message.find("--bucket"), std::string::npos);
}

TEST(HeatGrid, CountsByCellAndState) {
  // 10 Hz for 2 s; thread 1 is D in the samples of 0.5 s..0.8 s, thread 2 S always.
  Samples s = heat_samples(20, 100 * kMsNs, [](size_t r, size_t i) {
    if (i == 1 && r >= 5 && r < 9) return 'D';
    return i == 2 ? 'S' : 'R';
  });
  auto l = choose_layout(s, 100 * kMsNs, 10);
  ASSERT_TRUE(l.has_value());
  Grid g = build_grid(s, *l, nullptr);
  ASSERT_EQ(g.counts[0].size(), 20u);
  EXPECT_EQ(g.samples, 60u);
  EXPECT_EQ(g.threads, 3u);
  EXPECT_EQ(g.max_cell, 3u);
  for (size_t cell = 0; cell < 20; ++cell) {
    const bool blocked = cell >= 5 && cell < 9;
    EXPECT_EQ(g.total(cell), 3u) << cell;
    EXPECT_EQ(g.counts[size_t(StateClass::kBlocked)][cell], blocked ? 1u : 0u) << cell;
    EXPECT_EQ(g.counts[size_t(StateClass::kRunning)][cell], blocked ? 1u : 2u) << cell;
    EXPECT_EQ(g.counts[size_t(StateClass::kSleeping)][cell], 1u) << cell;
  }
  // Rows of 200 ms: two samples a cell; the second column starts at 1 s (cell 5).
  Grid coarse = build_grid(s, *choose_layout(s, 200 * kMsNs, 5), nullptr);
  ASSERT_EQ(coarse.counts[0].size(), 10u);
  EXPECT_EQ(coarse.total(5), 6u);
  EXPECT_EQ(coarse.counts[size_t(StateClass::kBlocked)][2], 1u);  // 0.4, 0.5 s
  EXPECT_EQ(coarse.counts[size_t(StateClass::kBlocked)][3], 2u);  // 0.6, 0.7 s
  EXPECT_EQ(coarse.counts[size_t(StateClass::kBlocked)][4], 1u);  // 0.8, 0.9 s
}

TEST(HeatGrid, ThreadFilter) {
  Samples s = heat_samples(10, 100 * kMsNs, heat_all_running);
  auto only = Pattern::compile("worker");
  ASSERT_TRUE(only.has_value());
  Grid g = build_grid(s, *choose_layout(s, 0, 0), &*only);
  EXPECT_EQ(g.samples, 20u);
  EXPECT_EQ(g.threads, 2u);
  EXPECT_EQ(g.total(0), 2u);
  auto none = Pattern::compile("nothing-matches");
  EXPECT_EQ(build_grid(s, *choose_layout(s, 0, 0), &*none).samples, 0u);
}

TEST(HeatGrid, RangeFolded) {
  Samples s = heat_samples(10, 100 * kMsNs, [](size_t r, size_t) { return r < 5 ? 'R' : 'S'; });
  // [100 ms, 300 ms): rounds 1 and 2; thread i has f((r + i) % 3).
  EXPECT_EQ(range_folded(s, 100 * kMsNs, 300 * kMsNs, nullptr),
            "[main tid=10];start;f1 1\n"
            "[main tid=10];start;f2 1\n"
            "[worker-1 tid=11];start;f0 1\n"
            "[worker-1 tid=11];start;f2 1\n"
            "[worker-2 tid=12];start;f0 1\n"
            "[worker-2 tid=12];start;f1 1\n");
  auto only = Pattern::compile("worker-2");
  EXPECT_EQ(range_folded(s, 0, UINT64_MAX, &*only),
            "[worker-2 tid=12];start;f0 3\n"
            "[worker-2 tid=12];start;f1 3\n"
            "[worker-2 tid=12];start;f2 4\n");
  EXPECT_EQ(range_folded(s, 2000 * kMsNs, 3000 * kMsNs, nullptr), "");
  // Only the S samples (rounds 5..9) of worker-2.
  EXPECT_EQ(range_folded(s, 0, UINT64_MAX, &*only, StateClass::kSleeping),
            "[worker-2 tid=12];start;f0 1\n"
            "[worker-2 tid=12];start;f1 2\n"
            "[worker-2 tid=12];start;f2 2\n");
}

TEST(HeatGrid, Durations) {
  EXPECT_EQ(duration_text(20 * kMsNs), "20 ms");
  EXPECT_EQ(duration_text(1000 * kMsNs), "1 s");
  EXPECT_EQ(duration_text(60'000 * kMsNs), "1 min");
  EXPECT_EQ(duration_text(0), "0 s");
  EXPECT_EQ(duration_text(1500 * kMsNs), "1.5 s");
  EXPECT_EQ(parse_duration("20ms"), 20 * kMsNs);
  EXPECT_EQ(parse_duration("1s"), 1000 * kMsNs);
  EXPECT_EQ(parse_duration("500us"), 500'000u);
  EXPECT_EQ(parse_duration("2min"), 120'000 * kMsNs);
  EXPECT_EQ(parse_duration("250"), 250 * kMsNs);
  EXPECT_EQ(parse_duration("0.5s"), 500 * kMsNs);
  EXPECT_EQ(parse_duration(""), 0u);
  EXPECT_EQ(parse_duration("5 parsecs"), 0u);
  EXPECT_EQ(parse_duration("-1s"), 0u);
  EXPECT_EQ(parse_duration("0ms"), 0u);
}

// The page data's varint stream, decoded as templates/heatmap_data.js decodes it.
struct HeatDecoded {
  std::vector<uint64_t> times;
  std::vector<std::tuple<size_t, uint64_t, uint64_t, char>> changes;  // round, thread, stack, state
};

HeatDecoded heat_decode(const nlohmann::json& d) {
  const std::string b64 = d["data"];
  std::string bytes;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : b64) {
    if (c == '=') break;
    const std::string alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    acc = acc << 6 | static_cast<uint32_t>(alphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<char>((acc >> bits) & 255));
    }
  }
  size_t pos = 0;
  auto varint = [&] {
    uint64_t v = 0;
    int shift = 0;
    uint8_t b;
    do {
      b = static_cast<uint8_t>(bytes.at(pos++));
      v |= uint64_t{b & 127u} << shift;
      shift += 7;
    } while (b & 128);
    return v;
  };
  HeatDecoded out;
  const std::string states = d["states"];
  uint64_t t = 0;
  for (size_t r = 0; r < d["rounds"].get<size_t>(); ++r) {
    t += varint();
    out.times.push_back(t);
    EXPECT_EQ(varint(), 0u);  // one process
    const uint64_t n = varint();
    int64_t thread = 0;
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t z = varint();
      thread += z % 2 == 0 ? static_cast<int64_t>(z / 2) : -static_cast<int64_t>((z + 1) / 2);
      const uint64_t v = varint();
      const uint64_t code = v % 128;
      out.changes.emplace_back(r, thread, v / 128, code == 127 ? '-' : states.at(code));
    }
  }
  EXPECT_EQ(pos, bytes.size());
  return out;
}

TEST(HeatData, EncodesTheChanges) {
  Samples s = heat_samples(6, 100 * kMsNs, [](size_t r, size_t i) { return r == 3 && i == 1 ? 'D' : 'S'; });
  std::string text;
  append_page_data(&text, s, *choose_layout(s, 0, 0), {.title = "t <x>", .source = "a&b"});
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  nlohmann::json d = nlohmann::json::parse(text);
  EXPECT_EQ(d["title"], "t <x>");
  EXPECT_EQ(d["source"], "a&b");
  EXPECT_EQ(d["row_ns"], 100 * kMsNs);
  EXPECT_EQ(d["rounds"], 6);
  EXPECT_EQ(d["changes"], s.changes.size());
  // Frames in sibling order; every stack and root made of them.
  std::vector<std::string> frames = d["frames"];
  EXPECT_TRUE(std::is_sorted(frames.begin(), frames.end()));
  EXPECT_EQ(d["stacks"]["n"].size(), s.stacks.size());
  for (size_t i = 0; i < s.stacks.size(); ++i) {
    std::string joined;
    size_t at = 0;
    for (size_t k = 0; k < i; ++k) at += d["stacks"]["n"][k].get<size_t>();
    for (size_t k = 0; k < d["stacks"]["n"][i].get<size_t>(); ++k) {
      joined += (k ? ";" : "") + frames.at(d["stacks"]["f"][at + k].get<size_t>());
    }
    EXPECT_EQ(joined, s.stacks[i]);
  }
  // Thread roots are thread roots: their own colour.
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(d["tfill"][i].get<int>() >= 0, frames[i].starts_with("[")) << frames[i];
  }
  HeatDecoded dec = heat_decode(d);
  ASSERT_EQ(dec.times.size(), s.rounds.size());
  for (size_t r = 0; r < s.rounds.size(); ++r) EXPECT_EQ(dec.times[r], s.rounds[r].time_ns);
  ASSERT_EQ(dec.changes.size(), s.changes.size());
  size_t round = 0;
  for (size_t k = 0; k < s.changes.size(); ++k) {
    while (round + 1 < s.rounds.size() && s.rounds[round + 1].first_change <= k) ++round;
    EXPECT_EQ(std::get<0>(dec.changes[k]), round) << k;
    EXPECT_EQ(std::get<1>(dec.changes[k]), s.changes[k].thread) << k;
    EXPECT_EQ(std::get<3>(dec.changes[k]), s.changes[k].state) << k;
    if (s.changes[k].state != timed_samples::kGone) {
      EXPECT_EQ(std::get<2>(dec.changes[k]), s.changes[k].stack) << k;
    }
  }
}

TEST(HeatPicture, ACellARect) {
  Samples s = heat_samples(20, 100 * kMsNs, [](size_t r, size_t i) { return r < 4 && i == 0 ? 'D' : 'S'; });
  Grid g = build_grid(s, *choose_layout(s, 100 * kMsNs, 10), nullptr);
  scene::Scene all = layout_heatmap(g, {});
  ASSERT_EQ(all.layers.size(), 2u);
  EXPECT_EQ(all.layers[0].id, "cells");
  EXPECT_EQ(all.layers[0].rects.size(), 20u);
  EXPECT_EQ(all.layers[0].rects[0].fill, heat_color(1));
  EXPECT_EQ(all.layers[0].rects[0].title,
            "0 s (0 s +0 s): 3 samples (R 0, D 1, S 2, other 0)");
  PictureOptions blocked;
  blocked.state = StateClass::kBlocked;
  scene::Scene d = layout_heatmap(g, blocked);
  EXPECT_EQ(d.layers[0].rects.size(), 4u);  // only cells with a D sample
  EXPECT_EQ(heat_color(1), (scene::Rgb{140, 0, 0}));
  EXPECT_EQ(heat_color(0.5), (scene::Rgb{245, 140, 30}));
  EXPECT_EQ(heat_color(0), (scene::Rgb{255, 240, 180}));
}

TEST(HeatGrid, DamagedFileKeepsWhatCameBefore) {
  const std::string text =
      "# hearth samples 1\tpid=7\tname=x\tmono_ns=0\treal_ns=0\n"
      "s\t0\tmain\n"
      "t\t7\t7\t[x tid=7]\n"
      "r\t0\t7\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
      "7\tR\t0\n"
      "r\t100000000\t7\tcopied=0\treused=1\tstopped=0\tstall_ns=0\n"
      "r\t200000000\t7\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
      "7\tS\t5\n";  // stack 5 was never declared
  auto s = timed_samples::parse(text, "x.samples.txt");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_NE(s->damage.find("x.samples.txt:8"), std::string::npos) << s->damage;
  ASSERT_GE(s->rounds.size(), 2u);
  Grid g = build_grid(*s, *choose_layout(*s, 100 * kMsNs, 10), nullptr);
  EXPECT_EQ(g.total(0), 1u);
  EXPECT_EQ(g.total(1), 1u);
}

// The page's script is every templates/heatmap*.js (and flame.js, as one function of it): a file
// added to templates/ but not to heat_page.cpp's list fails here, not in a browser.
TEST(HeatPage, EmbedsEveryHeatmapScript) {
  Samples s = heat_samples(10, 100 * kMsNs, heat_all_running);
  auto layout = choose_layout(s, 0, 0);
  ASSERT_TRUE(layout.has_value());
  const std::string page = heatmap_page(s, *layout, {.title = "t", .source = "x"});
  size_t scripts = 0;
  for (const templates::Entry* e = templates::kEntries; e->name != nullptr; ++e) {
    const std::string_view name = e->name;
    if (!name.starts_with("heatmap") || !name.ends_with(".js")) continue;
    ++scripts;
    EXPECT_NE(page.find(e->text), std::string::npos) << name << " is not in the page";
  }
  EXPECT_GE(scripts, 10u);
  EXPECT_NE(page.find("function runFlameScript(document, window, JSON) {\n" +
                      std::string(templates::get("flame.js"))),
            std::string::npos);
  EXPECT_EQ(page.find("<iframe"), std::string::npos);
}

}  // namespace
}  // namespace hearth::heat
