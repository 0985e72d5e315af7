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
    s += ' ' + std::to_string(t.node(id).self);
    if (t.differential()) s += '/' + std::to_string(t.base_self(id));
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
    tree.add_stack(frames, std::stod(line.substr(space + 1)));
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

struct TempFile {
  explicit TempFile(const std::string& contents)
      : path((std::filesystem::temp_directory_path() /
              ("hearth_reader_" + std::to_string(::getpid()) + "_" + std::to_string(next++)))
                 .string()) {
    std::ofstream(path, std::ios::binary) << contents;
  }
  ~TempFile() { std::filesystem::remove(path); }
  static inline int next = 0;
  const std::string path;
};

struct FileRead {
  std::vector<std::string> paths;
  std::vector<std::string> canonical;
  double total = 0;
  ReadStats stats;
};

// Reads each text from a file of its own, in order, into one tree.
FileRead read_files(const std::vector<std::string>& texts) {
  FrameTree t;
  FoldedReader r(t, {});
  std::vector<std::string> paths;
  for (const std::string& text : texts) {
    TempFile f(text);
    EXPECT_TRUE(r.read_file(f.path).has_value());
    paths.push_back(f.path);
  }
  t.finalize();
  return {paths, canonical(t), t.total(), r.stats()};
}

TEST(FoldedReader, FrameNamesAreKeptAsBytes) {
  EXPECT_EQ(first_path(parse("a\xff\xfe;b\x80\xc3 2\n")), (Frames{"a\xff\xfe", "b\x80\xc3"}));
  FrameTree t = parse("main;do work;std::map<int, int>::find(int const&) const 5\n");
  EXPECT_EQ(first_path(t),
            (Frames{"main", "do work", "std::map<int, int>::find(int const&) const"}));
  EXPECT_EQ(t.total(), 5);
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
  EXPECT_EQ(t.total(), 6);
}

TEST(FoldedReader, HugeCounts) {
  ReadStats s;
  FrameTree t = parse("a 123456789012345678901\nb 999999999999999\nc 9999999999999999\n", {}, &s);
  EXPECT_EQ(s.ignored, 0u);
  EXPECT_DOUBLE_EQ(t.total(), 123456789012345678901.0 + 999999999999999.0 + 9999999999999999.0);
  // A count beyond double's range cannot be represented: the line is dropped, not misread.
  FrameTree inf = parse("a " + std::string(400, '9') + "\n", {}, &s);
  EXPECT_EQ(s.ignored, 1u);
  EXPECT_EQ(inf.total(), 0);
}

TEST(FoldedReader, FractionalCountsSum) {
  FrameTree t = parse("a;b 0.5\na;b 0.25\na;c 1.\n");
  EXPECT_EQ(t.node(t.node(t.node(kRoot).first_child).first_child).self, 0.75);
  EXPECT_EQ(t.total(), 1.75);
}

TEST(FoldedReader, TwoCountLinesAreDifferential) {
  FrameTree t = parse("a;b 3 5\na;c 0 2\na;d 4\n");
  ASSERT_TRUE(t.differential());
  EXPECT_EQ(t.total(), 11);
  EXPECT_EQ(t.base_total(kRoot), 3 + 0 + 4);
  NodeId b = t.node(t.node(kRoot).first_child).first_child;
  EXPECT_EQ(t.node(b).self, 5);
  EXPECT_EQ(t.base_self(b), 3);
  // A one-count line before the first two-count line is "unchanged" as well.
  FrameTree u = parse("x 4\ny 1 2\n");
  EXPECT_EQ(u.base_self(u.node(kRoot).first_child), 4);
  EXPECT_EQ(u.base_total(kRoot), 5);
}

TEST(FoldedReader, TenThousandFramesDeep) {
  std::string line;
  for (int i = 0; i < 10000; ++i) line.append("f").append(std::to_string(i % 7)).append(";");
  line.back() = ' ';
  for (bool reverse : {false, true}) {
    FrameTree t = parse(line + "3\n" + line + "4\n", {.reverse = reverse});
    ASSERT_EQ(t.size(), 10001u);
    EXPECT_EQ(t.depth(static_cast<NodeId>(t.size() - 1)), 10000);
    EXPECT_EQ(t.node(t.node(kRoot).first_child).total, 7);
    EXPECT_EQ(t.node(static_cast<NodeId>(t.size() - 1)).self, 7);
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
    kids.emplace_back(t.name(t.node(c).name), t.node(c).self);
  }
  EXPECT_EQ(kids, (std::vector<std::pair<std::string, double>>{{"b", 1}, {"c", 1}, {"b", 3}}));
}

TEST(FoldedReader, Reverse) {
  FrameTree t = parse("a;b;c 2\nx;b;c 1\n", {.reverse = true});
  EXPECT_EQ(first_path(t), (Frames{"c", "b", "a"}));
  EXPECT_EQ(t.node(t.node(kRoot).first_child).total, 3);
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

constexpr size_t kChunk = 4 << 20;  // the reader's buffer

// More than a chunk of "f 1" lines, so what follows an overlong line is read in a new chunk.
std::string filler() {
  std::string s;
  while (s.size() < kChunk + 100) s += "f 1\n";
  return s;
}

TEST(FoldedReader, LineLongerThanTheChunkIsIgnored) {
  FileRead r = read_files({"a 1\n" + std::string(kChunk + 1000, 'x') + " 1\n" + filler()});
  EXPECT_EQ(r.total, 1 + (kChunk + 100 + 3) / 4);
  EXPECT_EQ(r.stats.ignored, 1u);
}

// Here the rest of the file arrives with the read that finds the overlong line's end.
TEST(FoldedReader, LinesAfterAnOverlongLineAtTheEndOfTheFile) {
  FileRead r = read_files({"a 1\n" + std::string(kChunk + 1000, 'x') + " 1\nb 2\nc 3"});
  EXPECT_EQ(r.total, 6);
  EXPECT_EQ(r.stats.lines, 3u);
  EXPECT_EQ(r.stats.ignored, 1u);
}

// The overlong line is line 2; an overlong first line is line 1 (0 would mean "none").
TEST(FoldedReader, LineLongerThanTheChunkHasItsLineNumber) {
  std::string overlong = std::string(kChunk + 1000, 'x') + " 1\n";
  EXPECT_EQ(read_files({"a 1\n" + overlong + filler()}).stats.first_ignored_line, 2u);
  EXPECT_EQ(read_files({overlong + filler()}).stats.first_ignored_line, 1u);
}

TEST(FoldedReader, LineLongerThanTheChunkCountsItsBytes) {
  std::string text = "a 1\n" + std::string(2 * kChunk + 7, 'x') + " 1\n" + filler();
  EXPECT_EQ(read_files({text}).stats.bytes, text.size());
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
