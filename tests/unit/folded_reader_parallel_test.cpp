// read_file's two-thread path: whatever the input, the tree (node and name ids included), its
// counts and the stats are those of one thread reading the same file.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "render/profile/folded_reader.h"
#include "tests/unit/temp_dir.h"

namespace hearth::profile {
namespace {

struct ParRead {
  FrameTree tree;
  ReadStats stats;
  bool ok = false;
};

// Reads FILES in order into one tree, with THREADS.
ParRead par_read(const std::vector<std::string>& files, ReadOptions options, unsigned threads) {
  ParRead r;
  options.threads = threads;
  options.parallel_min_bytes = 0;
  FoldedReader reader(r.tree, options);
  r.ok = true;
  for (const std::string& f : files) r.ok = r.ok && reader.read_file(f).has_value();
  r.stats = reader.stats();
  return r;
}

// The same tree, id for id.
void expect_same_tree(const FrameTree& a, const FrameTree& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.name_count(), b.name_count());
  EXPECT_EQ(a.differential(), b.differential());
  EXPECT_EQ(a.fractional(), b.fractional());
  EXPECT_EQ(a.overflowed(), b.overflowed());
  for (NameId i = 0; i < a.name_count(); ++i) ASSERT_EQ(a.name(i), b.name(i)) << i;
  for (NodeId i = 0; i < a.size(); ++i) {
    const Node& x = a.node(i);
    const Node& y = b.node(i);
    ASSERT_EQ(x.name, y.name) << i;
    ASSERT_EQ(x.parent, y.parent) << i;
    ASSERT_EQ(x.first_child, y.first_child) << i;
    ASSERT_EQ(x.next_sibling, y.next_sibling) << i;
    ASSERT_EQ(a.self(i).value, b.self(i).value) << i;
    ASSERT_EQ(a.self(i).whole, b.self(i).whole) << i;
    ASSERT_EQ(a.base_self(i).value, b.base_self(i).value) << i;
  }
}

void expect_same_stats(const ReadStats& a, const ReadStats& b) {
  EXPECT_EQ(a.lines, b.lines);
  EXPECT_EQ(a.ignored, b.ignored);
  EXPECT_EQ(a.first_ignored_line, b.first_ignored_line);
  EXPECT_EQ(a.first_ignored_file, b.first_ignored_file);
  EXPECT_EQ(a.overlong, b.overlong);
  EXPECT_EQ(a.first_overlong_line, b.first_overlong_line);
  EXPECT_EQ(a.first_overlong_file, b.first_overlong_file);
  EXPECT_EQ(a.overflow_line, b.overflow_line);
  EXPECT_EQ(a.overflow_file, b.overflow_file);
  EXPECT_EQ(a.bytes, b.bytes);
}

// LINES stacks over a small vocabulary, sharing prefixes as sorted profiles do, with thread
// roots; EXTRA(i) may append to or replace line i.
template <typename Extra>
std::string par_text(int lines, uint32_t seed, Extra extra) {
  std::mt19937 rng(seed);
  std::vector<std::string> prev;
  std::string out;
  for (int i = 0; i < lines; ++i) {
    std::vector<std::string> stack(prev.begin(),
                                   prev.begin() + std::min<size_t>(prev.size(), rng() % 6));
    if (stack.empty()) stack.push_back("[worker-" + std::to_string(rng() % 3) + " tid=" +
                                       std::to_string(100 + rng() % 5) + "]");
    size_t depth = stack.size() + 1 + rng() % 8;
    while (stack.size() < depth) stack.push_back("fn" + std::to_string(rng() % 40) + "()");
    std::string line;
    for (const std::string& f : stack) line += (line.empty() ? "" : ";") + f;
    line += " " + std::to_string(1 + rng() % 9);
    out += extra(i, line) + "\n";
    prev = std::move(stack);
  }
  return out;
}

std::string par_plain(int, const std::string& line) {
  return line;
}

struct ParCase {
  const char* name;
  std::string text;
  ReadOptions options;
};

TEST(FoldedReaderParallel, SameTreeIdsAndStatsAsOneThread) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const int n = 4000;
  std::vector<ParCase> cases = {
      {"plain", par_text(n, 1, par_plain), {}},
      {"ignored lines and blanks in both halves, CRLF",
       par_text(n, 2,
                [](int i, const std::string& l) {
                  return i % 997 == 5 ? std::string("no count here") :
                         i % 331 == 0 ? std::string() :
                         i % 3 == 0   ? l + "\r" :
                                        l;
                }),
       {}},
      {"ignored lines only in the second half",
       par_text(n, 3,
                [](int i, const std::string& l) { return i == 3100 ? "x;y" : l; }),
       {}},
      {"two-count lines from the second half on",
       par_text(n, 4,
                [](int i, const std::string& l) {
                  return i > 2500 && i % 5 == 0 ? l.substr(0, l.rfind(' ')) + " 3 " + "7" : l;
                }),
       {}},
      {"a fractional count in the second half",
       par_text(n, 5,
                [](int i, const std::string& l) { return i == 3500 ? l + ".5" : l; }),
       {}},
      {"a count too large, and counts adding up past the limit",
       par_text(n, 6,
                [](int i, const std::string& l) {
                  if (i == 3000) return l.substr(0, l.rfind(' ')) + " 99999999999999999999";
                  if (i == 1000 || i == 3600)
                    return l.substr(0, l.rfind(' ')) + " 18446744073709551000";
                  return l;
                }),
       {}},
      {"overlong lines in the second half",
       par_text(n, 7,
                [](int i, const std::string& l) {
                  return i % 1500 == 1499 ? std::string(300, 'z') + " 1" : l;
                }),
       {.max_line_bytes = 200}},
      {"reverse", par_text(n, 8, par_plain), {.reverse = true}},
      {"thread ids stripped", par_text(n, 9, par_plain), {.strip_thread_ids = true}},
      {"one line", "a;b;c 5\n", {}},
      {"no newline after the middle", "a 1\n" + std::string(500, 'q') + " 2", {}},
      {"last line without a newline", par_text(n, 10, par_plain) + "end;here 4", {}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE(cases[k].name);
    std::string path = dir / ("in" + std::to_string(k) + ".folded");
    std::ofstream(path, std::ios::binary) << cases[k].text;
    ParRead one = par_read({path}, cases[k].options, 1);
    ParRead two = par_read({path}, cases[k].options, 2);
    ASSERT_TRUE(one.ok && two.ok);
    expect_same_tree(one.tree, two.tree);
    expect_same_stats(one.stats, two.stats);
  }
}

// Two files into one tree: the second is read in two trees merged into a tree that is not
// empty; and the two columns of a differential tree (as hearth diff reads BASE and NEW).
TEST(FoldedReaderParallel, SecondFileAndDifferentialColumns) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string a = dir / "a.folded", b = dir / "b.folded";
  std::ofstream(a, std::ios::binary) << par_text(3000, 11, par_plain);
  std::ofstream(b, std::ios::binary) << par_text(3000, 12, [](int i, const std::string& l) {
    return i == 2900 ? std::string("bad") : l;
  });
  ParRead one = par_read({a, b}, {}, 1);
  ParRead two = par_read({a, b}, {}, 2);
  ASSERT_TRUE(one.ok && two.ok);
  expect_same_tree(one.tree, two.tree);
  expect_same_stats(one.stats, two.stats);
  EXPECT_EQ(two.stats.first_ignored_file, b);
  EXPECT_EQ(two.stats.first_ignored_line, 2901u);

  // A node that only the second half has, with many children (more than a parent lists before
  // it indexes them), and a later file that finds some of them and adds others.
  std::string wide_a = dir / "wide_a.folded", wide_b = dir / "wide_b.folded";
  std::string c_text = par_text(2000, 13, par_plain);
  for (int i = 0; i < 40; ++i) c_text += "late;wide;kid" + std::to_string(i) + " 1\n";
  std::ofstream(wide_a, std::ios::binary) << c_text;
  std::string d_text;
  for (int i = 20; i < 60; ++i) d_text += "late;wide;kid" + std::to_string(i) + ";x 2\n";
  std::ofstream(wide_b, std::ios::binary) << d_text;
  ParRead one_w = par_read({wide_a, wide_b}, {}, 1);
  ParRead two_w = par_read({wide_a, wide_b}, {}, 2);
  ASSERT_TRUE(one_w.ok && two_w.ok);
  expect_same_tree(one_w.tree, two_w.tree);

  // As hearth diff reads them: BASE, then NEW, each by a reader of its own column.
  auto diff_read = [&](unsigned threads) {
    ParRead r;
    r.tree.add_self(kRoot, {}, {});
    r.ok = true;
    for (Column c : {Column::kBase, Column::kNew}) {
      ReadOptions o{.column = c, .strip_thread_ids = true, .parallel_min_bytes = 0,
                    .threads = threads};
      FoldedReader reader(r.tree, o);
      r.ok = r.ok && reader.read_file(c == Column::kBase ? a : b).has_value();
      r.stats = reader.stats();
    }
    return r;
  };
  ParRead one_d = diff_read(1), two_d = diff_read(2);
  ASSERT_TRUE(one_d.ok && two_d.ok);
  expect_same_tree(one_d.tree, two_d.tree);
  expect_same_stats(one_d.stats, two_d.stats);
}

}  // namespace
}  // namespace hearth::profile
