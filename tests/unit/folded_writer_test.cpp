#include "render/profile/folded_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"

namespace hearth::profile {
namespace {

FrameTree read_back(std::string_view text, Merge merge = Merge::kAll, ReadStats* stats = nullptr) {
  FrameTree tree(merge);
  FoldedReader reader(tree, {});
  reader.read_text(text);
  tree.finalize();
  if (stats != nullptr) *stats = reader.stats();
  return tree;
}

// parse -> to_folded -> parse -> to_folded must give the same text, lose no line and keep
// the total.
void expect_round_trip(std::string_view text) {
  SCOPED_TRACE(text);
  FrameTree first = read_back(text);
  std::string folded = to_folded(first);
  ReadStats stats;
  FrameTree second = read_back(folded, Merge::kAll, &stats);
  EXPECT_EQ(stats.ignored, 0u) << folded;
  EXPECT_EQ(second.total().value, first.total().value) << folded;
  EXPECT_EQ(second.differential(), first.differential());
  EXPECT_EQ(second.base_total(kRoot).value, first.base_total(kRoot).value);
  EXPECT_EQ(second.size(), first.size()) << folded;
  EXPECT_EQ(to_folded(second), folded);
}

TEST(FoldedWriter, OneLinePerNodeWithSelfSortedByName) {
  FrameTree t = read_back("main;work;b 2\nmain;work;a 1\nmain 4\nmain;work;b 3\nidle 1\n");
  EXPECT_EQ(to_folded(t), "idle 1\nmain 4\nmain;work;a 1\nmain;work;b 5\n");
}

TEST(FoldedWriter, OrderDoesNotDependOnInputOrder) {
  std::string a = to_folded(read_back("x;z 1\nx;y 2\nw 3\nx 1\n"));
  std::string b = to_folded(read_back("x 1\nw 3\nx;y 2\nx;z 1\n"));
  EXPECT_EQ(a, b);
  // Byte order, so "Z" < "a" and a non-ASCII byte sorts last.
  EXPECT_EQ(to_folded(read_back("\xc3\xa9 1\na 1\nZ 1\n")), "Z 1\na 1\n\xc3\xa9 1\n");
}

TEST(FoldedWriter, RoundTripRealisticProfile) {
  expect_round_trip(
      "java-1/2;start_thread;JavaMain;Interpreter 12\n"
      "java-1/2;start_thread;JavaMain;Interpreter;Lfoo/Bar;::baz_[j] 3\n"
      "[worker-3 tid=77];std::vector<int, std::allocator<int> >::push_back(int const&) 5\n"
      "[worker-3 tid=77];operator new(unsigned long);malloc_[k] 1\n"
      "a;b\t;c 2\r\n"
      "\n"
      "bad line\n"
      "write0;  4\n");
}

TEST(FoldedWriter, CountsAsIntegersWhenWhole) {
  EXPECT_EQ(format_count(12), "12");
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(0.5), "0.5");
  EXPECT_EQ(format_count(2.25), "2.25");
  EXPECT_EQ(format_count(999999999999999), "999999999999999");
  EXPECT_EQ(to_folded(read_back("a 1\nb 3\n")), "a 1\nb 3\n");
  // A fractional profile's counts keep a dot, so they read back as real numbers.
  EXPECT_EQ(to_folded(read_back("a 0.5\na 0.25\nb 3.0\nc 2\n")), "a 0.75\nb 3.0\nc 2.0\n");
}

TEST(FoldedWriter, RoundTripFractionalCounts) {
  expect_round_trip("a;b 0.1\na;b 0.2\na;c 1.5\nd 123456.789\n");
}

// Counts of 1e15 and more, and tiny fractions, are written in exponent form ("1e+15"),
// which neither our reader nor flamegraph.pl accepts: the line is lost on re-reading.
TEST(FoldedWriter, RoundTripLargeCounts) {
  expect_round_trip("a 1000000000000000\nb 3\n");
}
// Whole counts are written exactly, up to 2^64 - 1; a fractional profile's as real numbers,
// so they read back as the doubles they are (2^64 as an integer would be too large).
TEST(FoldedWriter, RoundTripHugeCounts) {
  expect_round_trip("a 18446744073709551615\n");
  EXPECT_EQ(to_folded(read_back("a 18446744073709551615\nb 9223372036854775807 3\n")),
            "a 18446744073709551615 18446744073709551615\nb 9223372036854775807 3\n");
  expect_round_trip("a 18446744073709551615.5\nb 0.5\n");
  EXPECT_EQ(to_folded(read_back("a 18446744073709551615.5\nb 0.5\n")),
            "a 18446744073709551616.0\nb 0.5\n");
  // Integers of a fractional profile that, as doubles, round up past 2^64 together.
  expect_round_trip("a 9223372036854775807\nb 9223372036854775807\nc 0.5\n");
  EXPECT_EQ(format_count(whole_count(kMaxWholeCount)), "18446744073709551615");
  EXPECT_EQ(format_count(fractional_count(0x1p64)), "18446744073709551616.0");
  EXPECT_EQ(format_count(fractional_count(2.5)), "2.5");
  EXPECT_EQ(format_count(fractional_count(3)), "3.0");
}

TEST(FoldedWriter, RoundTripTinyCounts) {
  expect_round_trip("a 0.0000001\nb 3\n");
}

TEST(FoldedWriter, DifferentialWritesTwoCounts) {
  FrameTree t = read_back("a;b 3 5\na;c 0 2\nd 4\ne 2 0\n");
  // One-count lines are unchanged (base = new); a frame whose new count is 0 is still written.
  EXPECT_EQ(to_folded(t), "a;b 3 5\na;c 0 2\nd 4 4\ne 2 0\n");
  expect_round_trip("a;b 3 5\na;c 0 2\nd 4\ne 2 0\nf 0.5 1.5\n");
}

TEST(FoldedWriter, FramesEndingInBlanksRoundTrip) {
  // The one blank before the count is a separator; more blanks belong to the leaf.
  FrameTree t = read_back("a;  3\nb \t 2\nc  1 2\n");
  EXPECT_EQ(to_folded(t), "a;  3 3\nb \t 2 2\nc  1 2\n");
  expect_round_trip("a;  3\nb \t 2\nx 1\n");
}

// An empty frame name is a frame: ";a" is two frames, "" then "a"; the writer must not drop
// the separator when the path so far is empty.
TEST(FoldedWriter, EmptyFrameNamesKeepTheirSeparators) {
  EXPECT_EQ(to_folded(read_back("a;;b 1\n")), "a;;b 1\n");
  EXPECT_EQ(to_folded(read_back(";a 1\n")), ";a 1\n");
  EXPECT_EQ(to_folded(read_back("; 1\n")), "; 1\n");
  expect_round_trip(";a 1\na 2\n");
}

TEST(FoldedWriter, ZeroCountNodesAreNotWritten) {
  EXPECT_EQ(to_folded(read_back("a;b 0\na;c 1\n")), "a;c 1\n");
  EXPECT_EQ(to_folded(read_back("")), "");
}

TEST(FoldedWriter, FlameChartKeepsRepeatedSiblings) {
  FrameTree t = read_back("a;b 1\na;c 1\na;b 1\n", Merge::kLastChild);
  EXPECT_EQ(to_folded(t), "a;b 1\na;b 1\na;c 1\n");
}

TEST(FoldedWriter, DeepStackDoesNotRecurse) {
  std::string line;
  for (int i = 0; i < 20000; ++i) line += (i % 2 ? "odd;" : "even;");
  line.back() = ' ';
  line += "1\n";
  EXPECT_EQ(to_folded(read_back(line)), line);
}

TEST(FoldedWriter, WriteFileThenReadIt) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("hearth_writer_" + std::to_string(::getpid()) + ".folded"))
                         .string();
  FrameTree t = read_back("a;b 2\na 1\n");
  ASSERT_TRUE(write_folded(t, path).has_value());
  FrameTree back;
  FoldedReader reader(back, {});
  ASSERT_TRUE(reader.read_file(path).has_value());
  back.finalize();
  std::filesystem::remove(path);
  EXPECT_EQ(to_folded(back), "a 1\na;b 2\n");
  EXPECT_FALSE(write_folded(t, "/nonexistent/dir/out.folded").has_value());
}

}  // namespace
}  // namespace hearth::profile
