// hearth watch's MMV file (watch/mmv_publish.h), written by libpcp_mmv, read back with hearth's
// own MMV reader: names, instances, values, rule texts, restarts, removal.
#ifdef HEARTH_HAVE_PCP_MMV

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "collectors/mmv/mmv_file.h"
#include "tests/unit/mmv_pcp_support.h"
#include "watch/mmv_publish.h"

namespace hearth::watch {
namespace {

// "metric" or "metric[instance]" -> value as a double (strings: NaN).
std::map<std::string, double> published_values(mmv::MmvFile& f) {
  mmv::Snapshot s;
  std::map<std::string, double> out;
  if (f.snapshot(&s) != mmv::SnapshotStatus::kOk) return out;
  const mmv::Layout& L = f.layout();
  for (size_t i = 0; i < L.slots.size(); ++i) {
    const mmv::Slot& slot = L.slots[i];
    std::string key = L.metrics[slot.metric].name;
    if (slot.instance >= 0) key += "[" + L.instances[slot.instance].name + "]";
    if (s.samples[i].present) out[key] = mmv::value_as_double(L.metrics[slot.metric], s.samples[i]);
  }
  return out;
}

std::vector<std::string> published_instances(const mmv::Layout& L, uint32_t serial) {
  std::vector<std::string> out;
  for (const mmv::Instance& in : L.instances) {
    if (L.indoms[in.indom].serial == serial) out.push_back(in.name);
  }
  return out;
}

// rule.text of rule NAME.
std::string published_text(mmv::MmvFile& f, const std::string& name) {
  mmv::Snapshot s;
  if (f.snapshot(&s) != mmv::SnapshotStatus::kOk) return "<no snapshot>";
  const mmv::Layout& L = f.layout();
  for (size_t i = 0; i < L.slots.size(); ++i) {
    const mmv::Slot& slot = L.slots[i];
    if (L.metrics[slot.metric].name == "watch.rule.text" && slot.instance >= 0 &&
        L.instances[slot.instance].name == name) {
      return s.samples[i].text;
    }
  }
  return "<none>";
}

TEST(MmvPublish, NamesInstancesAndValuesAsPcpReadsThem) {
  mmv::testing::pcp_mmv_dir();
  auto pub = MmvPublisher::start(
      "pubvalues", {{"queue", "mmv:app.queue.depth > 100 for 2s"}, {"busy", "cpu > 90%"}},
      {"http", "db", "http", ""});
  ASSERT_TRUE(pub) << pub.error().message;
  EXPECT_EQ(pub->path(), mmv::testing::mmv_path("pubvalues"));

  auto f = mmv::MmvFile::open(pub->path());
  ASSERT_TRUE(f) << f.error().message;
  const mmv::Layout& L = f->layout();
  EXPECT_EQ(L.pid, getpid());
  EXPECT_EQ(L.flags, mmv::kFlagProcess);
  std::vector<std::string> names;
  for (const mmv::Metric& m : L.metrics) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"watch.rule.value",
                                             "watch.rule.known",
                                             "watch.rule.holds",
                                             "watch.rule.fired",
                                             "watch.rule.text",
                                             "watch.threads.running",
                                             "watch.threads.runnable",
                                             "watch.threads.blocked",
                                             "watch.threads.count",
                                             "watch.up",
                                             "watch.triggers",
                                             "watch.reports.written",
                                             "watch.reports.removed",
                                             "watch.sampling.cpu",
                                             "watch.sampling.stopped_us",
                                             "watch.ring.seconds",
                                             "watch.ring.bytes",
                                             "watch.ring.stacks",
                                             "watch.ring.stacks_added",
                                             "watch.ring.names",
                                             "watch.ring.names_added",
                                             "watch.memory.budget",
                                             "watch.ring.shortened",
                                             "watch.ring.shortenings"}));
  EXPECT_EQ(published_instances(L, 1), (std::vector<std::string>{"queue", "busy"}));
  EXPECT_EQ(published_instances(L, 2), (std::vector<std::string>{"http", "db", "other"}));
  EXPECT_EQ(published_text(*f, "busy"), "cpu > 90%");
  EXPECT_EQ(mmv::units_text(L.metrics[14].units), "microsec");
  EXPECT_EQ(L.metrics[3].semantics, mmv::Semantics::kCounter);

  // Before any figure: up, and no rule value known.
  auto v = published_values(*f);
  EXPECT_EQ(v["watch.up"], 1);
  EXPECT_EQ(v["watch.rule.value[queue]"], 0);
  EXPECT_EQ(v["watch.rule.known[queue]"], 0);

  pub->rule(0, 142.5, true);
  pub->rule(1, std::nullopt, false);
  pub->fired(0);
  pub->fired(0);
  pub->threads({{"http", 4, 0.5, 0.25, 0},
                {"db", 1, 0.1, 0, 0.9},
                {"gc", 1, 1, 0, 0},
                {"jit", 3, 0, 0.5, 0}});
  pub->watcher(0.004, 1234, 600, 5 << 20);
  pub->report_written();
  pub->report_removed();
  v = published_values(*f);
  EXPECT_EQ(v["watch.rule.value[queue]"], 142.5);
  EXPECT_EQ(v["watch.rule.known[queue]"], 1);
  EXPECT_EQ(v["watch.rule.holds[queue]"], 1);
  EXPECT_EQ(v["watch.rule.fired[queue]"], 2);
  EXPECT_EQ(v["watch.rule.value[busy]"], 0);
  EXPECT_EQ(v["watch.rule.known[busy]"], 0);
  EXPECT_EQ(v["watch.rule.fired[busy]"], 0);
  EXPECT_EQ(v["watch.triggers"], 2);
  EXPECT_EQ(v["watch.threads.running[http]"], 0.5);
  EXPECT_EQ(v["watch.threads.runnable[http]"], 0.25);
  EXPECT_EQ(v["watch.threads.count[http]"], 4);
  EXPECT_EQ(v["watch.threads.blocked[db]"], 0.9);
  // gc (1 thread running) and jit (3 threads, half runnable): weighted by threads.
  EXPECT_EQ(v["watch.threads.count[other]"], 4);
  EXPECT_EQ(v["watch.threads.running[other]"], 0.25);
  EXPECT_EQ(v["watch.threads.runnable[other]"], 0.375);
  EXPECT_EQ(v["watch.sampling.cpu"], 0.004);
  EXPECT_EQ(v["watch.sampling.stopped_us"], 1234);
  EXPECT_EQ(v["watch.ring.seconds"], 600);
  EXPECT_EQ(v["watch.ring.bytes"], 5 << 20);
  EXPECT_EQ(v["watch.reports.written"], 1);
  EXPECT_EQ(v["watch.reports.removed"], 1);

  // A second later db is gone: its figures are 0, not the last ones.
  pub->threads({{"http", 4, 0.5, 0.25, 0}});
  v = published_values(*f);
  EXPECT_EQ(v["watch.threads.blocked[db]"], 0);
  EXPECT_EQ(v["watch.threads.count[db]"], 0);
  EXPECT_EQ(v["watch.threads.count[other]"], 0);

  // The ring's tables and memory budget.
  pub->ring({.stacks = 120,
             .stacks_added = 611,
             .names = 40,
             .names_added = 1597,
             .memory_budget_bytes = 64 << 20,
             .shortened = true,
             .shortenings = 2});
  v = published_values(*f);
  EXPECT_EQ(v["watch.ring.stacks"], 120);
  EXPECT_EQ(v["watch.ring.stacks_added"], 611);
  EXPECT_EQ(v["watch.ring.names"], 40);
  EXPECT_EQ(v["watch.ring.names_added"], 1597);
  EXPECT_EQ(v["watch.memory.budget"], 64 << 20);
  EXPECT_EQ(v["watch.ring.shortened"], 1);
  EXPECT_EQ(v["watch.ring.shortenings"], 2);
}

TEST(MmvPublish, RestartGivesNewInstancesKeepsCountersAndEndRemovesTheFile) {
  mmv::testing::pcp_mmv_dir();
  const std::string path = mmv::testing::mmv_path("pubrestart");
  {
    auto pub = MmvPublisher::start("pubrestart", {{"a", "cpu > 1%"}, {"b", "cpu > 2%"}}, {"t1"});
    ASSERT_TRUE(pub) << pub.error().message;
    pub->fired(0);
    pub->fired(1);
    pub->report_written();
    pub->rule(0, 3, true);
    auto before = mmv::MmvFile::open(path);
    ASSERT_TRUE(before) << before.error().message;

    // Another publisher of the same file while this one lives: refused, the file untouched.
    auto twice = MmvPublisher::start("pubrestart", {}, {});
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("twice"), std::string::npos) << twice.error().message;

    ASSERT_TRUE(pub->restart({{"c", "cpu > 3%"}, {"a", "cpu > 1%"}}, {"t2", "t3"}));
    mmv::Snapshot s;
    EXPECT_NE(before->snapshot(&s), mmv::SnapshotStatus::kOk) << "the old file was replaced";
    auto after = mmv::MmvFile::open(path);
    ASSERT_TRUE(after) << after.error().message;
    EXPECT_NE(after->layout().generation, before->layout().generation);
    EXPECT_EQ(published_instances(after->layout(), 1), (std::vector<std::string>{"c", "a"}));
    EXPECT_EQ(published_instances(after->layout(), 2),
              (std::vector<std::string>{"t2", "t3", "other"}));
    auto v = published_values(*after);
    EXPECT_EQ(v["watch.up"], 1);
    EXPECT_EQ(v["watch.triggers"], 2);
    EXPECT_EQ(v["watch.reports.written"], 1);
    EXPECT_EQ(v["watch.rule.fired[a]"], 1);  // carried by name
    EXPECT_EQ(v["watch.rule.fired[c]"], 0);
    EXPECT_EQ(v["watch.rule.known[a]"], 0) << "figures start unset";
    EXPECT_EQ(published_text(*after, "c"), "cpu > 3%");
    pub->fired(0);  // index in the new order: c
    EXPECT_EQ(published_values(*after)["watch.rule.fired[c]"], 1);

    // A publisher moved: one file, removed once, by the one that holds it.
    MmvPublisher moved = std::move(*pub);
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(moved.path(), path);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  // The name is free again.
  auto again = MmvPublisher::start("pubrestart", {}, {});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(MmvPublish, ThreadGroupsBeyondTheCapShareOther) {
  mmv::testing::pcp_mmv_dir();
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("w" + std::to_string(i));
  auto pub = MmvPublisher::start("pubcap", {}, names);
  ASSERT_TRUE(pub) << pub.error().message;
  auto f = mmv::MmvFile::open(pub->path());
  ASSERT_TRUE(f) << f.error().message;
  auto inst = published_instances(f->layout(), 2);
  ASSERT_EQ(inst.size(), MmvPublisher::kMaxThreadGroups + 1);
  EXPECT_EQ(inst[255], "w255");
  EXPECT_EQ(inst.back(), "other");
  pub->threads({{"w0", 1, 1, 0, 0}, {"w299", 2, 0, 0, 1}, {"w256", 2, 0, 0, 0}});
  auto v = published_values(*f);
  EXPECT_EQ(v["watch.threads.running[w0]"], 1);
  EXPECT_EQ(v["watch.threads.count[other]"], 4);
  EXPECT_EQ(v["watch.threads.blocked[other]"], 0.5);
}

TEST(MmvPublish, LongRuleTextsAreCutAndBadInputIsOneLine) {
  mmv::testing::pcp_mmv_dir();
  // 250 bytes, then a 2-byte character: a cut at 251 bytes (254 with "...") would split it.
  const std::string long_text = "stack:'" + std::string(243, 'x') + "\u00e9\u2026' > 30% over 5s";
  auto pub = MmvPublisher::start("pubtexts", {{"long", long_text}, {"short", "cpu > 1%"}}, {});
  ASSERT_TRUE(pub) << pub.error().message;
  auto f = mmv::MmvFile::open(pub->path());
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(published_text(*f, "long"), "stack:'" + std::string(243, 'x') + "...");
  EXPECT_EQ(published_text(*f, "short"), "cpu > 1%");

  for (const char* bad : {"", "9lives", "with-dash", "dot.ted"}) {
    auto r = MmvPublisher::start(bad, {}, {});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message.rfind(std::string("bad MMV file name '") + bad + "'", 0), 0u);
  }
  auto dup = MmvPublisher::start("pubdup", {{"r", "cpu > 1%"}, {"r", "cpu > 2%"}}, {});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().message, "cannot publish rule 'r' to PCP: two rules have that name");
  auto empty = MmvPublisher::start("pubdup", {{"", "cpu > 1%"}}, {});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message.find('\n'), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(mmv::testing::mmv_path("pubdup")));
}

}  // namespace
}  // namespace hearth::watch

#endif  // HEARTH_HAVE_PCP_MMV
