// The MMV reader on real files written by PCP's libpcp_mmv: v1 (mmv_stats_init), v2 (long
// names), v3 (labels through the registry API), every type, indoms, help, units, flags.
#ifdef HEARTH_HAVE_PCP_MMV

// pmapi.h first: mmv_stats.h needs its types.
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on

#include <gtest/gtest.h>
#include <sys/time.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "collectors/mmv/mmv_file.h"
#include "tests/unit/mmv_pcp_support.h"

namespace hearth::mmv {
namespace {

using testing::mmv_path;
using testing::pcp_mmv_dir;

// "metric" or "metric[instance]" -> formatted value, for one snapshot.
std::map<std::string, std::string> values_of(const MmvFile& f, const Snapshot& s) {
  std::map<std::string, std::string> out;
  const Layout& L = f.layout();
  for (size_t i = 0; i < L.slots.size(); ++i) {
    const Slot& slot = L.slots[i];
    std::string key = L.metrics[slot.metric].name;
    if (slot.instance >= 0) key += "[" + L.instances[slot.instance].name + "]";
    out[key] = s.samples[i].present ? format_value(L.metrics[slot.metric], s.samples[i]) : "<none>";
  }
  return out;
}

const Metric* find_metric(const Layout& L, const std::string& name) {
  for (const Metric& m : L.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

int64_t now_us() {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  return static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
}

TEST(MmvReader, Version1EveryTypeIndomsHelpUnits) {
  pcp_mmv_dir();
  static mmv_instances_t cpus[] = {{0, "cpu0"}, {1, "cpu1"}, {7, "cpu7"}};
  static mmv_indom_t indoms[] = {
      {11, 3, cpus, const_cast<char*>("CPUs"), const_cast<char*>("one per CPU")}};
  static mmv_metric_t metrics[] = {
      {"i32", 1, MMV_TYPE_I32, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"u32", 2, MMV_TYPE_U32, MMV_SEM_DISCRETE, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"i64", 3, MMV_TYPE_I64, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"bytes", 4, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(1, 0, 0, PM_SPACE_KBYTE, 0, 0), 11,
       const_cast<char*>("bytes moved"), const_cast<char*>("bytes moved, per CPU")},
      {"f", 5, MMV_TYPE_FLOAT, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"d", 6, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT,
       MMV_UNITS(1, -1, 0, PM_SPACE_MBYTE, PM_TIME_SEC, 0), 0, nullptr, nullptr},
      {"s", 7, MMV_TYPE_STRING, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"busy", 8, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER, MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0), 0,
       nullptr, nullptr},
      {"open", 9, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER, MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0), 0,
       nullptr, nullptr},
      {"ops", 10, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(0, 0, 1, 0, 0, 3), 0, nullptr, nullptr},
  };
  void* m = mmv_stats_init("v1all", 3, static_cast<mmv_stats_flags_t>(0), metrics,
                           sizeof metrics / sizeof *metrics, indoms, 1);
  ASSERT_NE(m, nullptr);
  mmv_set_value(m, mmv_lookup_value_desc(m, "i32", nullptr), -5);
  mmv_set_value(m, mmv_lookup_value_desc(m, "u32", nullptr), 4000000000.0);
  pmAtomValue* i64 = mmv_lookup_value_desc(m, "i64", nullptr);
  i64->ll = -(1ll << 40);
  mmv_lookup_value_desc(m, "bytes", "cpu0")->ull = 1;
  mmv_lookup_value_desc(m, "bytes", "cpu7")->ull = (1ull << 63) + 7;
  mmv_set_value(m, mmv_lookup_value_desc(m, "f", nullptr), 1.5);
  mmv_set_value(m, mmv_lookup_value_desc(m, "d", nullptr), 2.25);
  mmv_stats_set_string(m, "s", nullptr, "hello, mmv");
  mmv_lookup_value_desc(m, "busy", nullptr)->ll = 1234;
  int64_t before = now_us();
  mmv_stats_interval_start(m, nullptr, "open", nullptr);  // an open interval: value + now + extra
  mmv_lookup_value_desc(m, "ops", nullptr)->ull = 99;

  Result<MmvFile> f = MmvFile::open(mmv_path("v1all"));
  ASSERT_TRUE(f) << f.error().message;
  const Layout& L = f->layout();
  EXPECT_EQ(L.version, 1);
  EXPECT_EQ(L.cluster, 3);
  EXPECT_EQ(L.pid, getpid());
  EXPECT_NE(L.generation, 0u);
  ASSERT_EQ(L.metrics.size(), 10u);
  ASSERT_EQ(L.indoms.size(), 1u);
  EXPECT_EQ(L.indoms[0].serial, 11u);
  EXPECT_EQ(L.indoms[0].short_help, "CPUs");
  EXPECT_EQ(L.indoms[0].long_help, "one per CPU");
  ASSERT_EQ(L.instances.size(), 3u);
  EXPECT_EQ(L.instances[2].name, "cpu7");
  EXPECT_EQ(L.instances[2].internal, 7);

  const Metric* bytes = find_metric(L, "bytes");
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->type, Type::kU64);
  EXPECT_EQ(bytes->semantics, Semantics::kCounter);
  EXPECT_EQ(bytes->item, 4u);
  EXPECT_EQ(bytes->indom, 11u);
  EXPECT_EQ(bytes->short_help, "bytes moved");
  EXPECT_EQ(bytes->long_help, "bytes moved, per CPU");
  EXPECT_EQ(units_text(bytes->units), "Kbyte");
  EXPECT_EQ(units_text(find_metric(L, "d")->units), "Mbyte / sec");
  EXPECT_EQ(units_text(find_metric(L, "busy")->units), "microsec");
  EXPECT_EQ(units_text(find_metric(L, "ops")->units), "count x 10^3");
  EXPECT_EQ(find_metric(L, "u32")->semantics, Semantics::kDiscrete);
  EXPECT_EQ(find_metric(L, "busy")->type, Type::kElapsed);

  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  int64_t after = now_us();
  auto v = values_of(*f, s);
  EXPECT_EQ(v["i32"], "-5");
  EXPECT_EQ(v["u32"], "4000000000");
  EXPECT_EQ(v["i64"], std::to_string(-(1ll << 40)));
  EXPECT_EQ(v["bytes[cpu0]"], "1");
  EXPECT_EQ(v["bytes[cpu1]"], "0");
  EXPECT_EQ(v["bytes[cpu7]"], std::to_string((1ull << 63) + 7));
  EXPECT_EQ(v["f"], "1.5");
  EXPECT_EQ(v["d"], "2.25");
  EXPECT_EQ(v["s"], "hello, mmv");
  EXPECT_EQ(v["busy"], "1234");
  EXPECT_EQ(v["ops"], "99");
  // The open interval has run from `before` (or later) until the snapshot (before `after`).
  int64_t open = std::stoll(v["open"]);
  EXPECT_GE(open, 0);
  EXPECT_LE(open, after - before);
  mmv_stats_stop("v1all", m);
}

TEST(MmvReader, Version2LongNames) {
  pcp_mmv_dir();
  static std::string metric_name(80, 'm');
  static std::string inst_a =
      "instance-with-a-name-well-beyond-sixty-four-characters-" + std::string(20, 'a');
  static std::string inst_b = "b";
  static mmv_instances2_t insts[] = {{1, inst_a.c_str()}, {2, inst_b.c_str()}};
  static mmv_indom2_t indoms[] = {{5, 2, insts, nullptr, nullptr}};
  static mmv_metric2_t metrics[] = {{metric_name.data(), 1, MMV_TYPE_I64, MMV_SEM_INSTANT,
                                     MMV_UNITS(0, 0, 0, 0, 0, 0), 5, const_cast<char*>("long"),
                                     nullptr}};
  void* m = mmv_stats2_init("v2long", 0, static_cast<mmv_stats_flags_t>(0), metrics, 1, indoms, 1);
  ASSERT_NE(m, nullptr);
  mmv_lookup_value_desc(m, metric_name.c_str(), inst_a.c_str())->ll = 77;
  mmv_lookup_value_desc(m, metric_name.c_str(), inst_b.c_str())->ll = -77;
  Result<MmvFile> f = MmvFile::open(mmv_path("v2long"));
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->layout().version, 2);
  ASSERT_EQ(f->layout().metrics.size(), 1u);
  EXPECT_EQ(f->layout().metrics[0].name, metric_name);
  EXPECT_EQ(f->layout().metrics[0].short_help, "long");
  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  auto v = values_of(*f, s);
  EXPECT_EQ(v[metric_name + "[" + inst_a + "]"], "77");
  EXPECT_EQ(v[metric_name + "[" + inst_b + "]"], "-77");
  mmv_stats_stop("v2long", m);
}

TEST(MmvReader, Version3RegistryLabels) {
  pcp_mmv_dir();
  // The registry keeps the char* it is given: these strings outlive it.
  static const std::string file = "v3labels", indom_help = "queues", q0 = "q0", q1 = "q1",
                           metric = "depth", help = "queue depth";
  mmv_registry_t* r = mmv_stats_registry(file.c_str(), 9, MMV_FLAG_SENTINEL);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(mmv_stats_add_indom(r, 2, indom_help.c_str(), indom_help.c_str()), 0);
  mmv_stats_add_instance(r, 2, 0, q0.c_str());  // returns -1 even on success (PCP 6.0.3)
  mmv_stats_add_instance(r, 2, 1, q1.c_str());
  ASSERT_EQ(mmv_stats_add_metric(r, metric.c_str(), 1, MMV_TYPE_I32, MMV_SEM_INSTANT,
                                 MMV_UNITS(0, 0, 1, 0, 0, 0), 2, help.c_str(), help.c_str()),
            0);
  EXPECT_EQ(mmv_stats_add_metric_label(r, 1, "kind", "7", MMV_NUMBER_TYPE, 0), 0);
  EXPECT_EQ(mmv_stats_add_indom_label(r, 2, "pool", "\"io\"", MMV_STRING_TYPE, 0), 0);
  void* m = mmv_stats_start(r);
  ASSERT_NE(m, nullptr);
  mmv_lookup_value_desc(m, metric.c_str(), q0.c_str())->l = 12;
  mmv_lookup_value_desc(m, metric.c_str(), q1.c_str())->l = -1;  // SENTINEL: no value

  Result<MmvFile> f = MmvFile::open(mmv_path(file));
  ASSERT_TRUE(f) << f.error().message;
  const Layout& L = f->layout();
  EXPECT_EQ(L.version, 3);
  EXPECT_TRUE(L.flags & kFlagSentinel);
  std::vector<std::string> labels;
  for (const Label& l : L.labels) labels.push_back(l.json);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "{\"kind\":7}"), labels.end());
  bool item_label = false;
  for (const Label& l : L.labels)
    item_label |= l.json == "{\"kind\":7}" && (l.flags & 0x10) && l.identity == 1;
  EXPECT_TRUE(item_label);
  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  auto v = values_of(*f, s);
  EXPECT_EQ(v["depth[q0]"], "12");
  EXPECT_EQ(v["depth[q1]"], "<none>");
  mmv_stats_free(r);
}

TEST(MmvReader, SentinelValuesOfEveryTypeAreAbsent) {
  pcp_mmv_dir();
  static mmv_metric_t metrics[] = {
      {"u64", 1, MMV_TYPE_U64, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"d", 2, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"f", 3, MMV_TYPE_FLOAT, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"s", 4, MMV_TYPE_STRING, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
      {"ok", 5, MMV_TYPE_U32, MMV_SEM_INSTANT, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr},
  };
  void* m = mmv_stats_init("sentinel", 0, MMV_FLAG_SENTINEL, metrics, 5, nullptr, 0);
  ASSERT_NE(m, nullptr);
  mmv_lookup_value_desc(m, "u64", nullptr)->ull = ~0ull;
  mmv_lookup_value_desc(m, "d", nullptr)->d = std::nan("");
  mmv_lookup_value_desc(m, "f", nullptr)->f = std::nanf("");
  mmv_lookup_value_desc(m, "ok", nullptr)->ul = 3;
  Result<MmvFile> f = MmvFile::open(mmv_path("sentinel"));
  ASSERT_TRUE(f) << f.error().message;
  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  auto v = values_of(*f, s);
  EXPECT_EQ(v["u64"], "<none>");
  EXPECT_EQ(v["d"], "<none>");
  EXPECT_EQ(v["f"], "<none>");
  EXPECT_EQ(v["s"], "<none>");  // empty string
  EXPECT_EQ(v["ok"], "3");
  mmv_stats_stop("sentinel", m);
}

TEST(MmvReader, ReinitialisedFileIsReplaced) {
  pcp_mmv_dir();
  static mmv_metric_t metrics[] = {
      {"n", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, MMV_UNITS(0, 0, 0, 0, 0, 0), 0, nullptr, nullptr}};
  void* m = mmv_stats_init("again", 0, static_cast<mmv_stats_flags_t>(0), metrics, 1, nullptr, 0);
  ASSERT_NE(m, nullptr);
  Result<MmvFile> f = MmvFile::open(mmv_path("again"));
  ASSERT_TRUE(f) << f.error().message;
  Snapshot s;
  ASSERT_EQ(f->snapshot(&s), SnapshotStatus::kOk);
  mmv_stats_stop("again", m);
  m = mmv_stats_init("again", 0, static_cast<mmv_stats_flags_t>(0), metrics, 1, nullptr, 0);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(f->snapshot(&s), SnapshotStatus::kReplaced);
  mmv_stats_stop("again", m);
  ::unlink(mmv_path("again").c_str());
  EXPECT_EQ(f->snapshot(&s), SnapshotStatus::kGone);
}

}  // namespace
}  // namespace hearth::mmv

#endif  // HEARTH_HAVE_PCP_MMV
