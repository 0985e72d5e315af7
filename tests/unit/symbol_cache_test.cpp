// The symbol cache's entry format (formats/symbol_cache.h), its directory's checks
// (collectors/stacks/symbol_cache.h) and the kernel symbols' cached core text
// (collectors/proc/kallsyms.h), loaded on a thread of their own
// (collectors/stacks/kernel_symbols.h).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collectors/proc/kallsyms.h"
#include "collectors/stacks/kernel_symbols.h"
#include "collectors/stacks/symbol_cache.h"
#include "formats/symbol_cache.h"

namespace {

namespace sc = hearth::symbol_cache;

sc::Entry sample_entry() {
  sc::Entry e;
  e.identity = "v1\n93ac\nlibc.so.6\tweird\\name\npit";
  e.addresses.push_back({0x8c3f1, {{"__pthread_cond_wait", false}, {"cond\\wait\tx", true}}});
  e.addresses.push_back({0x10, {{"[libc.so.6+0x10]", false}}});
  e.tails.push_back({0x29d8f, 0x5f2e0c9a1b7d3e44ull, 0x91a0, {"outer", "inner"}});
  e.tails.push_back({0x1, 0x2, 0x3, {}});
  return e;
}

TEST(SymbolCacheFormat, RoundTripsNamesWithTabsBackslashesAndEmptyTailCalls) {
  const sc::Entry e = sample_entry();
  const std::string text = sc::write_text(e);
  EXPECT_TRUE(text.starts_with("# hearth symbol cache 1\nidentity\tv1\\n93ac\\nlibc.so.6\\tweird"))
      << text;
  EXPECT_TRUE(text.ends_with("end\t4\n")) << text;
  auto back = sc::parse(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->identity, e.identity);
  ASSERT_EQ(back->addresses.size(), 2u);
  EXPECT_EQ(back->addresses[0].offset, 0x8c3f1u);
  EXPECT_EQ(back->addresses[0].frames[1].name, "cond\\wait\tx");
  EXPECT_TRUE(back->addresses[0].frames[1].inlined);
  EXPECT_FALSE(back->addresses[0].frames[0].inlined);
  ASSERT_EQ(back->tails.size(), 2u);
  EXPECT_EQ(back->tails[0].callee_module, 0x5f2e0c9a1b7d3e44ull);
  EXPECT_EQ(back->tails[0].frames, (std::vector<std::string>{"outer", "inner"}));
  EXPECT_TRUE(back->tails[1].frames.empty());
  EXPECT_EQ(sc::write_text(*back), text);
}

TEST(SymbolCacheFormat, RefusesEveryCutAndDamage) {
  const std::string text = sc::write_text(sample_entry());
  // Every proper prefix: no end line, or a cut line.
  for (size_t n = 0; n < text.size(); ++n)
    EXPECT_FALSE(sc::parse(text.substr(0, n))) << "cut at " << n;
  for (std::string bad : {
           std::string("# hearth symbol cache 2\nidentity\tx\nend\t0\n"),
           std::string("# hearth symbol cache 1\nidentity\t\nend\t0\n"),
           std::string("# hearth symbol cache 1\nidentity\tx\na\t10\nend\t1\n"),      // no frame
           std::string("# hearth symbol cache 1\nidentity\tx\na\t10\tX\nend\t1\n"),   // bad kind
           std::string("# hearth symbol cache 1\nidentity\tx\na\t10\tF\nend\t1\n"),   // empty name
           std::string("# hearth symbol cache 1\nidentity\tx\na\tzz\tFf\nend\t1\n"),  // bad offset
           std::string("# hearth symbol cache 1\nidentity\tx\na\t10\tFa\\q\nend\t1\n"),
           std::string("# hearth symbol cache 1\nidentity\tx\na\t10\tFa\nend\t2\n"),   // count
           std::string("# hearth symbol cache 1\nidentity\tx\nt\t1\t2\t3\nend\t1\n"),  // short id
           std::string("# hearth symbol cache 1\nidentity\tx\nend\t0\na\t1\tFa\n"),
           std::string("# hearth symbol cache 1\nidentity\tx\nq\t1\nend\t1\n"),
       }) {
    EXPECT_FALSE(sc::parse(bad)) << bad;
  }
  auto error = sc::parse("# hearth symbol cache 1\nidentity\tx\na\t10\tX\nend\t1\n");
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().message, "line 3: bad frame");
}

TEST(SymbolCacheFormat, NamesPastTheBoundAreLeftOutNotWritten) {
  sc::Entry e;
  e.identity = "id";
  e.addresses.push_back({1, {{std::string(sc::kMaxNameBytes + 1, 'x'), false}}});
  e.addresses.push_back({2, {{"ok", false}}});
  auto back = sc::parse(sc::write_text(e));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->addresses.size(), 1u);
  EXPECT_EQ(back->addresses[0].offset, 2u);
}

struct SymbolCacheDirTest : ::testing::Test {
  void SetUp() override {
    root = std::filesystem::path(::testing::TempDir()) / "symcache-unit";
    std::filesystem::remove_all(root);
    hearth::stacks::take_symbol_cache_warnings();
  }
  void TearDown() override { std::filesystem::remove_all(root); }
  std::filesystem::path root;
};

TEST_F(SymbolCacheDirTest, CreatesAPrivateDirectoryAndWritesPrivateEntries) {
  auto dir = hearth::stacks::SymbolCacheDir::open((root / "a" / "b").string());
  ASSERT_TRUE(dir);
  struct stat st;
  ASSERT_EQ(::stat((root / "a" / "b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  dir->write("x.sym", "hello");
  ASSERT_EQ(::stat((root / "a" / "b" / "x.sym").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(dir->read("x.sym"), "hello");
  EXPECT_EQ(dir->read("absent.sym"), std::nullopt);
  EXPECT_TRUE(hearth::stacks::take_symbol_cache_warnings().empty());
}

TEST_F(SymbolCacheDirTest, RefusesPlantedEntriesAndOpenDirectories) {
  auto dir = hearth::stacks::SymbolCacheDir::open((root / "c").string());
  ASSERT_TRUE(dir);
  dir->write("open.sym", "x");
  ASSERT_EQ(::chmod((root / "c" / "open.sym").c_str(), 0622), 0);
  EXPECT_EQ(dir->read("open.sym"), std::nullopt);
  std::filesystem::create_symlink("/etc/passwd", root / "c" / "link.sym");
  EXPECT_EQ(dir->read("link.sym"), std::nullopt);
  std::filesystem::create_directory(root / "c" / "dir.sym");
  EXPECT_EQ(dir->read("dir.sym"), std::nullopt);
  auto warnings = hearth::stacks::take_symbol_cache_warnings();
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("open.sym: writable by others"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[2].find("dir.sym: not a regular file"), std::string::npos) << warnings[2];

  std::filesystem::create_directory(root / "open");
  ASSERT_EQ(::chmod((root / "open").c_str(), 0777), 0);
  EXPECT_FALSE(hearth::stacks::SymbolCacheDir::open((root / "open").string()));
  EXPECT_FALSE(hearth::stacks::SymbolCacheDir::open((root / "open").string()));  // said once
  warnings = hearth::stacks::take_symbol_cache_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("open: writable by others"), std::string::npos) << warnings[0];
}

constexpr const char* kKallsyms =
    "0000000000000000 A fixed_percpu_data\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000100 T do_one\n"
    "ffffffff81000100 t do_one_alias\n"
    "ffffffff81000200 t do_two\n"
    "ffffffff82000000 T _etext\n"
    "ffffffffc0001000 t mod_fn\t[mod]\n";

TEST(KallsymsCoreText, KeepsTheCoreTextAndNamesItAsTheWholeTableDoes) {
  auto full = hearth::proc::Kallsyms::parse(kKallsyms);
  ASSERT_TRUE(full);
  ASSERT_TRUE(full->has_core());
  const std::string text = full->core_text("# head");
  auto core = hearth::proc::Kallsyms::parse_core_text(text, "# head");
  ASSERT_TRUE(core) << core.error().message;
  EXPECT_EQ(core->size(), 5u);  // _stext .. _etext, not the module's
  for (uint64_t addr : {0xffffffff81000101ull, 0xffffffff81000150ull, 0xffffffff81000201ull}) {
    EXPECT_TRUE(core->covers_core(addr));
    EXPECT_EQ(core->name_of_return_address(addr), full->name_of_return_address(addr));
  }
  EXPECT_EQ(core->name_of_return_address(0xffffffff81000101ull), "do_one");
  EXPECT_FALSE(core->covers_core(0xffffffffc0001001ull));  // a module's: the whole table
  EXPECT_FALSE(hearth::proc::Kallsyms::parse_core_text(text, "# other boot"));
  for (size_t n = 0; n + 1 < text.size(); ++n)
    EXPECT_FALSE(hearth::proc::Kallsyms::parse_core_text(text.substr(0, n), "# head")) << n;
}

TEST(KallsymsCoreText, RefusesALineCoreTextDoesNotWriteAndSortsWhatIsOutOfOrder) {
  const std::string head = "# head\n";
  const std::string stext = "ffffffff81000000 t _stext\n", etext = "ffffffff82000000 t _etext\n";
  const std::string one = "ffffffff81000100 t do_one\n", two = "ffffffff81000200 t do_two\n";
  // Out of order (an edited file): read, and named as if sorted.
  auto shuffled = hearth::proc::Kallsyms::parse_core_text(
      head + two + stext + etext + one + "# end 4\n", "# head");
  ASSERT_TRUE(shuffled) << shuffled.error().message;
  EXPECT_EQ(shuffled->name_of_return_address(0xffffffff81000150ull), "do_one");
  EXPECT_EQ(shuffled->name_of_return_address(0xffffffff81000201ull), "do_two");
  EXPECT_EQ(shuffled->name_of_return_address(0xffffffff81000001ull), "_stext");
  // Lines parse() alone would skip or read loosely: refused whole.
  for (const std::string bad :
       {"0000000000000000 t zero\n", "ffffffff8100010G t bad_digit\n", "ffffffff81000100 T upper\n",
        "ffffffff81000100 t two words\n", "FFFFFFFF81000100 t upper_hex\n", "ffffffff81000100 t \n",
        "ffffffff8100010 t short\n"}) {
    EXPECT_FALSE(
        hearth::proc::Kallsyms::parse_core_text(head + stext + bad + etext + "# end 3\n", "# head"))
        << bad;
  }
  EXPECT_TRUE(
      hearth::proc::Kallsyms::parse_core_text(head + stext + one + etext + "# end 3\n", "# head"));
}

TEST(Kallsyms, ModulesListedBeforeTheCoreAreSortedIn) {
  // Sorted input is kept as read; out of order (a module loaded early, say), it is sorted.
  auto k = hearth::proc::Kallsyms::parse(
      "ffffffffc0001000 t mod_fn\t[mod]\n"
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 T do_one\n"
      "ffffffff81000100 t do_one_alias\n"
      "ffffffff82000000 T _etext\n");
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k->name_of_return_address(0xffffffffc0001010ull), "mod_fn");
  EXPECT_EQ(k->name_of_return_address(0xffffffff81000101ull), "do_one");
  EXPECT_EQ(k->name_of_return_address(0xffffffff81000100ull), "_stext");
  EXPECT_EQ(k->name_of_return_address(0xffffffff82000001ull), "_etext");
}

TEST_F(SymbolCacheDirTest, KernelSymbolsLoadedAheadNameAsLoadedOnDemandAndFillTheCache) {
  auto kallsyms = hearth::proc::Kallsyms::load();
  if (!kallsyms || !kallsyms->has_core() || hearth::stacks::kernel_symbols_header().empty())
    GTEST_SKIP() << "needs /proc/kallsyms with addresses (root) and a boot id";
  const std::string text = kallsyms->core_text("# probe");  // a few core addresses to name
  std::vector<uint64_t> addrs;
  size_t line = 0;
  for (size_t at = text.find('\n') + 1; at < text.size() && text[at] != '#';
       at = text.find('\n', at) + 1) {
    if (line++ % 2000 == 0) addrs.push_back(std::stoull(text.substr(at, 16), nullptr, 16) + 1);
  }
  ASSERT_GE(addrs.size(), 10u);
  hearth::stacks::KernelSymbols ahead((root / "k").string());
  ahead.prefetch();
  ahead.prefetch();  // once
  for (uint64_t a : addrs)
    EXPECT_EQ(ahead.name_of_return_address(a), kallsyms->name_of_return_address(a))
        << std::hex << a;
  // The entry it wrote names them the same way in the next run, and so does a lookup that
  // loads on demand.
  hearth::stacks::KernelSymbols warm((root / "k").string());
  warm.prefetch();
  hearth::stacks::KernelSymbols on_demand((root / "k").string());
  for (uint64_t a : addrs) {
    EXPECT_EQ(warm.name_of_return_address(a), kallsyms->name_of_return_address(a)) << std::hex << a;
    EXPECT_EQ(on_demand.name_of_return_address(a), kallsyms->name_of_return_address(a));
  }
  const auto stats = hearth::stacks::symbol_cache_stats();
  EXPECT_GE(stats.entries_written, 1u);
  EXPECT_GE(stats.entries_loaded, 2u);
  // Loaded ahead and never asked: the loader is waited for, not left running.
  hearth::stacks::KernelSymbols unused((root / "k").string());
  unused.prefetch();
}

}  // namespace
