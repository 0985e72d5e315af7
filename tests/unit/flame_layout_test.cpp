#include "render/flame/layout.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/svg/svg_writer.h"

namespace hearth::flame {
namespace {

profile::FrameTree tree_of(std::string_view text, profile::Merge merge = profile::Merge::kAll) {
  profile::FrameTree t(merge);
  profile::FoldedReader r(t, {});
  r.read_text(text);
  t.finalize();
  return t;
}

const scene::Rect* find(const scene::Scene& s, std::string_view title_prefix) {
  for (const scene::Rect& r : s.layers[0].rects) {
    if (r.title.starts_with(title_prefix)) return &r;
  }
  return nullptr;
}

// With many frames, two threads make the rects (when the process may use two CPUs); a
// decorate() callback keeps them to one. Both give the same scene, rect for rect, thread roots
// and legend included.
TEST(FlameLayout, TwoThreadsMakeTheRectsOneThreadMakes) {
  std::string text;
  std::mt19937 rng(7);
  for (int i = 0; i < 12000; ++i) {
    text += "[worker-" + std::to_string(i % 5) + " tid=" + std::to_string(10 + i % 5) + "];";
    text += "f" + std::to_string(i % 97) + "<&>;g" + std::to_string(i) + "_[k] " +
            std::to_string(1 + rng() % 50) + "\n";
  }
  profile::FrameTree tree = tree_of(text);
  FlameOptions o;
  o.min_width = 0;
  FlameStats st_two, st_one;
  scene::Scene two = layout_flame(tree, o, &st_two);
  o.decorate = [](profile::NodeId, scene::Rect*) {};
  scene::Scene one = layout_flame(tree, o, &st_one);
  ASSERT_GT(st_two.frames, 12000u);  // the two-thread path's threshold is 8192 frames
  EXPECT_EQ(st_two.frames, st_one.frames);
  EXPECT_EQ(st_two.threads, 5u);
  EXPECT_EQ(st_two.threads, st_one.threads);
  EXPECT_EQ(svg::to_svg(two), svg::to_svg(one));
}

TEST(FlameLayout, GeometryFollowsFlamegraphPl) {
  // 100 samples: a;b 60, a;c 30, d 10. Width 1200 - 2 * 10 px of padding = 1180 px.
  auto s = layout_flame(tree_of("a;b 60\na;c 30\nd 10\n"), {}, nullptr);
  ASSERT_EQ(s.layers[0].rects.size(), 5u);  // all, a, b, c, d
  const scene::Rect* all = find(s, "all ");
  const scene::Rect* a = find(s, "a ");
  const scene::Rect* b = find(s, "b ");
  const scene::Rect* c = find(s, "c ");
  const scene::Rect* d = find(s, "d ");
  ASSERT_TRUE(all && a && b && c && d);
  EXPECT_EQ(all->title, "all (100 samples, 100%)");
  EXPECT_EQ(a->title, "a (90 samples, 90.00%)");
  EXPECT_DOUBLE_EQ(all->x, 10);
  EXPECT_DOUBLE_EQ(all->w, 1180);
  EXPECT_DOUBLE_EQ(a->w, 1180 * 0.9);
  EXPECT_DOUBLE_EQ(b->x, 10);  // siblings in name order: b before c
  EXPECT_DOUBLE_EQ(c->x, 10 + 1180 * 0.6);
  EXPECT_DOUBLE_EQ(d->x, 10 + 1180 * 0.9);
  // Depth grows upwards, one frame height (16) per level; frames are 15 px tall.
  EXPECT_DOUBLE_EQ(a->y - b->y, 16);
  EXPECT_DOUBLE_EQ(all->y - a->y, 16);
  EXPECT_DOUBLE_EQ(a->h, 15);
  // Height: (max depth 2 + 1) * 16 + 36 (top) + 34 (bottom).
  EXPECT_DOUBLE_EQ(s.height, 3 * 16 + 36 + 34);
}

TEST(FlameLayout, InvertedPutsTheRootOnTop) {
  FlameOptions o;
  o.inverted = true;
  auto s = layout_flame(tree_of("a;b 1\n"), o, nullptr);
  EXPECT_LT(find(s, "all ")->y, find(s, "b ")->y);
  EXPECT_EQ(s.texts[0].text, "Icicle Graph");
}

TEST(FlameLayout, SelfTimeSitsLeftOfChildren) {
  auto s = layout_flame(tree_of("a 50\na;b 50\n"), {}, nullptr);
  EXPECT_DOUBLE_EQ(find(s, "b ")->x, 10 + 590);
}

TEST(FlameLayout, MinWidthPrunesNarrowFramesAndTheirChildren) {
  FlameOptions o;
  o.min_width = 5;  // percent
  o.min_width_percent = true;
  FlameStats st;
  auto s = layout_flame(tree_of("big;x 96\nsmall;y;z 4\n"), o, &st);
  EXPECT_EQ(find(s, "small "), nullptr);
  EXPECT_EQ(find(s, "z "), nullptr);
  EXPECT_NE(find(s, "x "), nullptr);
  EXPECT_EQ(st.pruned, 3u);
  // The pruned frames still take their room: nothing is drawn where they were.
  EXPECT_DOUBLE_EQ(find(s, "big ")->w, 1180 * 0.96);
}

TEST(FlameLayout, MaxFramesKeepsTheWidest) {
  std::string text;
  for (int i = 0; i < 50; ++i)
    text += "root;f" + std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  FlameOptions o;
  o.max_frames = 12;  // all, root and the 10 widest children
  FlameStats st;
  auto s = layout_flame(tree_of(text), o, &st);
  EXPECT_EQ(s.layers[0].rects.size(), 12u);
  EXPECT_NE(find(s, "f49 "), nullptr);
  EXPECT_NE(find(s, "f40 "), nullptr);
  EXPECT_EQ(find(s, "f39 "), nullptr);
  EXPECT_GT(st.min_width_px, 0.1);
}

// One stack: "f0;f1;...;f(N-1) COUNT".
std::string chain(int frames, int count) {
  std::string s;
  for (int i = 0; i < frames; ++i) {
    s += i > 0 ? ";f" : "f";
    s += std::to_string(i);
  }
  return s + " " + std::to_string(count) + "\n";
}

// A deep recursion: every frame as wide as the next. The frames tied at the --max-frames cut
// are kept from the root down (all of them were left out, and only "all" was drawn).
TEST(FlameLayout, MaxFramesKeepsTiedFramesFromTheRootDown) {
  FlameStats st;
  auto s = layout_flame(tree_of(chain(30001, 5)), {}, &st);  // max_frames 30000
  EXPECT_EQ(st.frames, 30000u);
  EXPECT_EQ(s.layers[0].rects.size(), 30000u);
  EXPECT_EQ(st.max_depth, 29999);
  EXPECT_NE(find(s, "f29998 "), nullptr);  // depth 29,999
  EXPECT_EQ(find(s, "f29999 "), nullptr);
  EXPECT_EQ(st.pruned, 2u);
  EXPECT_EQ(st.narrow, 0u);
  EXPECT_EQ(st.deep, 2u);
  EXPECT_EQ(st.deep_below, 29999);
  EXPECT_TRUE(st.max_frames_cut);
  EXPECT_DOUBLE_EQ(st.min_width_px, 1180);
}

// Wider frames first; of those as wide as the cut, the shallowest.
TEST(FlameLayout, MaxFramesTiesAfterTheWiderFrames) {
  FlameOptions o;
  o.max_frames = 5;  // all, a, b, and two of c, d, e, f (each 4 wide)
  FlameStats st;
  auto s = layout_flame(tree_of("a;b 10\nc;d;e;f 4\n"), o, &st);
  std::vector<std::string> names;
  for (const auto& r : s.layers[0].rects) names.push_back(r.title.substr(0, r.title.find(' ')));
  EXPECT_EQ(names, (std::vector<std::string>{"all", "a", "b", "c", "d"}));
  EXPECT_EQ(st.deep, 2u);
  EXPECT_EQ(st.deep_below, 2);
  EXPECT_EQ(st.narrow, 0u);
  // Under the budget nothing is cut for it.
  o.max_frames = 7;
  layout_flame(tree_of("a;b 10\nc;d;e;f 4\n"), o, &st);
  EXPECT_EQ(st.frames, 7u);
  EXPECT_FALSE(st.max_frames_cut);
  EXPECT_EQ(st.pruned, 0u);
}

// Over random trees full of ties: exactly the budget is drawn, a drawn frame's parent is
// drawn, and no frame left out is wider than one drawn, or as wide and shallower.
TEST(FlameLayout, MaxFramesKeepsAConnectedWidestSet) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string text;
    int stacks = 1 + static_cast<int>(rng() % 30);
    for (int k = 0; k < stacks; ++k) {
      int depth = 1 + static_cast<int>(rng() % 12);
      for (int d = 0; d < depth; ++d) {
        if (d > 0) text += ';';
        text += static_cast<char>('a' + rng() % 3);
      }
      text += ' ';
      text += static_cast<char>('1' + rng() % 3);
      text += '\n';
    }
    profile::FrameTree t = tree_of(text);
    FlameOptions o;
    o.min_width = 0;
    o.max_frames = 1 + rng() % 40;
    std::vector<uint8_t> drawn(t.size(), 0);
    o.decorate = [&](profile::NodeId id, scene::Rect*) { drawn[id] = 1; };
    FlameStats st;
    layout_flame(t, o, &st);
    size_t want = std::min<size_t>(o.max_frames, t.size());
    ASSERT_EQ(st.frames, want) << text;
    ASSERT_EQ(st.pruned, t.size() - want);
    auto width = [&](profile::NodeId n) { return t.total(n).value; };
    for (profile::NodeId n = 1; n < t.size(); ++n) {
      if (drawn[n]) {
        ASSERT_TRUE(drawn[t.node(n).parent]) << text;
        continue;
      }
      for (profile::NodeId d = 1; d < t.size(); ++d) {
        if (!drawn[d]) continue;
        ASSERT_LE(width(n), width(d)) << text;
        if (width(n) == width(d)) {
          ASSERT_GE(t.depth(n), t.depth(d)) << text;
        }
      }
    }
  }
}

// Counts are whole numbers, shown exactly.
TEST(FlameLayout, LargeCountsAreExactInTitles) {
  auto s = layout_flame(tree_of("a;b 9223372036854775807\n"), {}, nullptr);
  EXPECT_EQ(find(s, "all ")->title, "all (9,223,372,036,854,775,807 samples, 100%)");
  EXPECT_EQ(find(s, "b ")->title, "b (9,223,372,036,854,775,807 samples, 100.00%)");
  std::string total;
  for (const auto& [k, v] : s.data) {
    if (k == "total") total = v;
  }
  EXPECT_EQ(total, "9223372036854775807");
  // Fractional counts as before: rounded in titles, as flamegraph.pl does.
  auto f = layout_flame(tree_of("a 0.5\nb 2\n"), {}, nullptr);
  EXPECT_EQ(find(f, "all ")->title, "all (2 samples, 100%)");
}

TEST(FlameLayout, ThreadRootsGetAClassColourAndLegendEntry) {
  auto s = layout_flame(tree_of("[worker-1 tid=7];run 30\n[main tid=1];main 70\nplain;x 1\n"), {},
                        nullptr);
  const scene::Rect* w = find(s, "[worker-1 tid=7] ");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->css_class, "t");
  EXPECT_EQ(find(s, "plain ")->css_class, "");
  EXPECT_EQ(w->fill, scene::thread_color("worker-1"));
  ASSERT_EQ(s.layers.size(), 2u);
  const auto& legend = s.layers[1];
  EXPECT_EQ(legend.id, "threads");
  ASSERT_EQ(legend.rects.size(), 2u);
  EXPECT_EQ(legend.rects[0].label, "main 69.3%");  // widest first
  EXPECT_EQ(legend.rects[1].attrs[0].first, "data-x");
  EXPECT_GT(s.height, legend.rects[1].y);
}

TEST(FlameLayout, FramesComeInDepthFirstPreOrder) {
  auto s = layout_flame(tree_of("a;b;c 1\na;d 1\ne 1\n"), {}, nullptr);
  std::vector<std::string> names;
  for (const auto& r : s.layers[0].rects) names.push_back(r.title.substr(0, r.title.find(' ')));
  EXPECT_EQ(names, (std::vector<std::string>{"all", "a", "b", "c", "d", "e"}));
}

TEST(FlameLayout, FlameChartKeepsInputOrderAndDoesNotMerge) {
  FlameOptions o;
  o.flamechart = true;
  auto s = layout_flame(tree_of("b 1\na 1\nb 1\n", profile::Merge::kLastChild), o, nullptr);
  std::vector<std::string> names;
  for (const auto& r : s.layers[0].rects) names.push_back(r.title.substr(0, r.title.find(' ')));
  EXPECT_EQ(names, (std::vector<std::string>{"all", "b", "a", "b"}));
  EXPECT_EQ(s.texts[0].text, "Flame Chart");
}

TEST(FlameLayout, DifferentialTitlesAndColours) {
  auto s = layout_flame(tree_of("a;grew 10 30\na;shrank 30 10\na;same 20 20\n"), {}, nullptr);
  const scene::Rect* grew = find(s, "grew ");
  EXPECT_EQ(grew->title, "grew (30 samples, 50.00%; +33.33%)");
  EXPECT_EQ(find(s, "shrank ")->title, "shrank (10 samples, 16.67%; -33.33%)");
  EXPECT_EQ(grew->fill, (scene::Rgb{255, 0, 0}));
  EXPECT_EQ(find(s, "shrank ")->fill, (scene::Rgb{0, 0, 255}));
  EXPECT_EQ(find(s, "same ")->fill, (scene::Rgb{255, 255, 255}));
  FlameOptions o;
  o.negate = true;
  auto n = layout_flame(tree_of("a;grew 10 30\n"), o, nullptr);
  EXPECT_EQ(find(n, "grew ")->fill, (scene::Rgb{0, 0, 255}));
}

TEST(FlameLayout, FactorAndCountNameInTitles) {
  FlameOptions o;
  o.factor = 1024;
  o.count_name = "bytes";
  auto s = layout_flame(tree_of("a 3\n"), o, nullptr);
  EXPECT_EQ(find(s, "a ")->title, "a (3,072 bytes, 100.00%)");
}

TEST(FlameLayout, LabelsAreShortenedCppNames) {
  FlameOptions o;
  o.width = 20 + 7.08 * 30;  // 30 characters fit
  auto s = layout_flame(tree_of("ns::Vec<int, std::allocator<int> >::push_back(int const&) 1\n"), o,
                        nullptr);
  EXPECT_EQ(s.layers[0].rects[1].label, "ns::Vec<…>::push_back(…)");
}

TEST(SvgWriter, FollowsTheDomContract) {
  auto s = layout_flame(tree_of("[t tid=1];a<b>&\"c\" 5\n"), {}, nullptr);
  std::string svg = svg::to_svg(s);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<g id=\"frames\">\n<g><title>all (5 samples, 100%)</title><rect x=\"10\""),
            std::string::npos);
  EXPECT_NE(svg.find("<title>a&lt;b&gt;&amp;&quot;c&quot; (5 samples, 100.00%)</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("<g class=\"t\"><title>[t tid=1] (5 samples"), std::string::npos);
  EXPECT_NE(svg.find("<g id=\"threads\">"), std::string::npos);
  EXPECT_NE(svg.find("data-fontwidth=\"0.59\""), std::string::npos);
  EXPECT_NE(svg.find("<script type=\"text/ecmascript\"><![CDATA["), std::string::npos);
  for (const char* external : {"@import", "url(http", "href=", "src="}) {  // self-contained
    EXPECT_EQ(svg.find(external), std::string::npos) << external;
  }
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(SvgWriter, FramesAreAlsoDataForTheScript) {
  auto s = layout_flame(tree_of("a;b 2000\na;c<&\"\\> 1\n"), {}, nullptr);
  std::string svg = svg::to_svg(s);
  // Four frames, all of them elements too (not more than lazy_after frames).
  EXPECT_NE(svg.find("<metadata id=\"frames-data\">{\"v\":1,\"lazy\":0,\"h\":15,"),
            std::string::npos);
  EXPECT_NE(svg.find("\"x\":[10,10,10,1189.4]"), std::string::npos);
  EXPECT_NE(svg.find("\"w\":[1180,1180,1179.4,0.6]"), std::string::npos);
  // Titles split at their last " (", each string once; no < & > in the data.
  EXPECT_NE(svg.find("\"strings\":[\"all\",\" (2,001 samples, 100%)\",\"a\",\" (2,001 samples, "
                     "100.00%)\",\"b\",\" (2,000 samples, 99.95%)\","
                     "\"c\\u003c\\u0026\\\"\\\\\\u003e\",\" (1 samples, 0.05%)\"]"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("\"name\":[0,2,4,6]"), std::string::npos);
  EXPECT_NE(svg.find("<title>c&lt;&amp;&quot;\\&gt; (1 samples, 0.05%)</title>"),
            std::string::npos);
}

TEST(SvgWriter, BigGraphsWriteNarrowFramesAsDataOnly) {
  FlameOptions o;
  o.lazy_after = 3;  // 4 frames: more than 3
  auto s = layout_flame(tree_of("a;b 2000\na;c 1\n"), o, nullptr);
  std::string svg = svg::to_svg(s);
  EXPECT_NE(svg.find("{\"v\":1,\"lazy\":1,"), std::string::npos);
  EXPECT_NE(svg.find("\"w\":[1180,1180,1179.4,0.6]"), std::string::npos);
  EXPECT_NE(svg.find("<title>b (2,000 samples"), std::string::npos);
  EXPECT_EQ(svg.find("<title>c ("), std::string::npos);  // 0.6 px: data only
  // Static backends are not concerned: the scene still holds every frame.
  EXPECT_EQ(s.layers[0].rects.size(), 4u);
}

}  // namespace
}  // namespace hearth::flame
