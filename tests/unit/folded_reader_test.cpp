#include "render/profile/folded_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "render/profile/folded_writer.h"
#include "tests/unit/temp_dir.h"

namespace hearth::profile {
namespace {

// Every node (zero-count ones too) as "frame;frame;… SELF[/BASE]", sorted: equal for two
// trees exactly when they have the same nodes (as multisets of paths) with the same counts.
std::vector<std::string> canonical(const FrameTree& t) {
  std::vector<std::string> out;
  for (NodeId id = 1; id < t.size(); ++id) {
    std::vector<std::string_view> frames;
    for (NodeId n = id; n != kRoot; n = t.node(n).parent) frames.push_back(t.name(t.node(n).name));
    std::string s;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
      if (it != frames.rbegin()) s += ';';
      s += *it;
    }
    s += ' ' + format_count(t.self(id));
    if (t.differential()) s += '/' + format_count(t.base_self(id));
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  return out;
}

FrameTree parse(std::string_view text, ReadOptions options = {}, ReadStats* stats = nullptr,
                Merge merge = Merge::kAll) {
  FrameTree tree(merge);
  FoldedReader reader(tree, options);
  reader.read_text(text);
  tree.finalize();
  if (stats != nullptr) *stats = reader.stats();
  return tree;
}

// The reference: each line split by hand ("STACK COUNT", one space) and added with add_stack.
FrameTree by_add_stack(const std::vector<std::string>& lines, Merge merge = Merge::kAll) {
  FrameTree tree(merge);
  for (const std::string& line : lines) {
    size_t space = line.rfind(' ');
    std::string_view stack = std::string_view(line).substr(0, space);
    std::vector<std::string_view> frames;
    for (size_t start = 0;;) {
      size_t semi = stack.find(';', start);
      frames.push_back(stack.substr(start, semi == stack.npos ? semi : semi - start));
      if (semi == stack.npos) break;
      start = semi + 1;
    }
    std::string count = line.substr(space + 1);
    tree.add_stack(frames, count.find('.') == std::string::npos
                               ? whole_count(std::stoull(count))
                               : fractional_count(std::stod(count)));
  }
  tree.finalize();
  return tree;
}

using Frames = std::vector<std::string>;

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

// The frames from the root along first children.
Frames first_path(const FrameTree& t) {
  Frames out;
  for (NodeId n = t.node(kRoot).first_child; n != kNone; n = t.node(n).first_child) {
    out.emplace_back(t.name(t.node(n).name));
  }
  return out;
}

struct FileRead {
  std::vector<std::string> paths;
  std::vector<std::string> canonical;
  double total = 0;
  ReadStats stats;
};

// Reads each text from a file of its own (in a directory of the test's own), in order, into
// one tree.
FileRead read_files(const std::vector<std::string>& texts, ReadOptions options = {}) {
  testing_support::TempDir dir;
  EXPECT_TRUE(dir.ok());
  FrameTree t;
  FoldedReader r(t, options);
  std::vector<std::string> paths;
  for (const std::string& text : texts) {
    std::string path = dir / ("in" + std::to_string(paths.size()) + ".folded");
    std::ofstream(path, std::ios::binary) << text;
    EXPECT_TRUE(r.read_file(path).has_value());
    paths.push_back(path);
  }
  t.finalize();
  return {paths, canonical(t), t.total().value, r.stats()};
}

TEST(FoldedReader, FrameNamesAreKeptAsBytes) {
  EXPECT_EQ(first_path(parse("a\xff\xfe;b\x80\xc3 2\n")), (Frames{"a\xff\xfe", "b\x80\xc3"}));
  FrameTree t = parse("main;do work;std::map<int, int>::find(int const&) const 5\n");
  EXPECT_EQ(first_path(t),
            (Frames{"main", "do work", "std::map<int, int>::find(int const&) const"}));
  EXPECT_EQ(t.total().value, 5);
}

TEST(FoldedReader, ExactlyOneBlankBeforeTheCount) {
  // As flamegraph.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/: "a; 3" has an empty leaf, "a;  3" a " ".
  EXPECT_EQ(first_path(parse("a; 3\n")), (Frames{"a", ""}));
  EXPECT_EQ(first_path(parse("a;  3\n")), (Frames{"a", " "}));
  EXPECT_EQ(first_path(parse("a;b\t7\n")), (Frames{"a", "b"}));
  EXPECT_EQ(first_path(parse("a;b \t7\n")), (Frames{"a", "b "}));
}

TEST(FoldedReader, CrlfAndBlankLines) {
  ReadStats crlf;
  FrameTree a = parse("a;b 1\r\n\r\n\n   \n\t\na;c 2\r\n", {}, &crlf);
  EXPECT_EQ(canonical(a), canonical(parse("a;b 1\na;c 2\n")));
  EXPECT_EQ(crlf.lines, 2u);
  EXPECT_EQ(crlf.ignored, 0u);
  EXPECT_EQ(crlf.first_ignored_line, 0u);
}

TEST(FoldedReader, UnparsableLinesAreCountedWithTheFirstLineNumber) {
  ReadStats s;
  FrameTree t = parse("a 1\n\nno_count\na;b x\n42\na;b1\na .5\na 1.2.3\n-a 3\nb 2\n", {}, &s);
  EXPECT_EQ(s.ignored, 6u);
  EXPECT_EQ(s.first_ignored_line, 3u);  // blank lines are numbered too
  EXPECT_EQ(s.lines, 3u);               // "a 1", "-a 3", "b 2"
  EXPECT_EQ(t.total().value, 6);
}

// Counts are whole numbers, exact up to 2^64 - 1, and so are their sums (a double would show
// 9223372036854775807 as ...808, and lose the 1 in 2^53 + 1).
TEST(FoldedReader, WholeCountsAreExact) {
  ReadStats s;
  FrameTree t = parse("a;b 9223372036854775807\n", {}, &s);
  EXPECT_FALSE(t.fractional());
  EXPECT_EQ(t.total().whole, 9223372036854775807u);
  EXPECT_EQ(t.total(t.node(kRoot).first_child).whole, 9223372036854775807u);
  EXPECT_EQ(to_folded(t), "a;b 9223372036854775807\n");
  FrameTree sum = parse("a;b 9007199254740993\na;c 1\nd 18000000000000000000\n", {}, &s);
  EXPECT_EQ(sum.total(sum.node(kRoot).first_child).whole, 9007199254740994u);
  EXPECT_EQ(sum.total().whole, 18000000000000000000u + 9007199254740994u);
  EXPECT_EQ(s.overflow_line, 0u);
  FrameTree max = parse("a 18446744073709551615\nb 0\n", {}, &s);
  EXPECT_EQ(max.total().whole, kMaxWholeCount);
  EXPECT_FALSE(max.overflowed());
  EXPECT_EQ(s.overflow_line, 0u);
  // Leading zeros are fine.
  FrameTree zeros = parse("a 000000000000000000000000012\nb 3\n", {}, &s);
  EXPECT_FALSE(zeros.fractional());
  EXPECT_EQ(zeros.total().whole, 15u);
  EXPECT_EQ(s.ignored, 0u);
}

TEST(FoldedReader, CountsPastTheLimitAreNotedWithTheirLine) {
  ReadStats s;
  // One count past it.
  parse("a 1\nb 18446744073709551616\nc 2\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 2u);
  EXPECT_EQ(s.ignored, 0u);
  parse("a 123456789012345678901\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 1u);
  // A sum past it: the line where it happens.
  FrameTree t = parse("a 1\nb 18446744073709551610\nc 4\nd 1\ne 1\n", {}, &s);
  EXPECT_TRUE(t.overflowed());
  EXPECT_EQ(s.overflow_line, 4u);
  // Each column of two-count lines on its own.
  parse("a 18446744073709551615 1\nb 0 1\nc 1 1\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 3u);
  parse("a 1 18446744073709551615\nb 1 0\nc 1 1\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 3u);
  parse("a 18446744073709551616 1\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 1u);
  // Past double's range, with a fraction: too large as well; far below it: not a count.
  parse("a " + std::string(400, '9') + ".5\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 1u);
  parse("a 0." + std::string(400, '0') + "1\n", {}, &s);
  EXPECT_EQ(s.overflow_line, 0u);
  EXPECT_EQ(s.ignored, 1u);
  // Integers are summed apart from real numbers, whatever comes first.
  for (const char* text :
       {"a 0.5\nb 18446744073709551615\nc 1\n", "b 18446744073709551615\nc 1\na 0.5\n"}) {
    parse(text, {}, &s);
    EXPECT_EQ(s.overflow_line, text[0] == 'a' ? 3u : 2u) << text;
  }
}

TEST(TakeTrailingCount, WholeFractionalNoneOrTooLarge) {
  auto take = [](std::string_view line, Count* c) {
    std::string_view s = line;
    TrailingCount r = take_trailing_count(&s, c);
    return std::pair{r, std::string(s)};
  };
  Count c;
  EXPECT_EQ(take("a;b 12", &c), std::pair(TrailingCount::kFound, std::string("a;b")));
  EXPECT_EQ(c.whole, 12u);
  EXPECT_FALSE(c.fractional);
  EXPECT_EQ(take("a 0.25", &c).first, TrailingCount::kFound);
  EXPECT_TRUE(c.fractional);
  EXPECT_EQ(c.value, 0.25);
  EXPECT_EQ(take("a 18446744073709551615", &c).first, TrailingCount::kFound);
  EXPECT_EQ(c.whole, kMaxWholeCount);
  EXPECT_EQ(take("a 18446744073709551616", &c),
            std::pair(TrailingCount::kTooLarge, std::string("a")));
  EXPECT_EQ(take("a 99999999999999999999", &c).first, TrailingCount::kTooLarge);
  // With a dot it is a real number, a double, whatever its value.
  for (std::string_view dotted : {"a 18446744073709551616.0", "a 18446744073709551616."}) {
    EXPECT_EQ(take(dotted, &c), std::pair(TrailingCount::kFound, std::string("a"))) << dotted;
    EXPECT_TRUE(c.fractional);
    EXPECT_EQ(c.value, 0x1p64);
  }
  EXPECT_EQ(take("a 12.0", &c).first, TrailingCount::kFound);
  EXPECT_TRUE(c.fractional);
  EXPECT_EQ(c.value, 12);
  for (std::string_view none : {"a", "12", "a12", "a .5", "a 1.2.3", "a -3", "a 1e5"}) {
    EXPECT_EQ(take(none, &c), std::pair(TrailingCount::kNoCount, std::string(none))) << none;
  }
}

TEST(FoldedReader, FractionalCountsSum) {
  FrameTree t = parse("a;b 0.5\na;b 0.25\na;c 1.\n");
  EXPECT_TRUE(t.fractional());
  EXPECT_EQ(t.self(t.node(t.node(kRoot).first_child).first_child).value, 0.75);
  EXPECT_EQ(t.total().value, 1.75);
  // Whole counts read before the first fraction are kept.
  FrameTree mixed = parse("a;b 3\na;c 4\na;b 0.5\n");
  EXPECT_TRUE(mixed.fractional());
  EXPECT_EQ(mixed.total().value, 7.5);
  EXPECT_EQ(to_folded(mixed), "a;b 3.5\na;c 4.0\n");
  // Two-count lines too, either column.
  FrameTree two = parse("a 1 2\nb 0.5 1\nc 3\n");
  EXPECT_TRUE(two.fractional());
  EXPECT_EQ(two.base_total(kRoot).value, 4.5);
  EXPECT_EQ(two.total().value, 6);
}

TEST(FoldedReader, TwoCountLinesAreDifferential) {
  FrameTree t = parse("a;b 3 5\na;c 0 2\na;d 4\n");
  ASSERT_TRUE(t.differential());
  EXPECT_EQ(t.total().value, 11);
  EXPECT_EQ(t.base_total(kRoot).value, 3 + 0 + 4);
  NodeId b = t.node(t.node(kRoot).first_child).first_child;
  EXPECT_EQ(t.self(b).value, 5);
  EXPECT_EQ(t.base_self(b).value, 3);
  // A one-count line before the first two-count line is "unchanged" as well.
  FrameTree u = parse("x 4\ny 1 2\n");
  EXPECT_EQ(u.base_self(u.node(kRoot).first_child).value, 4);
  EXPECT_EQ(u.base_total(kRoot).value, 5);
}

TEST(FoldedReader, TenThousandFramesDeep) {
  std::string line;
  for (int i = 0; i < 10000; ++i) line.append("f").append(std::to_string(i % 7)).append(";");
  line.back() = ' ';
  for (bool reverse : {false, true}) {
    FrameTree t = parse(line + "3\n" + line + "4\n", {.reverse = reverse});
    ASSERT_EQ(t.size(), 10001u);
    EXPECT_EQ(t.depth(static_cast<NodeId>(t.size() - 1)), 10000);
    EXPECT_EQ(t.total(t.node(kRoot).first_child).value, 7);
    EXPECT_EQ(t.self(static_cast<NodeId>(t.size() - 1)).value, 7);
  }
}

// Lines sharing prefixes with the previous one take the fast path; the tree must be the one
// add_stack builds.
TEST(FoldedReader, SharedPrefixFastPathMatchesAddStack) {
  const std::vector<std::vector<std::string>> cases = {
      {"a;b 1", "a;bc 1"},
      {"a;bc 1", "a;b 1"},
      {"a;b;c 1", "a;b 2", "a 3"},
      {"a;b 1", "a;b 2"},
      {"a;b 1", "a;b;c 1", "a 1", "a;b;c;d 1", "b;c 1", "a;b;c 1"},
      {"a;b 1", "a;b; 1", "a;b;;c 1", "a;b; 1", "a; 1", ";a 1", "; 1"},
      {"ab;c 1", "a;c 1", "ab;c 1", "abc 1", "ab 1", "a 1"},
      {"x;y;z 1", "x;y;zz 1", "x;yy;z 1", "x;y 1", "x;y;z 1"}};
  for (const auto& lines : cases) {
    SCOPED_TRACE(joined(lines));
    FrameTree expected = by_add_stack(lines);
    FrameTree got = parse(joined(lines));
    EXPECT_EQ(canonical(got), canonical(expected));
    EXPECT_EQ(got.size(), expected.size());
  }
}

TEST(FoldedReader, SharedPrefixFastPathRandomised) {
  const std::vector<std::string> names = {"a", "b", "ab", "ba", "", " ", "a b"};
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> lines;
    for (int i = 0; i < 300; ++i) {
      std::string stack;
      int depth = 1 + static_cast<int>(rng() % 6);
      for (int d = 0; d < depth; ++d) {
        if (d > 0) stack += ';';
        stack += names[rng() % names.size()];
      }
      if (stack.empty()) stack += 'a';  // " 3" has no stack at all
      lines.push_back(stack + " " + std::to_string(1 + rng() % 9));
    }
    if (round % 2 == 0) std::sort(lines.begin(), lines.end());  // folded files are sorted
    SCOPED_TRACE(round);
    EXPECT_EQ(canonical(parse(joined(lines))), canonical(by_add_stack(lines)));
    // Flame charts reuse the previous line's frames too: they are its parent's last children.
    EXPECT_EQ(canonical(parse(joined(lines), {}, nullptr, Merge::kLastChild)),
              canonical(by_add_stack(lines, Merge::kLastChild)));
  }
}

TEST(FoldedReader, FlameChartMergesOnlyWithTheLastChild) {
  FrameTree t = parse("a;b 1\na;c 1\na;b 1\na;b 2\n", {}, nullptr, Merge::kLastChild);
  NodeId a = t.node(kRoot).first_child;
  std::vector<std::pair<std::string, double>> kids;
  for (NodeId c = t.node(a).first_child; c != kNone; c = t.node(c).next_sibling) {
    kids.emplace_back(t.name(t.node(c).name), t.self(c).value);
  }
  EXPECT_EQ(kids, (std::vector<std::pair<std::string, double>>{{"b", 1}, {"c", 1}, {"b", 3}}));
}

TEST(FoldedReader, Reverse) {
  FrameTree t = parse("a;b;c 2\nx;b;c 1\n", {.reverse = true});
  EXPECT_EQ(first_path(t), (Frames{"c", "b", "a"}));
  EXPECT_EQ(t.total(t.node(kRoot).first_child).value, 3);
  EXPECT_EQ(canonical(t), canonical(by_add_stack({"c;b;a 2", "c;b;x 1"})));
}

TEST(FoldedReader, FileWithoutTrailingNewline) {
  FileRead r = read_files({"a;b 1\r\na;c 2"});
  EXPECT_EQ(r.total, 3);
  EXPECT_EQ(r.stats.lines, 2u);
  EXPECT_EQ(r.stats.bytes, 12u);
}

TEST(FoldedReader, MissingFileNamesThePath) {
  FrameTree t;
  FoldedReader r(t, {});
  auto res = r.read_file("/nonexistent/hearth/stacks.folded");
  ASSERT_FALSE(res.has_value());
  EXPECT_NE(res.error().message.find("/nonexistent/hearth/stacks.folded"), std::string::npos);
  EXPECT_EQ(res.error().errnum, ENOENT);
}

TEST(FoldedReader, IgnoredLineNamesItsFile) {
  FileRead r = read_files({"a 1\n", "b 1\n\noops\n"});
  EXPECT_EQ(r.stats.first_ignored_file, r.paths[1]);
  EXPECT_EQ(r.stats.first_ignored_line, 3u);  // numbering restarts per file
}

constexpr size_t kChunk = 4 << 20;  // the reader's first buffer

// More than a chunk of "f 1" lines, so what follows a long line is read in a new chunk.
std::string filler() {
  std::string s;
  while (s.size() < kChunk + 100) s += "f 1\n";
  return s;
}
constexpr double kFiller = (kChunk + 100 + 3) / 4;  // its total

// A line longer than the buffer is read whole (the buffer grows): one 5 MB stack of 600,000
// frames, as a deep recursion makes, was ignored when the buffer was the limit.
TEST(FoldedReader, LineLongerThanTheChunkIsRead) {
  std::string deep;
  for (int i = 0; i < 600000; ++i) deep += "func" + std::to_string(i % 9973) + ";";
  deep.back() = ' ';
  ASSERT_GT(deep.size(), kChunk);
  testing_support::TempDir dir;
  std::ofstream(dir / "deep.folded", std::ios::binary) << "a 1\n" << deep << "3\n" << filler();
  FrameTree t;
  FoldedReader reader(t, {});
  ASSERT_TRUE(reader.read_file(dir / "deep.folded").has_value());
  t.finalize();
  EXPECT_EQ(reader.stats().ignored, 0u);
  EXPECT_EQ(reader.stats().overlong, 0u);
  EXPECT_EQ(reader.stats().lines, 2 + static_cast<uint64_t>(kFiller));
  EXPECT_EQ(t.total().value, 1 + 3 + kFiller);
  EXPECT_EQ(t.size(), 1 + 1 + 600000 + 1u);  // all, a, the frames, f
  NodeId leaf = t.node(kRoot).first_child;
  for (NodeId n = t.node(leaf).next_sibling; n != kNone; n = t.node(n).first_child) leaf = n;
  EXPECT_EQ(t.depth(leaf), 600000);
  EXPECT_EQ(t.self(leaf).whole, 3u);
}

// Here the rest of the file arrives with the read that finds the long line's end.
TEST(FoldedReader, LinesAfterALongLineAtTheEndOfTheFile) {
  FileRead r = read_files({"a 1\n" + std::string(kChunk + 1000, 'x') + " 1\nb 2\nc 3"});
  EXPECT_EQ(r.total, 7);
  EXPECT_EQ(r.stats.lines, 4u);
  EXPECT_EQ(r.stats.ignored, 0u);
}

// Over the limit: the line is skipped up to its newline and counted apart from the lines that
// do not parse; what follows is read.
TEST(FoldedReader, LineOverTheLimitIsSkippedAndCounted) {
  const ReadOptions limit{.max_line_bytes = kChunk + 10};
  std::string over = std::string(kChunk + 1000, 'x') + " 1\n";
  FileRead r = read_files({"a 1\n" + over + "b 2\nc 3"}, limit);
  EXPECT_EQ(r.total, 6);
  EXPECT_EQ(r.stats.lines, 3u);
  EXPECT_EQ(r.stats.ignored, 0u);
  EXPECT_EQ(r.stats.overlong, 1u);
  EXPECT_EQ(r.stats.first_overlong_line, 2u);
  EXPECT_EQ(r.stats.first_overlong_file, r.paths[0]);
  // Over the limit by far (the buffer fills several times while skipping), twice, the first
  // as line 1 (0 would mean "none").
  std::string far = std::string(3 * kChunk + 7, 'y') + " 1\n";
  r = read_files({far + "a 1\n" + far + filler()}, limit);
  EXPECT_EQ(r.stats.overlong, 2u);
  EXPECT_EQ(r.stats.first_overlong_line, 1u);
  EXPECT_EQ(r.total, 1 + kFiller);
  // A small limit, where the line fits the buffer: the same, and read_text agrees.
  const ReadOptions tiny{.max_line_bytes = 8};
  r = read_files({"a;b 1\nlong;line 2\nc;d 12\n"}, tiny);
  EXPECT_EQ(r.total, 13);
  EXPECT_EQ(r.stats.overlong, 1u);
  EXPECT_EQ(r.stats.first_overlong_line, 2u);
  ReadStats s;
  EXPECT_EQ(parse("a;b 1\nlong;line 2\nc;d 12", tiny, &s).total().value, 13);
  EXPECT_EQ(s.overlong, 1u);
  EXPECT_EQ(s.first_overlong_line, 2u);
}

// A line of exactly the limit is read; one byte more is not (the last line too, without a
// newline), whatever the buffer's size when it ends.
TEST(FoldedReader, LineOfExactlyTheLimitIsRead) {
  for (size_t limit : {size_t{8}, kChunk - 1, kChunk, kChunk + 1, 2 * kChunk + 5}) {
    std::string at = std::string(limit - 2, 'x') + " 1";
    std::string over = std::string(limit - 1, 'y') + " 2";
    for (const std::string& text :
         {at + "\n" + over + "\n", over + "\n" + at + "\n", at + "\n" + over, over + "\n" + at}) {
      FileRead r = read_files({text}, {.max_line_bytes = limit});
      EXPECT_EQ(r.total, 1) << limit;
      EXPECT_EQ(r.stats.overlong, 1u) << limit;
      EXPECT_EQ(r.stats.bytes, text.size()) << limit;
    }
  }
}

TEST(FoldedReader, LongLinesCountTheirBytes) {
  std::string text = "a 1\n" + std::string(2 * kChunk + 7, 'x') + " 1\n" + filler();
  EXPECT_EQ(read_files({text}).stats.bytes, text.size());
  EXPECT_EQ(read_files({text}, {.max_line_bytes = kChunk}).stats.bytes, text.size());
}

TEST(FoldedReader, LinesStraddlingChunkBoundaries) {
  std::string text;
  double expected = 0;
  for (int i = 0; text.size() < 2 * kChunk + 4096; ++i) {
    std::string line = "frame" + std::to_string(i % 13) + ";leaf" + std::to_string(i % 101);
    line += std::string(static_cast<size_t>(i % 37), 'p') + " " + std::to_string(i % 5 + 1);
    expected += i % 5 + 1;
    text += line + (i % 3 == 0 ? "\r\n" : "\n");
  }
  FileRead r = read_files({text});
  EXPECT_EQ(r.stats.ignored, 0u);
  EXPECT_EQ(r.total, expected);
  EXPECT_EQ(r.canonical, canonical(parse(text)));
}

}  // namespace
}  // namespace hearth::profile
