#include "render/svg/xml.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <string_view>

#include "render/scene/color.h"
#include "render/scene/format.h"
#include "tests/support/strict_utf8.h"

namespace hearth {
namespace {

constexpr std::string_view kFffd = "\xef\xbf\xbd";

std::string rep(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kFffd;
  return s;
}

TEST(Xml, EscapesMarkup) {
  EXPECT_EQ(svg::escaped("a & b < c > d \"e\" 'f'"), "a &amp; b &lt; c &gt; d &quot;e&quot; 'f'");
  EXPECT_EQ(svg::escaped("std::vector<int>::operator->()"),
            "std::vector&lt;int&gt;::operator-&gt;()");
  EXPECT_EQ(svg::escaped(""), "");
  std::string out = "keep:";
  svg::append_escaped(&out, "<");
  EXPECT_EQ(out, "keep:&lt;");
}

TEST(Xml, ValidMultiByteIsKept) {
  for (std::string_view s : {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\xa5", "\xed\x9f\xbf",
                             "\xee\x80\x80", "\xf4\x8f\xbf\xbf", "\xc2\x80", "\xef\xbf\xbd"}) {
    EXPECT_EQ(svg::escaped(s), s);
  }
  EXPECT_EQ(svg::escaped("caf\xc3\xa9 & \xe2\x80\xa6"), "caf\xc3\xa9 &amp; \xe2\x80\xa6");
}

TEST(Xml, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(svg::escaped("a\xff-z"), "a\xef\xbf\xbd-z");
  EXPECT_EQ(svg::escaped("\x80\xbf"), rep(2));
  EXPECT_EQ(svg::escaped("\xe2\x80<"), rep(2) + "&lt;");  // truncated, then markup
  EXPECT_EQ(svg::escaped("\xc3"), rep(1));                // truncated at the end
  EXPECT_EQ(svg::escaped("\xf5\x80\x80\x80"), rep(4));    // above U+10FFFF lead
}

TEST(Xml, OverlongEncodingsAreRejected) {
  EXPECT_EQ(svg::escaped("\xc0\xbc"), rep(2));  // '<' in two bytes
  EXPECT_EQ(svg::escaped("\xc1\xbf"), rep(2));
  EXPECT_EQ(svg::escaped("\xe0\x80\xbc"), rep(3));
  EXPECT_EQ(svg::escaped("\xe0\x9f\xbf"), rep(3));
  EXPECT_EQ(svg::escaped("\xf0\x80\x80\xbc"), rep(4));
  EXPECT_EQ(svg::escaped("\xf0\x8f\xbf\xbf"), rep(4));
}

TEST(Xml, SurrogatesAndNonCharactersAreRejected) {
  EXPECT_EQ(svg::escaped("\xed\xa0\x80"), rep(3));      // U+D800
  EXPECT_EQ(svg::escaped("\xed\xbf\xbf"), rep(3));      // U+DFFF
  EXPECT_EQ(svg::escaped("\xf4\x90\x80\x80"), rep(4));  // U+110000
  EXPECT_EQ(svg::escaped("\xef\xbf\xbe"), rep(3));      // U+FFFE, not an XML Char
  EXPECT_EQ(svg::escaped("\xef\xbf\xbf"), rep(3));      // U+FFFF
}

TEST(Xml, ControlCharactersAreReplacedButTabIsKept) {
  EXPECT_EQ(svg::escaped(std::string_view("a\0-z", 4)), "a\xef\xbf\xbd-z");
  EXPECT_EQ(svg::escaped("\x01\x1f\n\r"), rep(4));
  EXPECT_EQ(svg::escaped("a\tb"), "a\tb");
  EXPECT_EQ(svg::escaped("\x7f"), "\x7f");  // DEL is an XML 1.0 Char
}

TEST(Xml, RandomBytesGiveWellFormedText) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string in(rng() % 24, '\0');
    for (char& c : in) c = static_cast<char>(rng() % 4 == 0 ? '<' + rng() % 3 : rng());
    std::string out = svg::escaped(in);
    ASSERT_TRUE(test_support::strict_utf8(out)) << round;
    ASSERT_EQ(out.find_first_of("<>\""), std::string::npos) << round;
    for (unsigned char c : out) ASSERT_TRUE(c >= 0x20 || c == '\t') << round;
  }
}

TEST(Format, Px) {
  EXPECT_EQ(scene::format_px(10), "10");
  EXPECT_EQ(scene::format_px(10.25), "10.3");  // llround: halves away from zero
  EXPECT_EQ(scene::format_px(-10.25), "-10.3");
  EXPECT_EQ(scene::format_px(10.04), "10");
  EXPECT_EQ(scene::format_px(0.96), "1");
  EXPECT_EQ(scene::format_px(-0.04), "0");
  EXPECT_EQ(scene::format_px(-0.0), "0");
  EXPECT_EQ(scene::format_px(0.05), "0.1");
  EXPECT_EQ(scene::format_px(-0.5), "-0.5");
  EXPECT_EQ(scene::format_px(1234.56), "1234.6");
  EXPECT_EQ(scene::format_px(1e9), "1000000000");
}

TEST(Format, PxAgreesWithRoundPx) {
  for (int i = -20000; i <= 20000; ++i) {
    double v = i * 0.0137;
    ASSERT_EQ(std::stod(scene::format_px(v)), scene::round_px(v)) << v;
  }
}

TEST(Color, FrameColorIsDeterministicAndPerName) {
  using scene::Palette;
  EXPECT_EQ(scene::frame_color(Palette::kHot, "main", false),
            scene::frame_color(Palette::kHot, "main", false));
  EXPECT_NE(scene::frame_color(Palette::kHot, "main", false),
            scene::frame_color(Palette::kHot, "malloc", false));
  std::set<std::string> distinct;
  for (int i = 0; i < 100; ++i) {
    distinct.insert(
        scene::to_hex(scene::frame_color(Palette::kHot, std::to_string(i) + "f", false)));
  }
  EXPECT_GT(distinct.size(), 90u);
}

TEST(Color, HotPaletteRanges) {
  for (bool by_prefix : {false, true}) {
    for (int i = 0; i < 2000; ++i) {
      std::string name = i == 0 ? "" : "fn_" + std::to_string(i * 7919) + std::string(i % 5, ':');
      scene::Rgb c = scene::frame_color(scene::Palette::kHot, name, by_prefix);
      ASSERT_GE(c.r, 205) << name;
      ASSERT_LE(c.g, 230) << name;
      ASSERT_LE(c.b, 55) << name;
    }
  }
}

TEST(Color, ParsePalette) {
  const char* names[] = {"hot", "mem",   "io",   "wakeup", "chain",  "java",   "js",    "perl",
                         "red", "green", "blue", "aqua",   "yellow", "purple", "orange"};
  std::set<scene::Palette> seen;
  for (const char* n : names) {
    auto p = scene::parse_palette(n);
    ASSERT_TRUE(p.has_value()) << n;
    seen.insert(*p);
    EXPECT_NE(scene::palette_names().find(n), std::string_view::npos) << n;
  }
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_EQ(scene::parse_palette("hot"), scene::Palette::kHot);
  EXPECT_EQ(scene::parse_palette("orange"), scene::Palette::kOrange);
  EXPECT_FALSE(scene::parse_palette("HOT").has_value());
  EXPECT_FALSE(scene::parse_palette("").has_value());
  EXPECT_FALSE(scene::parse_palette("rainbow").has_value());
}

TEST(Color, BackgroundColors) {
  using scene::Palette;
  scene::Rgb top, bottom;
  ASSERT_TRUE(scene::background_colors("", Palette::kHot, &top, &bottom));
  EXPECT_EQ(scene::to_hex(top) + scene::to_hex(bottom), "#eeeeee#eeeeb0");  // yellow
  ASSERT_TRUE(scene::background_colors("", Palette::kMem, &top, &bottom));
  EXPECT_EQ(scene::to_hex(bottom), "#e0ffe0");  // green
  ASSERT_TRUE(scene::background_colors("", Palette::kIo, &top, &bottom));
  EXPECT_EQ(scene::to_hex(bottom), "#e0e0ff");  // blue
  ASSERT_TRUE(scene::background_colors("", Palette::kAqua, &top, &bottom));
  EXPECT_EQ(scene::to_hex(top) + scene::to_hex(bottom), "#f8f8f8#e8e8e8");  // grey
  ASSERT_TRUE(scene::background_colors("green", Palette::kHot, &top, &bottom));
  EXPECT_EQ(scene::to_hex(top) + scene::to_hex(bottom), "#eef2ee#e0ffe0");
  ASSERT_TRUE(scene::background_colors("#12aB9f", Palette::kHot, &top, &bottom));
  EXPECT_EQ(scene::to_hex(top), "#12ab9f");
  EXPECT_EQ(top, bottom);
  EXPECT_FALSE(scene::background_colors("#12ab9g", Palette::kHot, &top, &bottom));
  EXPECT_FALSE(scene::background_colors("#12ab9", Palette::kHot, &top, &bottom));
  EXPECT_FALSE(scene::background_colors("12ab9ff", Palette::kHot, &top, &bottom));
  EXPECT_FALSE(scene::background_colors("purple", Palette::kHot, &top, &bottom));
}

TEST(Color, ToHex) {
  EXPECT_EQ(scene::to_hex({0, 0, 0}), "#000000");
  EXPECT_EQ(scene::to_hex({255, 16, 1}), "#ff1001");
  EXPECT_EQ(scene::to_hex({0xab, 0xcd, 0xef}), "#abcdef");
}

TEST(Color, DeltaColor) {
  EXPECT_EQ(scene::delta_color(0, 10), (scene::Rgb{255, 255, 255}));
  EXPECT_EQ(scene::delta_color(10, 10), (scene::Rgb{255, 0, 0}));
  EXPECT_EQ(scene::delta_color(-10, 10), (scene::Rgb{0, 0, 255}));
  EXPECT_EQ(scene::delta_color(5, 0), (scene::Rgb{255, 255, 255}));
}

}  // namespace
}  // namespace hearth
