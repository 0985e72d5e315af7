// pprof: the writer, the reader, their round trip, and bad data (truncated, a gzip bomb).
#include <gtest/gtest.h>
#include <protozero/pbf_reader.hpp>
#include <protozero/pbf_writer.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_reader.h"
#include "render/profile/pprof_writer.h"
#include "tests/unit/temp_dir.h"

namespace hearth::profile {
namespace {

// Roots of every kind hearth writes (a thread, a thread merged by name, perf's, a process with a
// thread under it), a frame that only looks like a root, a stack ending above a leaf.
constexpr std::string_view kPprofRoots =
    "[worker-1 tid=42];main;run;work 7\n"
    "[worker-1 tid=42];main;run 2\n"
    "[pool];main;poll 3\n"
    "java-27409/28741;[unknown];recv 5\n"
    "[postgres pid=900];[postgres tid=901];main;ExecScan 4\n"
    "[postgres pid=900];main;idle 1\n"
    "[libc.so.6];memcpy 6\n"
    "plain;f 1\n"
    "[lonely tid=3] 2\n";

FrameTree pprof_source_tree(std::string_view folded) {
  FrameTree tree;
  FoldedReader reader(tree, {.format = InputFormat::kFolded});
  reader.read_text(folded);
  tree.finalize();
  return tree;
}

// The folded stacks a pprof profile (raw or gzipped) reads back as.
std::string folded_of_pprof(std::string_view data, std::string* error = nullptr) {
  FrameTree tree;
  FoldedReader reader(tree, {});
  auto r = reader.read_pprof(data, "test.pb.gz");
  if (!r) {
    if (error != nullptr) *error = r.error().message;
    return "";
  }
  tree.finalize();
  return to_folded(tree);
}

TEST(Pprof, RoundTripKeepsStacksCountsAndRoots) {
  FrameTree tree = pprof_source_tree(kPprofRoots);
  auto raw = to_pprof(tree);
  ASSERT_TRUE(raw) << raw.error().message;
  EXPECT_EQ(folded_of_pprof(*raw), to_folded(tree));
  auto packed = gzip(*raw);
  ASSERT_TRUE(packed);
  EXPECT_TRUE(is_gzip(*packed));
  EXPECT_EQ(folded_of_pprof(*packed), to_folded(tree));
}

TEST(Pprof, RootsBecomeLabelsNotLocations) {
  auto raw = to_pprof(pprof_source_tree(kPprofRoots));
  ASSERT_TRUE(raw);
  // The thread's and process's names are labels' strings; no location is named for them.
  std::vector<std::vector<std::string>> stacks;
  auto stats = read_pprof(*raw, [&](std::span<const std::string_view> frames, int64_t) {
    stacks.emplace_back(frames.begin(), frames.end());
  });
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->sample_type, "samples");
  EXPECT_EQ(stats->unit, "count");
  EXPECT_EQ(stats->samples, 9u);
  EXPECT_EQ(raw->find("[worker-1 tid=42]"), std::string::npos);
  EXPECT_NE(raw->find("worker-1"), std::string::npos);
  EXPECT_EQ(raw->find("[postgres pid=900]"), std::string::npos);
  EXPECT_NE(raw->find("thread_id"), std::string::npos);
  // A frame that is a module, not a thread, stays a frame.
  EXPECT_NE(raw->find("[libc.so.6]"), std::string::npos);
}

TEST(Pprof, UnnamedFramesKeepModuleAndOffset) {
  auto raw = to_pprof(pprof_source_tree("[x tid=1];main;[libc.so.6+0x1f00];[libc.so.6+0x20] 1\n"));
  ASSERT_TRUE(raw);
  std::vector<std::string> strings;
  int mappings = 0;
  std::vector<std::pair<uint64_t, uint64_t>> addresses;  // mapping id, address
  protozero::pbf_reader m(raw->data(), raw->size());
  while (m.next()) {
    if (m.tag() == 3) {
      ++mappings;
      m.skip();
    } else if (m.tag() == 4) {
      protozero::pbf_reader loc = m.get_message();
      uint64_t mapping = 0, address = 0;
      while (loc.next()) {
        if (loc.tag() == 2) {
          mapping = loc.get_uint64();
        } else if (loc.tag() == 3) {
          address = loc.get_uint64();
        } else {
          loc.skip();
        }
      }
      if (mapping != 0) addresses.emplace_back(mapping, address);
    } else if (m.tag() == 6) {
      auto v = m.get_view();
      strings.emplace_back(v.data(), v.size());
    } else {
      m.skip();
    }
  }
  EXPECT_EQ(mappings, 1);  // one module
  ASSERT_EQ(addresses.size(), 2u);
  EXPECT_EQ(addresses[0].first, addresses[1].first);
  EXPECT_EQ(addresses[0].second + addresses[1].second, 0x1f00u + 0x20u);
  EXPECT_NE(std::find(strings.begin(), strings.end(), "libc.so.6"), strings.end());
  // And the frames read back by name.
  EXPECT_EQ(folded_of_pprof(*raw), "[x tid=1];main;[libc.so.6+0x1f00];[libc.so.6+0x20] 1\n");
}

TEST(Pprof, WallTimeWhenThePeriodIsKnown) {
  auto raw = to_pprof(pprof_source_tree("a;b 3\n"), {.period_ns = 1e7});
  ASSERT_TRUE(raw);
  EXPECT_NE(raw->find("wall"), std::string::npos);
  EXPECT_NE(raw->find("nanoseconds"), std::string::npos);
  // The default sample type is still samples/count; the values of wall are count x period.
  int64_t value = 0;
  auto stats = read_pprof(*raw, [&](std::span<const std::string_view>, int64_t v) { value = v; });
  ASSERT_TRUE(stats);
  EXPECT_EQ(value, 3);
  auto no_period = to_pprof(pprof_source_tree("a;b 3\n"));
  ASSERT_TRUE(no_period);
  EXPECT_EQ(no_period->find("nanoseconds"), std::string::npos);
}

TEST(Pprof, WriterRefusesWhatPprofCannotHold) {
  auto fractional = to_pprof(pprof_source_tree("a;b 0.5\n"));
  ASSERT_FALSE(fractional);
  EXPECT_NE(fractional.error().message.find("fractional"), std::string::npos);
  auto differential = to_pprof(pprof_source_tree("a;b 1 2\n"));
  ASSERT_FALSE(differential);
  EXPECT_NE(differential.error().message.find("differential"), std::string::npos);
  auto huge = to_pprof(pprof_source_tree("a 18446744073709551615\n"));
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("int64"), std::string::npos);
}

// A profile as Go writes one: samples/count and cpu/nanoseconds (no default type), a location
// with an inlined function (two lines), one without lines in a mapped file, one with an address
// only; names with ';'.
std::string go_like_profile() {
  std::string out;
  protozero::pbf_writer pw(out);
  auto value_type = [&](int64_t type, int64_t unit) {
    protozero::pbf_writer vt(pw, 1);
    vt.add_int64(1, type);
    vt.add_int64(2, unit);
  };
  value_type(1, 2);  // samples/count
  value_type(3, 4);  // cpu/nanoseconds
  {
    protozero::pbf_writer s(pw, 2);
    uint64_t locs[] = {2, 1};  // leaf first
    s.add_packed_uint64(1, std::begin(locs), std::end(locs));
    int64_t values[] = {5, 50000000};
    s.add_packed_int64(2, std::begin(values), std::end(values));
  }
  {
    protozero::pbf_writer s(pw, 2);
    uint64_t locs[] = {3, 4, 1};
    s.add_packed_uint64(1, std::begin(locs), std::end(locs));
    int64_t values[] = {2, 20000000};
    s.add_packed_int64(2, std::begin(values), std::end(values));
  }
  {
    protozero::pbf_writer m(pw, 3);  // mapping 1: libc
    m.add_uint64(1, 1);
    m.add_int64(5, 9);
  }
  {
    protozero::pbf_writer l(pw, 4);  // location 1: main
    l.add_uint64(1, 1);
    protozero::pbf_writer line(l, 4);
    line.add_uint64(1, 1);
  }
  {
    protozero::pbf_writer l(pw, 4);  // location 2: inlined helper() into run()
    l.add_uint64(1, 2);
    {
      protozero::pbf_writer line(l, 4);
      line.add_uint64(1, 3);
    }
    protozero::pbf_writer line(l, 4);
    line.add_uint64(1, 2);
  }
  {
    protozero::pbf_writer l(pw, 4);  // location 3: in libc, not symbolized
    l.add_uint64(1, 3);
    l.add_uint64(2, 1);
    l.add_uint64(3, 0x1234);
  }
  {
    protozero::pbf_writer l(pw, 4);  // location 4: an address only
    l.add_uint64(1, 4);
    l.add_uint64(3, 0xbeef);
  }
  auto function = [&](uint64_t id, int64_t name) {
    protozero::pbf_writer f(pw, 5);
    f.add_uint64(1, id);
    f.add_int64(2, name);
  };
  function(1, 5);
  function(2, 6);
  function(3, 7);
  for (const char* s : {"", "samples", "count", "cpu", "nanoseconds", "main.main", "main.run",
                        "main.helper;x", "unused", "/lib/x86_64-linux-gnu/libc.so.6"}) {
    pw.add_string(6, s);
  }
  return out;
}

TEST(Pprof, ReadsGoProfiles) {
  std::string error;
  EXPECT_EQ(folded_of_pprof(go_like_profile(), &error),
            "main.main;0xbeef;[libc.so.6] 2\n"
            "main.main;main.run;main.helper:x 5\n")
      << error;
}

TEST(Pprof, DefaultSampleTypeChoosesTheValue) {
  std::string p = go_like_profile();
  protozero::pbf_writer pw(p);
  pw.add_int64(14, 3);  // cpu
  int64_t sum = 0;
  auto stats = read_pprof(p, [&](std::span<const std::string_view>, int64_t v) { sum += v; });
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->sample_type, "cpu");
  EXPECT_EQ(sum, 70000000);
}

TEST(Pprof, TruncatedOrCorruptDataIsAnErrorAndAddsNothing) {
  std::string p = go_like_profile();
  int failures = 0;
  for (size_t n = 0; n < p.size(); ++n) {
    std::string error;
    std::string folded = folded_of_pprof(p.substr(0, n), &error);
    if (!error.empty()) {
      ++failures;
      EXPECT_EQ(folded, "");
      EXPECT_EQ(error.find('\n'), std::string::npos);
      EXPECT_EQ(error.rfind("test.pb.gz: not a", 0), 0u) << error;
    }
  }
  // Most cuts fall inside a field; the few at a field's end before the string table too fail
  // (no string table); cuts inside the string table leave names past it.
  EXPECT_GT(failures, static_cast<int>(p.size() * 9 / 10));
  // A location id no location has.
  std::string dangling = p;
  {
    protozero::pbf_writer pw(dangling);
    protozero::pbf_writer s(pw, 2);
    uint64_t locs[] = {77};
    s.add_packed_uint64(1, std::begin(locs), std::end(locs));
    int64_t values[] = {1, 10};
    s.add_packed_int64(2, std::begin(values), std::end(values));
  }
  std::string error;
  FrameTree tree;
  FoldedReader reader(tree, {});
  auto r = reader.read_pprof(dangling, "x.pb");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("location 77"), std::string::npos) << r.error().message;
  EXPECT_EQ(reader.stats().lines, 0u);
}

TEST(Pprof, GzipBombStopsAtTheLimit) {
  std::string zeros(8 << 20, '\0');
  auto bomb = gzip(zeros);
  ASSERT_TRUE(bomb);
  EXPECT_LT(bomb->size(), 64u << 10);
  auto r = gunzip(*bomb, 1 << 20);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("past 1 MiB"), std::string::npos) << r.error().message;
  auto whole = gunzip(*bomb, 8 << 20);
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, zeros);
  auto cut = gunzip(std::string_view(*bomb).substr(0, bomb->size() - 5), 16 << 20);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("truncated"), std::string::npos) << cut.error().message;
  // Two members, as `cat a.gz b.gz` makes.
  auto a = gzip("ab"), b = gzip("cd");
  auto both = gunzip(*a + *b, 100);
  ASSERT_TRUE(both);
  EXPECT_EQ(*both, "abcd");
}

TEST(Pprof, ReadFileTellsPprofFromFoldedByContent) {
  testing_support::TempDir dir;
  ASSERT_TRUE(dir.ok());
  FrameTree source = pprof_source_tree(kPprofRoots);
  ASSERT_TRUE(write_pprof(source, dir / "p.pb.gz"));
  auto raw = to_pprof(source);
  ASSERT_TRUE(raw);
  std::ofstream(dir / "raw.pb") << *raw;
  for (const char* name : {"p.pb.gz", "raw.pb"}) {
    FrameTree tree;
    FoldedReader reader(tree, {});
    ASSERT_TRUE(reader.read_file(dir / name)) << name;
    tree.finalize();
    EXPECT_EQ(to_folded(tree), to_folded(source)) << name;
    EXPECT_EQ(reader.stats().ignored, 0u);
  }
  // Forced to folded, a pprof file is lines that don't parse.
  FrameTree tree;
  FoldedReader reader(tree, {.format = InputFormat::kFolded});
  ASSERT_TRUE(reader.read_file(dir / "p.pb.gz"));
  tree.finalize();
  EXPECT_EQ(tree.total().value, 0);
}

}  // namespace
}  // namespace hearth::profile
