#include "watch/mmv_publish.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

// pmapi.h first: the MMV headers use its types.
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_dev.h>
// clang-format on

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <set>
#include <unordered_map>

#include "common/check.h"
#include "common/utf8.h"

namespace hearth::watch {
namespace {

// Item numbers (the PMID's item: < 1024) and instance domain serials: fixed, so a metric keeps
// its PMID across restarts and pmlogger's archives stay one series.
enum PubItem : int {
  kItemRuleValue = 1,
  kItemRuleKnown,
  kItemRuleHolds,
  kItemRuleFired,
  kItemThreadsRunning,
  kItemThreadsRunnable,
  kItemThreadsBlocked,
  kItemThreadsCount,
  kItemUp,
  kItemTriggers,
  kItemReportsWritten,
  kItemReportsRemoved,
  kItemSamplingCpu,
  kItemSamplingStopped,
  kItemRingSeconds,
  kItemRingBytes,
  kItemRuleText,
  kItemRingStacks,
  kItemRingStacksAdded,
  kItemRingNames,
  kItemRingNamesAdded,
  kItemMemoryBudget,
  kItemRingShortened,
  kItemRingShortenings,
};
constexpr int kPubRulesIndom = 1;
constexpr int kPubThreadsIndom = 2;
constexpr int kPubNoIndom = static_cast<int>(PM_INDOM_NULL);  // a metric with one value
constexpr const char* kPubOtherThreads = "other";
constexpr size_t kPubMaxRules = 1000;  // pmdammv serves at most 10,000 values per file

struct PubMetricSpec {
  int item;
  const char* name;
  mmv_metric_type_t type;
  mmv_metric_sem_t sem;
  pmUnits units;
  int indom;
  const char* help;
};

constexpr pmUnits kUnitsNone = MMV_UNITS(0, 0, 0, 0, 0, 0);
constexpr pmUnits kUnitsCount = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
constexpr pmUnits kUnitsMicros = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
constexpr pmUnits kUnitsSeconds = MMV_UNITS(0, 1, 0, 0, PM_TIME_SEC, 0);
constexpr pmUnits kUnitsBytes = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);

// clang-format off
const PubMetricSpec kPubMetrics[] = {
  {kItemRuleValue, "watch.rule.value", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kUnitsNone, kPubRulesIndom,
   "the value the rule compared at its last evaluation (none until it has one)"},
  {kItemRuleKnown, "watch.rule.known", MMV_TYPE_U32, MMV_SEM_INSTANT, kUnitsNone, kPubRulesIndom,
   "1 when the rule had a value to compare at its last evaluation, else 0"},
  {kItemRuleHolds, "watch.rule.holds", MMV_TYPE_U32, MMV_SEM_INSTANT, kUnitsNone, kPubRulesIndom,
   "1 when the rule's condition held at its last evaluation, else 0"},
  {kItemRuleFired, "watch.rule.fired", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount, kPubRulesIndom,
   "reports this rule triggered"},
  {kItemRuleText, "watch.rule.text", MMV_TYPE_STRING, MMV_SEM_DISCRETE, kUnitsNone, kPubRulesIndom,
   "the rule as written (cut to 254 bytes)"},
  {kItemThreadsRunning, "watch.threads.running", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kUnitsNone,
   kPubThreadsIndom, "share of the group's thread time on a CPU over the last second (0..1)"},
  {kItemThreadsRunnable, "watch.threads.runnable", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kUnitsNone,
   kPubThreadsIndom, "share of the group's thread time waiting for a CPU over the last second (0..1)"},
  {kItemThreadsBlocked, "watch.threads.blocked", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kUnitsNone,
   kPubThreadsIndom, "share of the group's thread time in uninterruptible sleep over the last second"},
  {kItemThreadsCount, "watch.threads.count", MMV_TYPE_U32, MMV_SEM_INSTANT, kUnitsCount, kPubThreadsIndom,
   "threads in the group"},
  {kItemUp, "watch.up", MMV_TYPE_U32, MMV_SEM_INSTANT, kUnitsNone, kPubNoIndom,
   "1 while hearth watch is watching"},
  {kItemTriggers, "watch.triggers", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount, kPubNoIndom,
   "reports triggered by any rule"},
  {kItemReportsWritten, "watch.reports.written", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount,
   kPubNoIndom, "reports written"},
  {kItemReportsRemoved, "watch.reports.removed", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount,
   kPubNoIndom, "reports removed to keep within the disk budget"},
  {kItemSamplingCpu, "watch.sampling.cpu", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kUnitsNone, kPubNoIndom,
   "hearth's own CPU over the last second, a share of one core"},
  {kItemSamplingStopped, "watch.sampling.stopped_us", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsMicros,
   kPubNoIndom, "time the target's threads were stopped by hearth, as hearth times it (stop "
                "request to release: more than the scheduler sees)"},
  {kItemRingSeconds, "watch.ring.seconds", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kUnitsSeconds,
   kPubNoIndom, "span of the history the ring holds"},
  {kItemRingBytes, "watch.ring.bytes", MMV_TYPE_U64, MMV_SEM_INSTANT, kUnitsBytes, kPubNoIndom,
   "hearth's resident memory: the ring and the symbol tables"},
  {kItemRingStacks, "watch.ring.stacks", MMV_TYPE_U64, MMV_SEM_INSTANT, kUnitsCount, kPubNoIndom,
   "distinct stacks the sampler's tables hold (those of rounds forgotten are trimmed)"},
  {kItemRingStacksAdded, "watch.ring.stacks_added", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount,
   kPubNoIndom, "distinct stacks added to the tables since the start (one trimmed and seen again "
                "counts again)"},
  {kItemRingNames, "watch.ring.names", MMV_TYPE_U64, MMV_SEM_INSTANT, kUnitsCount, kPubNoIndom,
   "thread names and process titles the sampler's tables hold"},
  {kItemRingNamesAdded, "watch.ring.names_added", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount,
   kPubNoIndom, "thread names and process titles added since the start"},
  {kItemMemoryBudget, "watch.memory.budget", MMV_TYPE_U64, MMV_SEM_INSTANT, kUnitsBytes, kPubNoIndom,
   "the resident memory hearth keeps within by shortening the ring (--memory-budget)"},
  {kItemRingShortened, "watch.ring.shortened", MMV_TYPE_U32, MMV_SEM_INSTANT, kUnitsNone,
   kPubNoIndom, "1 while the memory budget keeps the ring shorter than --ring, else 0"},
  {kItemRingShortenings, "watch.ring.shortenings", MMV_TYPE_U64, MMV_SEM_COUNTER, kUnitsCount,
   kPubNoIndom, "times the memory budget began to shorten the ring"},
};
// clang-format on

// The files this process publishes now (full paths): a second publisher of one file would have
// libpcp_mmv remove the first one's file, and the first one's end remove the second's.
std::mutex publish_live_mutex;
std::set<std::string> publish_live_paths;

uint32_t publish_hash(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

bool valid_mmv_file_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  if (!std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_') return false;
  }
  return true;
}

// Instance ids from names (non-negative, unique within a domain), so an instance keeps its id
// across restarts and pmlogger keeps one series for it.
int32_t publish_instance_id(const std::string& name, std::set<int32_t>* taken) {
  auto id = static_cast<int32_t>(publish_hash(name) & 0x7fffffff);
  while (!taken->insert(id).second) id = (id + 1) & 0x7fffffff;
  return id;
}

// TEXT cut to what an MMV string holds (254 bytes), whole UTF-8 characters, ending "...".
std::string rule_text_value(const std::string& text) {
  constexpr size_t kMax = MMV_STRINGMAX - 2;
  if (text.size() <= kMax) return text;
  size_t end = 0;
  while (end < text.size()) {
    const size_t n = utf8::char_bytes(text, end);
    if (end + n > kMax - 3) break;
    end += n;
  }
  return text.substr(0, end) + "...";
}

// The pid of another live hearth that publishes PATH now, else 0.
pid_t other_publisher(const std::string& path) {
  mmv_disk_header_t hdr{};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t got = ::pread(fd, &hdr, sizeof hdr, 0);
  ::close(fd);
  if (got != static_cast<ssize_t>(sizeof hdr) || std::string(hdr.magic, 3) != "MMV") return 0;
  const pid_t pid = hdr.process;
  if (!(hdr.flags & MMV_FLAG_PROCESS) || pid <= 0 || pid == ::getpid()) return 0;
  if (::kill(pid, 0) != 0 && errno != EPERM) return 0;
  // A pid reused since a watcher was killed: another program's, not a publisher.
  auto comm = [](const std::string& p) {
    std::ifstream in("/proc/" + p + "/comm");
    std::string c;
    std::getline(in, c);
    return c;
  };
  return comm(std::to_string(pid)) == comm("self") ? pid : 0;
}

}  // namespace

struct MmvPublisher::Impl {
  std::string name, path;
  mmv_registry_t* registry = nullptr;
  void* addr = nullptr;  // the mapped file; null: nothing published
  // Instance names, alive as long as the registry points at them.
  std::vector<std::string> rule_names, thread_names;
  // Values in the mapped file, by rule / thread instance (the last thread instance is "other").
  struct RuleValues {
    pmAtomValue *value, *known, *holds, *fired;
  };
  struct ThreadValues {
    pmAtomValue *running, *runnable, *blocked, *count;
  };
  std::vector<RuleValues> rules;
  std::vector<ThreadValues> threads;
  std::unordered_map<std::string, size_t> thread_index;
  size_t other = 0;
  pmAtomValue *up = nullptr, *triggers = nullptr, *written = nullptr, *removed = nullptr,
              *cpu = nullptr, *stopped = nullptr, *ring_seconds = nullptr, *ring_bytes = nullptr,
              *ring_stacks = nullptr, *ring_stacks_added = nullptr, *ring_names = nullptr,
              *ring_names_added = nullptr, *memory_budget = nullptr, *ring_shortened = nullptr,
              *ring_shortenings = nullptr;
  // Scratch for threads(): per instance, threads and share × threads.
  std::vector<double> n, running, runnable, blocked;

  // The wall-clock second of the last file made, until the directory was touched in a later
  // one (0: done).
  time_t touch_after = 0;

  Result<void> open(const std::vector<PublishedRule>& rule_list,
                    const std::vector<std::string>& thread_list);
  void close();
  // pmdammv looks for new or changed files only when the directory's mtime differs from the one
  // it saw at its last look, and a file it finds before libpcp_mmv has written the header (empty,
  // or no "MMV" yet: mmv_stats_start creates, sizes and maps the file, then writes it) it drops
  // without a second look: a look inside that window left the file unserved for good (CI saw it
  // under ThreadSanitizer, whose mmap is slow). Once the file is whole the directory is touched,
  // then again in a later second (a pmdammv comparing whole seconds sees the first touch as no
  // change if it looked in the same second).
  void touch_directory() {
    (void)::utimensat(AT_FDCWD, path.substr(0, path.rfind('/')).c_str(), nullptr, 0);
  }
  void touch_directory_later() {
    if (touch_after != 0 && ::time(nullptr) > touch_after) {
      touch_directory();
      touch_after = 0;
    }
  }
  void set(pmAtomValue* v, double x) { mmv_set_value(addr, v, x); }
  pmAtomValue* lookup(const char* metric, const std::string* instance) {
    pmAtomValue* v = mmv_lookup_value_desc(addr, metric, instance ? instance->c_str() : nullptr);
    HEARTH_CHECK(v != nullptr);
    return v;
  }
};

Result<void> MmvPublisher::Impl::open(const std::vector<PublishedRule>& rule_list,
                                      const std::vector<std::string>& thread_list) {
  HEARTH_CHECK(registry == nullptr && addr == nullptr);
  if (rule_list.size() > kPubMaxRules) {
    return fail("cannot publish " + std::to_string(rule_list.size()) + " rules to PCP (at most " +
                std::to_string(kPubMaxRules) + ")");
  }
  std::set<std::string> seen;
  rule_names.clear();
  for (const PublishedRule& r : rule_list) {
    if (r.name.empty() || r.name.size() >= MMV_STRINGMAX) {
      return fail("cannot publish rule '" + r.name + "' to PCP: a name of 1-255 bytes is needed");
    }
    if (!seen.insert(r.name).second) {
      return fail("cannot publish rule '" + r.name + "' to PCP: two rules have that name");
    }
    rule_names.push_back(r.name);
  }
  thread_names.clear();
  std::set<std::string> groups;
  for (const std::string& t : thread_list) {
    if (thread_names.size() == kMaxThreadGroups) break;
    std::string cut = t.substr(0, MMV_STRINGMAX - 1);
    if (cut.empty() || cut == kPubOtherThreads || !groups.insert(cut).second) continue;
    thread_names.push_back(std::move(cut));
  }
  thread_names.push_back(kPubOtherThreads);

  {
    std::lock_guard lock(publish_live_mutex);
    if (publish_live_paths.count(path)) {
      return fail("cannot publish " + path + " twice: its publisher in this process is live");
    }
    if (const pid_t pid = other_publisher(path)) {
      return fail("cannot publish " + path + ": hearth process " + std::to_string(pid) +
                  " publishes it (give this one another name)");
    }
    publish_live_paths.insert(path);
  }
  // A cluster of its own from the name (pmdammv takes a file's cluster as given, 1..4095), so
  // the PMIDs stay the same across restarts and do not depend on the other MMV files.
  const int cluster = 1024 + static_cast<int>(publish_hash(name) % 3072);
  const auto flags = static_cast<mmv_stats_flags_t>(MMV_FLAG_PROCESS);
  registry = mmv_stats_registry(name.c_str(), cluster, flags);
  HEARTH_CHECK(registry != nullptr);  // only out of memory
  // Every call below fails only on a broken argument of ours or out of memory.
  HEARTH_CHECK(mmv_stats_add_indom(registry, kPubRulesIndom, "hearth watch's rules",
                                   "one instance per rule, by name") == 0);
  HEARTH_CHECK(mmv_stats_add_indom(registry, kPubThreadsIndom, "the target's thread groups",
                                   "one instance per thread name; \"other\": the groups without "
                                   "an instance of their own") == 0);
  // mmv_stats_add_instance's result is not checked: PCP 6.0.3's reports -1 (EINVAL) after
  // adding the instance (its search for the domain runs on past the match); a domain that is
  // not there (a bug of ours) shows as a lookup that fails below.
  std::set<int32_t> taken;
  for (const std::string& r : rule_names) {
    mmv_stats_add_instance(registry, kPubRulesIndom, publish_instance_id(r, &taken), r.c_str());
  }
  taken.clear();
  for (const std::string& t : thread_names) {
    mmv_stats_add_instance(registry, kPubThreadsIndom, publish_instance_id(t, &taken), t.c_str());
  }
  for (const PubMetricSpec& m : kPubMetrics) {
    HEARTH_CHECK(mmv_stats_add_metric(registry, m.name, m.item, m.type, m.sem, m.units, m.indom,
                                      m.help, nullptr) == 0);
  }
  addr = mmv_stats_start(registry);
  if (addr == nullptr) {
    const int err = errno;
    close();
    std::string hint =
        err == EACCES || err == EPERM ? " (run as root, or as a member of PCP's group)"
        : err == ENOENT               ? " (is PCP installed? its MMV directory is $PCP_TMP_DIR/mmv)"
                                      : "";
    return fail("cannot create PCP's MMV file " + path + ": " + std::strerror(err) + hint, err);
  }

  touch_directory();
  touch_after = ::time(nullptr);

  rules.clear();
  for (const std::string& r : rule_names) {
    rules.push_back({lookup("watch.rule.value", &r), lookup("watch.rule.known", &r),
                     lookup("watch.rule.holds", &r), lookup("watch.rule.fired", &r)});
  }
  for (size_t i = 0; i < rule_names.size(); ++i) {
    const std::string text = rule_text_value(rule_list[i].text);
    mmv_set_string(addr, lookup("watch.rule.text", &rule_names[i]), text.c_str(),
                   static_cast<int>(text.size()));
  }
  threads.clear();
  thread_index.clear();
  for (const std::string& t : thread_names) {
    thread_index.emplace(t, threads.size());
    threads.push_back({lookup("watch.threads.running", &t), lookup("watch.threads.runnable", &t),
                       lookup("watch.threads.blocked", &t), lookup("watch.threads.count", &t)});
  }
  other = threads.size() - 1;
  up = lookup("watch.up", nullptr);
  triggers = lookup("watch.triggers", nullptr);
  written = lookup("watch.reports.written", nullptr);
  removed = lookup("watch.reports.removed", nullptr);
  cpu = lookup("watch.sampling.cpu", nullptr);
  stopped = lookup("watch.sampling.stopped_us", nullptr);
  ring_seconds = lookup("watch.ring.seconds", nullptr);
  ring_bytes = lookup("watch.ring.bytes", nullptr);
  ring_stacks = lookup("watch.ring.stacks", nullptr);
  ring_stacks_added = lookup("watch.ring.stacks_added", nullptr);
  ring_names = lookup("watch.ring.names", nullptr);
  ring_names_added = lookup("watch.ring.names_added", nullptr);
  memory_budget = lookup("watch.memory.budget", nullptr);
  ring_shortened = lookup("watch.ring.shortened", nullptr);
  ring_shortenings = lookup("watch.ring.shortenings", nullptr);
  set(up, 1);
  return {};
}

void MmvPublisher::Impl::close() {
  if (addr != nullptr) {
    set(up, 0);
    // Generation 0 is libpcp_mmv's "not ready": a reader that still maps the file (pmdammv
    // until its next request, hearth's own MMV reader) drops it at once, whether or not it
    // notices the directory change (pmdammv compares the directory's mtime in whole seconds, so
    // a restart within the second it last looked leaves only this). The header is PCP's
    // (mmv_dev.h).
    auto* hdr = static_cast<mmv_disk_header_t*>(addr);
    hdr->g1 = 0;
    hdr->g2 = 0;
  }
  if (registry != nullptr) {
    // Unmaps, and (the PROCESS flag) removes the file.
    mmv_stats_free(registry);
    registry = nullptr;
    std::lock_guard lock(publish_live_mutex);
    publish_live_paths.erase(path);
  }
  addr = nullptr;
  rules.clear();
  threads.clear();
  thread_index.clear();
}

MmvPublisher::MmvPublisher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MmvPublisher::MmvPublisher(MmvPublisher&&) noexcept = default;
MmvPublisher& MmvPublisher::operator=(MmvPublisher&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->close();
    impl_ = std::move(other.impl_);
  }
  return *this;
}
MmvPublisher::~MmvPublisher() {
  if (impl_) impl_->close();
}

Result<MmvPublisher> MmvPublisher::start(const std::string& name,
                                         const std::vector<PublishedRule>& rules,
                                         const std::vector<std::string>& thread_names) {
  if (!valid_mmv_file_name(name)) {
    return fail("bad MMV file name '" + name +
                "': a letter, then letters, digits or '_' (at most 64; PCP puts it into metric "
                "names)");
  }
  auto impl = std::make_unique<Impl>();
  impl->name = name;
  impl->path = std::string(pmGetConfig("PCP_TMP_DIR")) + "/mmv/" + name;
  RETURN_IF_ERROR(impl->open(rules, thread_names));
  return MmvPublisher(std::move(impl));
}

Result<void> MmvPublisher::restart(const std::vector<PublishedRule>& rules,
                                   const std::vector<std::string>& thread_names) {
  HEARTH_CHECK(impl_ != nullptr);
  Impl& p = *impl_;
  double carried[4] = {0, 0, 0, 0};
  std::unordered_map<std::string, double> fired;
  if (p.addr != nullptr) {
    pmAtomValue* counters[4] = {p.triggers, p.written, p.removed, p.stopped};
    for (int i = 0; i < 4; ++i) carried[i] = static_cast<double>(counters[i]->ull);
    for (size_t i = 0; i < p.rules.size(); ++i) {
      fired[p.rule_names[i]] = static_cast<double>(p.rules[i].fired->ull);
    }
  }
  p.close();  // first: the new file replaces it under the same name
  RETURN_IF_ERROR(p.open(rules, thread_names));
  pmAtomValue* counters[4] = {p.triggers, p.written, p.removed, p.stopped};
  for (int i = 0; i < 4; ++i) p.set(counters[i], carried[i]);
  for (size_t i = 0; i < p.rules.size(); ++i) {
    if (auto it = fired.find(p.rule_names[i]); it != fired.end())
      p.set(p.rules[i].fired, it->second);
  }
  return {};
}

void MmvPublisher::rule(size_t index, std::optional<double> value, bool holds) {
  if (!impl_ || impl_->addr == nullptr) return;
  impl_->touch_directory_later();
  HEARTH_CHECK(index < impl_->rules.size());
  const Impl::RuleValues& r = impl_->rules[index];
  impl_->set(r.value, value ? *value : 0);
  impl_->set(r.known, value ? 1 : 0);
  impl_->set(r.holds, holds ? 1 : 0);
}

void MmvPublisher::fired(size_t rule_index) {
  if (!impl_ || impl_->addr == nullptr) return;
  HEARTH_CHECK(rule_index < impl_->rules.size());
  mmv_inc_value(impl_->addr, impl_->rules[rule_index].fired, 1);
  mmv_inc_value(impl_->addr, impl_->triggers, 1);
}

void MmvPublisher::threads(const std::vector<GroupShares>& groups) {
  if (!impl_ || impl_->addr == nullptr) return;
  Impl& p = *impl_;
  const size_t count = p.threads.size();
  std::vector<double> threads_in(count, 0);
  p.n.assign(count, 0);
  p.running.assign(count, 0);
  p.runnable.assign(count, 0);
  p.blocked.assign(count, 0);
  for (const GroupShares& g : groups) {
    auto it = p.thread_index.find(g.name.substr(0, MMV_STRINGMAX - 1));
    const size_t i = it == p.thread_index.end() ? p.other : it->second;
    // Shares weigh by threads; a group given without a thread count weighs one.
    const double w = g.threads > 0 ? g.threads : 1;
    threads_in[i] += g.threads;
    p.n[i] += w;
    p.running[i] += g.running * w;
    p.runnable[i] += g.runnable * w;
    p.blocked[i] += g.blocked * w;
  }
  for (size_t i = 0; i < count; ++i) {
    const double n = p.n[i] > 0 ? p.n[i] : 1;
    p.set(p.threads[i].running, p.running[i] / n);
    p.set(p.threads[i].runnable, p.runnable[i] / n);
    p.set(p.threads[i].blocked, p.blocked[i] / n);
    p.set(p.threads[i].count, threads_in[i]);
  }
}

void MmvPublisher::watcher(double cpu_share, uint64_t stopped_us_total, double ring_seconds,
                           uint64_t ring_bytes) {
  if (!impl_ || impl_->addr == nullptr) return;
  impl_->touch_directory_later();
  impl_->set(impl_->cpu, cpu_share);
  // mmv_set_value takes a double: exact up to 2^53 (µs: 285 years; bytes: 8 PiB).
  impl_->set(impl_->stopped, static_cast<double>(stopped_us_total));
  impl_->set(impl_->ring_seconds, ring_seconds);
  impl_->set(impl_->ring_bytes, static_cast<double>(ring_bytes));
}

void MmvPublisher::ring(const RingFigures& f) {
  if (!impl_ || impl_->addr == nullptr) return;
  Impl& p = *impl_;
  p.set(p.ring_stacks, static_cast<double>(f.stacks));
  p.set(p.ring_stacks_added, static_cast<double>(f.stacks_added));
  p.set(p.ring_names, static_cast<double>(f.names));
  p.set(p.ring_names_added, static_cast<double>(f.names_added));
  p.set(p.memory_budget, static_cast<double>(f.memory_budget_bytes));
  p.set(p.ring_shortened, f.shortened ? 1 : 0);
  p.set(p.ring_shortenings, static_cast<double>(f.shortenings));
}

void MmvPublisher::report_written() {
  if (impl_ && impl_->addr != nullptr) mmv_inc_value(impl_->addr, impl_->written, 1);
}

void MmvPublisher::report_removed() {
  if (impl_ && impl_->addr != nullptr) mmv_inc_value(impl_->addr, impl_->removed, 1);
}

const std::string& MmvPublisher::path() const {
  static const std::string none;
  return impl_ ? impl_->path : none;
}

}  // namespace hearth::watch
