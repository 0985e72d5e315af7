// Damaged MMV files: a valid file written by hand, then truncated at every length, and with
// offsets out of range, overlapping sections, missing NULs, huge counts and bad versions. Each
// must give an error (one line naming the problem) or a layout whose every slot lies inside
// the file, never a crash. With HEARTH_WRITE_MMV_SEEDS=DIR the corpus is also written there
// (how tests/fuzz/corpus/mmv was made).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "collectors/mmv/mmv_file.h"
#include "collectors/mmv/mmv_layout.h"
#include "collectors/mmv/series_output.h"

namespace hearth::mmv {
namespace {

template <typename T>
void put(std::string* b, size_t at, T v) {
  if (b->size() < at + sizeof v) b->resize(at + sizeof v, '\0');
  std::memcpy(b->data() + at, &v, sizeof v);
}
void put_text(std::string* b, size_t at, const std::string& s) {
  if (b->size() < at + s.size()) b->resize(at + s.size(), '\0');
  std::memcpy(b->data() + at, s.data(), s.size());
}

// A v2 file: header, 5 tocs (indoms, instances, metrics, values, strings), 1 indom with 2
// instances, 3 metrics (u64 counter over the indom, a string, a double), 4 values.
// Offsets of interest are returned for the mutations.
struct Built {
  std::string bytes;
  size_t toc = 40, indoms = 120, instances = 152, metrics = 200, values = 344, strings = 472;
};

Built build_v2() {
  Built f;
  std::string& b = f.bytes;
  put_text(&b, 0, std::string("MMV\0", 4));
  put<int32_t>(&b, 4, 2);
  put<uint64_t>(&b, 8, 42);
  put<uint64_t>(&b, 16, 42);
  put<int32_t>(&b, 24, 5);
  put<int32_t>(&b, 28, 0);
  put<int32_t>(&b, 32, 0);
  put<int32_t>(&b, 36, 0);
  auto toc = [&](int i, int32_t type, int32_t count, uint64_t off) {
    put<int32_t>(&b, f.toc + 16 * i, type);
    put<int32_t>(&b, f.toc + 16 * i + 4, count);
    put<uint64_t>(&b, f.toc + 16 * i + 8, off);
  };
  toc(0, 1, 1, f.indoms);
  toc(1, 2, 2, f.instances);
  toc(2, 3, 3, f.metrics);
  toc(3, 4, 4, f.values);
  toc(4, 5, 6, f.strings);
  auto str = [&](int i, const std::string& s) {
    put_text(&b, f.strings + 256 * i, s);
    return static_cast<uint64_t>(f.strings + 256 * i);
  };
  // indom serial 1, 2 instances
  put<uint32_t>(&b, f.indoms, 1);
  put<uint32_t>(&b, f.indoms + 4, 2);
  put<uint64_t>(&b, f.indoms + 8, f.instances);
  put<uint64_t>(&b, f.indoms + 16, str(5, "disks"));
  for (int i = 0; i < 2; ++i) {
    size_t at = f.instances + 24 * i;
    put<uint64_t>(&b, at, f.indoms);
    put<int32_t>(&b, at + 12, i);
    put<uint64_t>(&b, at + 16, str(i, i ? "sdb" : "sda"));
  }
  auto metric = [&](int i, uint64_t name, int32_t type, int32_t sem, uint32_t units,
                    uint32_t indom) {
    size_t at = f.metrics + 48 * i;
    put<uint64_t>(&b, at, name);
    put<uint32_t>(&b, at + 8, 100000u + i);  // Parfait-style hashed ids, above 1023
    put<int32_t>(&b, at + 12, type);
    put<int32_t>(&b, at + 16, sem);
    put<uint32_t>(&b, at + 20, units);
    put<uint32_t>(&b, at + 24, indom);
  };
  metric(0, str(2, "io.bytes"), 3, 1, 1u << 28, 1);
  metric(1, str(3, "state"), 6, 3, 0, 0xffffffffu);
  metric(2, str(4, "load"), 5, 3, 0, 0xffffffffu);
  auto value = [&](int i, uint64_t raw, int64_t extra, int m, int inst) {
    size_t at = f.values + 32 * i;
    put<uint64_t>(&b, at, raw);
    put<int64_t>(&b, at + 8, extra);
    put<uint64_t>(&b, at + 16, f.metrics + 48 * m);
    put<uint64_t>(&b, at + 24, inst < 0 ? 0 : f.instances + 24 * inst);
  };
  value(0, 1000, 0, 0, 0);
  value(1, 2000, 0, 0, 1);
  value(2, 0, static_cast<int64_t>(str(5, "disks")), 1, -1);
  double load = 0.75;
  uint64_t raw;
  std::memcpy(&raw, &load, 8);
  value(3, raw, 0, 2, -1);
  b.resize(f.strings + 256 * 6, '\0');
  return f;
}

// What a caller may rely on for any layout parse_layout accepts.
void check_layout(const Layout& L, size_t size) {
  ASSERT_LE(L.min_size, size);
  for (const Slot& s : L.slots) {
    ASSERT_LT(s.metric, L.metrics.size());
    ASSERT_LE(s.offset + 32, size);
    ASSERT_EQ(s.offset % 8, 0u);
    ASSERT_LT(s.instance, static_cast<int64_t>(L.instances.size()));
    if (L.metrics[s.metric].type == Type::kString) {
      ASSERT_LE(s.string_at + s.string_max, size);
    }
  }
  for (const Instance& in : L.instances) ASSERT_LT(in.indom, L.indoms.size());
}

void check_error(const Error& e) {
  EXPECT_FALSE(e.message.empty());
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
}

std::vector<std::pair<std::string, std::string>> damaged_corpus() {
  std::vector<std::pair<std::string, std::string>> out;
  const Built f = build_v2();
  auto mutate = [&](const std::string& name, auto fn) {
    Built g = f;
    fn(g);
    out.emplace_back(name, g.bytes);
  };
  mutate("bad-magic", [](Built& g) { g.bytes[0] = 'X'; });
  mutate("version-0", [](Built& g) { put<int32_t>(&g.bytes, 4, 0); });
  mutate("version-4", [](Built& g) { put<int32_t>(&g.bytes, 4, 4); });
  mutate("generations-differ", [](Built& g) { put<uint64_t>(&g.bytes, 16, 43); });
  mutate("generation-zero", [](Built& g) {
    put<uint64_t>(&g.bytes, 8, 0);
    put<uint64_t>(&g.bytes, 16, 0);
  });
  mutate("tocs-negative", [](Built& g) { put<int32_t>(&g.bytes, 24, -1); });
  mutate("tocs-huge", [](Built& g) { put<int32_t>(&g.bytes, 24, 0x7fffffff); });
  mutate("toc-type-unknown", [&](Built& g) { put<int32_t>(&g.bytes, g.toc, 77); });
  mutate("toc-type-twice", [&](Built& g) { put<int32_t>(&g.bytes, g.toc + 16, 1); });
  mutate("count-huge", [&](Built& g) { put<int32_t>(&g.bytes, g.toc + 16 * 3 + 4, 0x7fffffff); });
  mutate("count-negative", [&](Built& g) { put<int32_t>(&g.bytes, g.toc + 16 * 2 + 4, -5); });
  mutate("offset-past-end",
         [&](Built& g) { put<uint64_t>(&g.bytes, g.toc + 16 * 3 + 8, 1u << 30); });
  mutate("offset-wraps", [&](Built& g) { put<uint64_t>(&g.bytes, g.toc + 16 * 3 + 8, ~0ull - 8); });
  mutate("values-unaligned",
         [&](Built& g) { put<uint64_t>(&g.bytes, g.toc + 16 * 3 + 8, g.values + 4); });
  mutate("sections-overlap",
         [&](Built& g) { put<uint64_t>(&g.bytes, g.toc + 16 * 2 + 8, g.values); });
  mutate("section-over-header", [&](Built& g) { put<uint64_t>(&g.bytes, g.toc + 16 * 0 + 8, 8); });
  mutate("value-metric-misaligned",
         [&](Built& g) { put<uint64_t>(&g.bytes, g.values + 16, g.metrics + 8); });
  mutate("value-metric-out-of-range",
         [&](Built& g) { put<uint64_t>(&g.bytes, g.values + 16, ~0ull); });
  mutate("value-instance-out-of-range",
         [&](Built& g) { put<uint64_t>(&g.bytes, g.values + 24, 1ull << 40); });
  mutate("value-instance-wrong-indom",
         [&](Built& g) { put<uint32_t>(&g.bytes, g.metrics + 24, 9); });
  mutate("instance-indom-bad", [&](Built& g) { put<uint64_t>(&g.bytes, g.instances, 12345); });
  mutate("string-value-past-end",
         [&](Built& g) { put<int64_t>(&g.bytes, g.values + 64 + 8, 1 << 30); });
  mutate("string-value-negative", [&](Built& g) { put<int64_t>(&g.bytes, g.values + 64 + 8, -8); });
  mutate("name-offset-past-end", [&](Built& g) { put<uint64_t>(&g.bytes, g.metrics, 1ull << 33); });
  mutate("metric-type-unknown", [&](Built& g) { put<int32_t>(&g.bytes, g.metrics + 12, 8); });
  mutate("string-no-nul-at-end", [&](Built& g) {
    // The last string fills its field and the file ends there: no NUL anywhere after it.
    g.bytes.replace(g.strings + 256 * 5, 256, std::string(256, 'z'));
  });
  mutate("names-without-nul", [&](Built& g) {
    for (int i = 0; i < 5; ++i) g.bytes.replace(g.strings + 256 * i, 256, std::string(256, 'n'));
  });
  mutate("trailing-bytes", [](Built& g) { g.bytes += std::string(1000, '\x7f'); });
  mutate("semantics-unknown", [&](Built& g) { put<int32_t>(&g.bytes, g.metrics + 16, 99); });
  for (size_t n : {0ul, 3ul, 39ul, 40ul, 100ul, 199ul, 300ul, 400ul, 471ul, 600ul}) {
    out.emplace_back("truncated-" + std::to_string(n), f.bytes.substr(0, n));
  }
  return out;
}

TEST(MmvDamaged, TheHandBuiltFileReads) {
  Built f = build_v2();
  Result<Layout> L = parse_layout(f.bytes);
  ASSERT_TRUE(L) << L.error().message;
  check_layout(*L, f.bytes.size());
  ASSERT_EQ(L->metrics.size(), 3u);
  EXPECT_EQ(L->metrics[0].name, "io.bytes");
  EXPECT_EQ(L->metrics[0].item, 100000u);
  EXPECT_EQ(units_text(L->metrics[0].units), "byte");
  ASSERT_EQ(L->slots.size(), 4u);
  EXPECT_EQ(L->instances[L->slots[1].instance].name, "sdb");
  EXPECT_EQ(L->indoms[0].short_help, "disks");
}

TEST(MmvDamaged, EveryTruncationIsAnErrorOrSafe) {
  Built f = build_v2();
  size_t errors = 0;
  for (size_t n = 0; n <= f.bytes.size(); ++n) {
    std::string cut = f.bytes.substr(0, n);
    Result<Layout> L = parse_layout(cut);
    if (L) {
      check_layout(*L, n);
    } else {
      check_error(L.error());
      ++errors;
    }
  }
  EXPECT_GT(errors, 400u);  // every cut inside the sections is an error
}

TEST(MmvDamaged, CorpusGivesOneLineErrorsOrSafeLayouts) {
  const char* seeds = std::getenv("HEARTH_WRITE_MMV_SEEDS");
  std::vector<std::string> accepted;
  for (const auto& [name, bytes] : damaged_corpus()) {
    if (seeds) std::ofstream(std::string(seeds) + "/" + name + ".mmv", std::ios::binary) << bytes;
    Result<Layout> L = parse_layout(bytes);
    if (L) {
      check_layout(*L, bytes.size());
      accepted.push_back(name);
    } else {
      check_error(L.error());
    }
  }
  // Only the quirks other writers produce are accepted.
  std::vector<std::string> want = {"string-no-nul-at-end", "names-without-nul", "trailing-bytes",
                                   "semantics-unknown"};
  EXPECT_EQ(accepted, want);
}

TEST(MmvDamaged, SpecificMessages) {
  auto error_of = [](const std::string& name) {
    for (const auto& [n, bytes] : damaged_corpus()) {
      if (n == name) {
        Result<Layout> L = parse_layout(bytes);
        return L ? std::string("accepted") : L.error().message;
      }
    }
    return std::string("no such case");
  };
  EXPECT_EQ(error_of("version-4"), "unsupported MMV version 4 (hearth reads 1, 2, 3)");
  EXPECT_EQ(error_of("sections-overlap"), "metrics and values sections overlap");
  EXPECT_EQ(error_of("bad-magic"), "not an MMV file (no MMV magic)");
  EXPECT_NE(error_of("count-huge").find("values section"), std::string::npos);
  EXPECT_NE(error_of("count-huge").find("past the end of the file"), std::string::npos);
  Built f = build_v2();
  put<uint64_t>(&f.bytes, 16, 43);
  Result<Layout> L = parse_layout(f.bytes);
  ASSERT_FALSE(L);
  EXPECT_EQ(L.error().errnum, EAGAIN);
}

TEST(MmvDamaged, QuirkyNamesAreCutAtTheirField) {
  for (const auto& [name, bytes] : damaged_corpus()) {
    if (name != "names-without-nul") continue;
    Result<Layout> L = parse_layout(bytes);
    ASSERT_TRUE(L) << L.error().message;
    EXPECT_EQ(L->metrics[0].name, std::string(256, 'n'));
    EXPECT_EQ(L->instances[0].name, std::string(256, 'n'));
  }
}

// Through a real file: open + snapshot of the hand-built file, and damaged files are errors.
TEST(MmvDamaged, FilesOnDiskOpenOrFailCleanly) {
  char dir[] = "/tmp/hearth-mmv-damaged-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string good = std::string(dir) + "/good";
  std::ofstream(good, std::ios::binary) << build_v2().bytes;
  Result<MmvFile> f = MmvFile::open(good);
  ASSERT_TRUE(f) << f.error().message;
  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  const Layout& L = f->layout();
  EXPECT_EQ(format_value(L.metrics[0], s.samples[1]), "2000");
  EXPECT_EQ(s.samples[2].text, "disks");
  EXPECT_EQ(format_value(L.metrics[2], s.samples[3]), "0.75");
  for (const auto& [name, bytes] : damaged_corpus()) {
    std::string p = std::string(dir) + "/" + name;
    std::ofstream(p, std::ios::binary) << bytes;
    Result<MmvFile> d = MmvFile::open(p);
    if (d) {
      Snapshot ds;
      EXPECT_EQ(d->snapshot(&ds), SnapshotStatus::kOk) << name;
    } else {
      EXPECT_EQ(d.error().message.rfind(p, 0), 0u) << "error names the file: " << d.error().message;
    }
    unlink(p.c_str());
  }
  unlink(good.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace hearth::mmv
