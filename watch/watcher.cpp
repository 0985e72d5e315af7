#include "watch/watcher.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "collectors/stacks/process_set.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/file_io.h"
#include "common/shutdown.h"
#include "recording/recording.h"
#include "render/report/report.h"
#include "watch/mmv_publish.h"
#include "watch/mmv_signals.h"
#include "watch/pcp_source.h"
#include "watch/proc_signals.h"
#include "watch/rule_state.h"
#include "watch/rules.h"
#include "watch/sched_ring.h"

namespace hearth::watch {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

constexpr int64_t kEvaluationNs = 1'000'000'000;  // rules are evaluated once a second
constexpr int kSilentEvaluations = 10;  // a rule without a value this long is said once
// The memory budget shortens the ring to no less than this (or --ring, if shorter), ns; and by a
// quarter of what it holds at a time, at most every kShortenEveryNs (RSS takes time to follow).
constexpr int64_t kLeastRingNs = 5'000'000'000;
constexpr int64_t kShortenEveryNs = 2'000'000'000;

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string iso_utc(uint64_t real_ns) {
  const time_t secs = static_cast<time_t>(real_ns / 1'000'000'000u);
  tm utc{};
  gmtime_r(&secs, &utc);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  char ms[8];
  std::snprintf(ms, sizeof ms, ".%03uZ", static_cast<unsigned>(real_ns / 1'000'000u % 1000u));
  return std::string(buf) + ms;
}

// CPU time this process has used (every thread), s.
double own_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// This process's resident memory, bytes (0 when /proc cannot be read).
uint64_t own_rss_bytes() {
  auto statm = read_file("/proc/self/statm");
  if (!statm) return 0;
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(statm->c_str(), "%llu %llu", &size, &resident) != 2) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::vector<PublishedRule> published(const std::vector<Rule>& rules) {
  std::vector<PublishedRule> out;
  for (const Rule& r : rules) out.push_back({r.name, to_text(r)});
  return out;
}

// The rules of every --rules file and --rule, parsed; errors one line each.
RuleSet load_rules(const WatchOptions& o) {
  RuleSet all;
  auto take = [&all](RuleSet one) {
    for (Rule& r : one.rules) all.rules.push_back(std::move(r));
    for (std::string& e : one.errors) all.errors.push_back(std::move(e));
  };
  for (const std::string& file : o.rule_files) {
    auto text = read_file(file);
    if (!text) {
      all.errors.push_back(file + ": " + text.error().message);
      continue;
    }
    take(parse_rules(*text, file, all.rules.size() + 1));
  }
  for (size_t i = 0; i < o.rule_texts.size(); ++i) {
    take(parse_rules(o.rule_texts[i], "--rule " + std::to_string(i + 1), all.rules.size() + 1));
  }
  return all;
}

// One rule being watched: its state over time, where its signal comes from, what was said.
struct Watched {
  RuleState state;
  std::optional<size_t> pcp_index;  // pcp: its metric's index in the PcpSource's fetch
  bool disabled = false;            // its signal cannot be read (said once)
  int silent = 0;                   // evaluations in a row without a value
  bool said_silent = false;
  bool said_refused = false;  // held but the budget refused: said once per episode
};

// Every signal source the rules need, and the rules themselves.
class Signals {
 public:
  Signals(const WatchOptions& o, const std::function<void(const std::string&)>& log)
      : o_(o), log_(log), mmv_(o.mmv) {}

  // Takes RULES in place of those watched (their states start again).
  void set_rules(const std::vector<Rule>& rules) {
    watched_.clear();
    pcp_.reset();
    pcp_tried_ = false;
    for (const Rule& r : rules) {
      Watched w{RuleState(r), std::nullopt, false, 0, false, false};
      if (r.kind == SignalKind::pcp) {
        if (!pcp_tried_) {
          pcp_tried_ = true;
          auto c = PcpSource::connect(o_.pcp_host);
          if (c) {
            pcp_.emplace(std::move(*c));
          } else {
            pcp_error_ = c.error().message;
          }
        }
        if (!pcp_) {
          say_left_out(r, pcp_error_);
          w.disabled = true;
        } else if (auto i = pcp_->add(r.metric, r.instance); !i) {
          say_left_out(r, i.error().message);
          w.disabled = true;
        } else {
          w.pcp_index = *i;
        }
      }
      watched_.push_back(std::move(w));
    }
  }

  // Reads every source at T_NS and feeds each rule; returns the first rule that holds now.
  // ALWAYS_PROC: read the processes' threads even without a cpu or sched: rule (their shares are
  // published).
  Watched* evaluate(stacks::ProcessSet& set, const std::vector<pid_t>& pids, int64_t t_ns,
                    bool always_proc) {
    // MMV: always (the reports' metrics from before their trigger come from these reads).
    bool want_proc = always_proc, want_mmv = true;
    for (const Watched& w : watched_) {
      const SignalKind k = w.state.rule().kind;
      want_proc |= k == SignalKind::cpu || k == SignalKind::sched;
      want_mmv |= k == SignalKind::mmv;
    }
    if (want_proc) proc_sample_ = proc_.read(pids, t_ns);
    if (want_mmv) {
      mmv_.read(pids, t_ns);
      for (const std::string& p : mmv_.take_problems()) log_("mmv: " + p);
    }
    std::vector<std::vector<double>> pcp_values;
    if (pcp_) {
      if (auto v = pcp_->fetch(t_ns)) {
        pcp_values = std::move(*v);
      } else if (!pcp_failing_) {
        pcp_failing_ = true;
        log_("pcp: " + v.error().message);
      }
      if (!pcp_values.empty()) pcp_failing_ = false;
    }
    Watched* first = nullptr;
    for (Watched& w : watched_) {
      if (w.disabled) continue;
      std::optional<double> v = value_of(w, set, pcp_values);
      if (!v) {
        if (++w.silent >= kSilentEvaluations && !w.said_silent) {
          w.said_silent = true;
          log_("rule " + w.state.rule().name + ": " + signal_text(w.state.rule()) +
               " has had no value for " + std::to_string(kSilentEvaluations) + " s (" +
               silence_reason(w.state.rule()) + "); still watching it");
        }
      } else {
        w.silent = 0;
      }
      if (w.state.observe(t_ns, v) && !first) first = &w;
      if (!w.state.holds()) w.said_refused = false;
    }
    return first;
  }

  std::vector<Watched>& watched() { return watched_; }
  MmvSignals& mmv() { return mmv_; }
  const std::vector<Watched>& watched() const { return watched_; }
  const std::optional<ProcSample>& proc_sample() const { return proc_sample_; }

 private:
  std::optional<double> value_of(const Watched& w, stacks::ProcessSet& set,
                                 const std::vector<std::vector<double>>& pcp_values) {
    const Rule& r = w.state.rule();
    switch (r.kind) {
      case SignalKind::cpu:
      case SignalKind::sched:
        if (!proc_sample_) return std::nullopt;
        return signal_value(r, *proc_sample_);
      case SignalKind::stack: {
        const stacks::Sampler::Matching m = set.last_round_matching(r.stack_text);
        if (m.samples == 0) return std::nullopt;
        return static_cast<double>(m.matching) / static_cast<double>(m.samples);
      }
      case SignalKind::mmv: {
        auto values = mmv_.values(r.metric, r.instance);
        if (!values) return std::nullopt;
        return value_of_instances(r, *values);
      }
      case SignalKind::pcp:
        if (!w.pcp_index || *w.pcp_index >= pcp_values.size()) return std::nullopt;
        return value_of_instances(r, pcp_values[*w.pcp_index]);
    }
    return std::nullopt;
  }

  std::string silence_reason(const Rule& r) const {
    switch (r.kind) {
      case SignalKind::sched:
        return r.thread_glob.empty() ? "no thread read yet"
                                     : "no thread named like '" + r.thread_glob + "'";
      case SignalKind::mmv:
        return mmv_.files() == 0 ? "no MMV file of the watched processes"
                                 : "no MMV file publishes " + r.metric;
      case SignalKind::pcp:
        return "pmcd gives no value";
      case SignalKind::stack:
        return "no stack sampled yet";
      case SignalKind::cpu:
        return "no process read yet";
    }
    return "";
  }

  void say_left_out(const Rule& r, const std::string& why) {
    log_("rule " + r.name + " (" + r.where + "): " + why + "; left out, the other rules go on");
  }

  const WatchOptions& o_;
  std::function<void(const std::string&)> log_;
  std::vector<Watched> watched_;
  std::optional<PcpSource> pcp_;
  bool pcp_tried_ = false, pcp_failing_ = false;
  std::string pcp_error_;
  MmvSignals mmv_;
  ProcSignals proc_;
  std::optional<ProcSample> proc_sample_;
};

// A report being recorded: the scheduler and MMV collectors on their thread (recording::record,
// AFTER seconds), while the watcher's own sampler goes on at full rate.
struct Capture {
  std::string dir, name;
  json trigger;
  uint64_t trigger_sample_ns = 0;  // the samples' time at the trigger
  uint64_t first_sample_ns = 0;    // the ring's oldest sample then
  int64_t trigger_ns = 0;          // CLOCK_MONOTONIC: the evaluation that fired
  int64_t first_full_ns = 0;       // CLOCK_MONOTONIC: the first full-rate sample's end
  bool shortened = false;          // the memory budget had shortened the ring then
  std::thread thread;
  std::atomic<bool> done{false};
  recording::Recording rec;
  json sched_before;  // report.json's sched_before_trigger (set on the recorder's thread)
};

class Watcher {
 public:
  explicit Watcher(const WatchOptions& o)
      : o_(o), log_(o.log ? o.log : [](const std::string&) {}), signals_(o, log_),
        gate_(o.budget) {}

  int run();

 private:
  Result<void> open_set();
  std::vector<pid_t> watched_pids() const;
  void reload();
  void start_capture(Watched& w, int64_t t_ns);
  void finish_capture();
  std::string status_line() const;

  const WatchOptions& o_;
  std::function<void(const std::string&)> log_;
  Signals signals_;
  TriggerGate gate_;
  void publish_start(const std::vector<Rule>& rules);
  void publish_evaluation(int64_t now);
  void publish_threads(int64_t now);
  void keep_within_memory(int64_t now);
  // Forgets what is older than the ring's span now (samples and MMV reads).
  void forget_old();

  std::optional<stacks::ProcessSet> set_;
  std::unique_ptr<Capture> capture_;
  uint64_t reports_ = 0;
  std::optional<MmvPublisher> publisher_;
  double cpu_at_ = 0;           // own_cpu_s() at the last evaluation
  int64_t cpu_at_ns_ = 0;       // and when
  std::set<std::string> published_threads_;  // thread names with an instance of their own
  int64_t threads_restarted_ns_ = 0;         // the last restart for new thread names
  SchedRing sched_ring_;  // the scheduler's view before a trigger (unless --no-sched)
  // The ring's span now, ns: --ring, or less while the memory budget shortens it.
  int64_t span_ns_ = 0;
  bool shortened_ = false;       // an episode over the memory budget is going on
  bool said_least_ = false;      // and the ring is at its least (said once per episode)
  uint64_t shortenings_ = 0;     // episodes so far
  int64_t shortened_at_ns_ = 0;  // the last shortening
};

void Watcher::forget_old() {
  // The ring holds its span at least: one sample period more, so that a trigger between two
  // samples still has the whole span before it.
  const uint64_t keep = static_cast<uint64_t>(span_ns_ + static_cast<int64_t>(1e9 / o_.rate_hz));
  const uint64_t t = set_->now_ns();
  set_->forget_before(t > keep ? t - keep : 0);
  const uint64_t real = realtime_ns();
  const uint64_t keep_mmv = static_cast<uint64_t>(span_ns_ + kEvaluationNs);
  signals_.mmv().forget_before(real > keep_mmv ? real - keep_mmv : 0);
  sched_ring_.forget_before(static_cast<int64_t>(monotonic_ns()) - span_ns_ - kEvaluationNs);
}

void Watcher::keep_within_memory(int64_t now) {
  const uint64_t budget = o_.memory_budget_bytes;
  if (budget == 0 || capture_) return;
  const uint64_t rss = own_rss_bytes();
  const int64_t full = static_cast<int64_t>(o_.ring_s * 1e9);
  const int64_t least = std::min(full, kLeastRingNs);
  auto mb = [](uint64_t bytes) { return number_text(static_cast<double>(bytes) / (1 << 20)); };
  if (rss > budget) {
    if (span_ns_ <= least) {
      if (!said_least_) {
        said_least_ = true;
        log_("memory: RSS " + mb(rss) + " MB is still over the budget with the ring at its " +
             "least (" + number_text(static_cast<double>(span_ns_) / 1e9) +
             " s): the rest is not the ring's (symbol tables, libraries)");
      }
      return;
    }
    if (shortened_ && now - shortened_at_ns_ < kShortenEveryNs) return;
    const uint64_t t = set_->now_ns();
    const int64_t held = static_cast<int64_t>(t - std::min(t, set_->oldest_round_ns()));
    span_ns_ = std::max(least, std::min(span_ns_, held) * 3 / 4);
    shortened_at_ns_ = now;
    forget_old();
    ::malloc_trim(0);  // what the forgotten rounds held, back to the system
    if (!shortened_) {
      shortened_ = true;
      ++shortenings_;
      log_("memory: RSS " + mb(rss) + " MB is over the budget of " + mb(budget) +
           " MB (--memory-budget): the ring is shortened, oldest samples first, to " +
           number_text(static_cast<double>(span_ns_) / 1e9) + " s (of --ring " +
           number_text(o_.ring_s) + ")");
    }
  } else if (shortened_ && rss < budget / 10 * 9) {
    shortened_ = said_least_ = false;
    span_ns_ = full;
    log_("memory: RSS " + mb(rss) + " MB, back under the budget: the ring grows back to " +
         number_text(o_.ring_s) + " s");
  }
}

void Watcher::publish_start(const std::vector<Rule>& rules) {
  if (o_.publish.empty()) return;
  if (publisher_) {
    const std::vector<std::string> names(published_threads_.begin(), published_threads_.end());
    if (auto r = publisher_->restart(published(rules), names); !r) {
      log_("PCP: the figures are no longer published: " + r.error().message);
      publisher_.reset();
    }
    return;
  }
  auto p = MmvPublisher::start(o_.publish, published(rules), {});
  if (!p) {
    log_("PCP: the figures are not published: " + p.error().message);
    return;
  }
  publisher_.emplace(std::move(*p));
  // Its figures (each rule's value, the threads' shares) go into the reports' metrics too.
  signals_.mmv().also_read(publisher_->path());
}

void Watcher::publish_evaluation(int64_t now) {
  if (!publisher_) return;
  const auto stopped_us = static_cast<uint64_t>(set_->stall_us_total());  // the sampler's stops
  const std::vector<Watched>& watched = signals_.watched();
  for (size_t i = 0; i < watched.size(); ++i)
    publisher_->rule(i, watched[i].state.shown(), watched[i].state.holds());
  const double cpu = own_cpu_s();
  const double share = cpu_at_ns_ > 0 && now > cpu_at_ns_
                           ? (cpu - cpu_at_) / (static_cast<double>(now - cpu_at_ns_) / 1e9)
                           : 0;
  cpu_at_ = cpu;
  cpu_at_ns_ = now;
  const double ring_s =
      static_cast<double>(set_->now_ns() - std::min(set_->now_ns(), set_->oldest_round_ns())) / 1e9;
  publisher_->watcher(share, stopped_us, ring_s, own_rss_bytes());
  const stacks::SamplerTables t = set_->tables();
  publisher_->ring({.stacks = t.stacks,
                    .stacks_added = t.stacks_added,
                    .names = t.names,
                    .names_added = t.names_added,
                    .memory_budget_bytes = o_.memory_budget_bytes,
                    .shortened = shortened_,
                    .shortenings = shortenings_});
  publish_threads(now);
}

void Watcher::publish_threads(int64_t now) {
  const std::optional<ProcSample>& sample = signals_.proc_sample();
  if (!sample || sample->first) return;
  // Per thread name: the threads' shares weighted by the span each covers.
  struct Sum {
    uint32_t threads = 0;
    double span = 0, running = 0, runnable = 0, blocked = 0;
  };
  std::map<std::string, Sum> by_name;
  for (const ThreadShares& t : sample->threads) {
    Sum& g = by_name[t.name];
    ++g.threads;
    g.span += t.span_s;
    g.running += t.running * t.span_s;
    g.runnable += t.runnable * t.span_s;
    g.blocked += t.blocked * t.span_s;
  }
  // A name not published yet: the file again with it (at most every 10 s; past the publisher's
  // own limit the rest go to "other").
  bool fresh = false;
  for (const auto& [name, g] : by_name) {
    if (!published_threads_.contains(name) &&
        published_threads_.size() < MmvPublisher::kMaxThreadGroups) {
      fresh = true;
    }
  }
  if (fresh && now - threads_restarted_ns_ >= 10'000'000'000LL) {
    threads_restarted_ns_ = now;
    for (const auto& [name, g] : by_name) {
      if (published_threads_.size() < MmvPublisher::kMaxThreadGroups) published_threads_.insert(name);
    }
    std::vector<Rule> rules;
    for (const Watched& w : signals_.watched()) rules.push_back(w.state.rule());
    const std::vector<std::string> names(published_threads_.begin(), published_threads_.end());
    if (auto r = publisher_->restart(published(rules), names); !r) {
      log_("PCP: the figures are no longer published: " + r.error().message);
      publisher_.reset();
      return;
    }
  }
  std::vector<GroupShares> groups;
  for (const auto& [name, g] : by_name) {
    const double span = g.span > 0 ? g.span : 1;
    groups.push_back({name, g.threads, g.running / span, g.runnable / span, g.blocked / span});
  }
  publisher_->threads(groups);
}

Result<void> Watcher::open_set() {
  stacks::ProcessSetOptions po;
  po.selection = o_.selection;
  po.sampler.method = o_.method;
  po.sampler.one_at_a_time = true;  // ptrace: repeated sampling stops one thread at a time
  po.sampler.symbol_cache = o_.symbol_cache;
  auto set = stacks::ProcessSet::open(po);
  if (!set) return std::unexpected(set.error());
  set_.emplace(std::move(*set));
  return {};
}

// The sampler's live processes: the selection as its last round found it (no /proc scan of
// ours each second: a --comm selection on a host of many processes would pay for it).
std::vector<pid_t> Watcher::watched_pids() const {
  return set_->live_pids();
}

void Watcher::reload() {
  RuleSet rules = load_rules(o_);
  if (!rules.errors.empty() || rules.rules.empty()) {
    for (const std::string& e : rules.errors) log_(e);
    log_("rules not reloaded: " +
         std::string(rules.rules.empty() && rules.errors.empty() ? "no rule given"
                                                                 : "the errors above") +
         "; the " + std::to_string(signals_.watched().size()) + " rules in force go on");
    return;
  }
  signals_.set_rules(rules.rules);
  publish_start(rules.rules);
  log_("rules reloaded: " + std::to_string(rules.rules.size()) + " rules");
}

void Watcher::start_capture(Watched& w, int64_t t_ns) {
  const Rule& rule = w.state.rule();
  const uint64_t real = realtime_ns();
  auto c = std::make_unique<Capture>();
  c->name = report_dir_name(static_cast<int64_t>(real), rule.name);
  c->dir = (fs::path(o_.output) / c->name).string();
  std::error_code ec;
  if (fs::exists(c->dir, ec)) {  // two triggers in one second (no cooldown): a suffix
    int n = 2;
    while (fs::exists(c->dir + "-" + std::to_string(n), ec)) ++n;
    c->name += "-" + std::to_string(n);
    c->dir += "-" + std::to_string(n);
  }
  if (!fs::create_directory(c->dir, ec)) {
    log_("rule " + rule.name + " fired, but " + c->dir + " cannot be created: " +
         (ec ? ec.message() : "it exists"));
    gate_.fired(t_ns);
    return;
  }
  gate_.fired(t_ns);
  if (publisher_) publisher_->fired(static_cast<size_t>(&w - signals_.watched().data()));
  c->trigger_sample_ns = set_->now_ns();
  const double value = w.state.shown().value_or(0);
  c->trigger = {{"rule", rule.name},
                {"text", to_text(rule)},
                {"signal", signal_text(rule)},
                {"value", value},
                {"at", iso_utc(real)},
                {"at_s", static_cast<double>(c->trigger_sample_ns) / 1e9}};
  log_("rule " + rule.name + " fired (" + signal_text(rule) + " was " + number_text(value) +
       "): recording " + number_text(o_.after_s) + " s into " + c->dir);
  recording::Options ro;
  ro.selection = o_.selection;
  ro.duration = o_.after_s;
  ro.output = c->dir;
  ro.frequency = o_.record_hz;
  ro.method = o_.method;
  ro.no_mmv = true;  // the watcher's own reads, from before the trigger on (finish_capture)
  ro.no_sched = o_.no_sched;
  ro.stacks_by_caller = true;
  ro.alloc = o_.alloc;
  ro.alloc_mean = o_.alloc_mean;
  ro.alloc_live_max = o_.alloc_live_max;
  ro.command_line = o_.command_line;
  ro.note = [this](const std::string& line) { log_(line); };
  Capture* raw = c.get();
  if (!o_.no_sched) {  // the ring's span before the tracer's window: untraced slots
    const uint64_t from =
        static_cast<uint64_t>(std::max<int64_t>(0, t_ns - static_cast<int64_t>(o_.ring_s * 1e9)));
    ro.sched_before = [this, raw, from](uint64_t start_ns, uint64_t slot_ns) {
      sched_intervals::UntracedSlots u = sched_ring_.untraced_slots(from, start_ns, slot_ns);
      raw->sched_before = before_trigger_json(u);
      return u;
    };
  }
  c->thread = std::thread([raw, ro] {
    raw->rec = recording::record(ro);
    raw->done = true;
  });
  capture_ = std::move(c);
}

void Watcher::finish_capture() {
  Capture& c = *capture_;
  c.thread.join();
  recording::Recording& rec = c.rec;
  if (auto r = recording::write_stacks(*set_, c.dir, false); !r) {
    rec.stacks.failed(r.error().message);
  } else {
    recording::stacks_figures(*set_, o_.record_hz, &rec.stacks);
    // The report's samples are those held (the ring and the window after); the other counts
    // (stacks, copied, unchanged, stopped) are the watcher's since it started.
    rec.stacks.figures["samples"] = set_->rounds_held();
    rec.stacks.figures["counts_since_s"] = std::round(static_cast<double>(set_->now_ns()) / 1e6) / 1e3;
    rec.stacks.figures["watch_frequency_hz"] = o_.rate_hz;
    rec.stacks.figures["before_trigger_s"] =
        std::round(static_cast<double>(c.trigger_sample_ns - c.first_sample_ns) / 1e6) / 1e3;
  }
  rec.meta["collectors"]["stacks"] = rec.stacks.figures;
  // The MMV metrics: the watcher's reads, the ring's and those since the trigger.
  MmvSignals& mmv = signals_.mmv();
  rec.mmv = recording::Outcome();  // record() was told not to read them
  if (mmv.rows() == 0) {
    rec.mmv.skipped(o_.mmv.empty() ? "no MMV file of the watched processes" : "no MMV file read");
  } else if (auto r = write_file_atomically((fs::path(c.dir) / report::kMmvSeries).string(),
                                            mmv.series_tsv(kEvaluationNs));
             !r) {
    rec.mmv.failed(r.error().message);
  } else {
    rec.mmv.ok();
    rec.mmv.figures["rows"] = mmv.rows();
    rec.mmv.figures["interval_s"] = 1;
  }
  rec.meta["collectors"]["mmv"] = rec.mmv.figures;
  rec.meta["trigger"] = c.trigger;
  if (!c.sched_before.is_null()) rec.meta["sched_before_trigger"] = c.sched_before;
  rec.meta["watch"] = {
      {"ring_s", o_.ring_s},
      // the span the ring held at the trigger (less while the memory budget
      // shortened it: ring_shortened)
      {"ring_held_s",
       std::round(static_cast<double>(c.trigger_sample_ns - c.first_sample_ns) / 1e6) / 1e3},
      {"ring_shortened", c.shortened},
      {"memory_budget_mb", static_cast<double>(o_.memory_budget_bytes) / (1 << 20)},
      {"rate_hz", o_.rate_hz},
      {"record_hz", o_.record_hz},
      {"after_s", o_.after_s}};
  if (c.first_full_ns > 0) {  // from the evaluation that fired to the first full-rate sample
    rec.meta["watch"]["trigger_to_first_sample_ms"] =
        std::round(static_cast<double>(c.first_full_ns - c.trigger_ns) / 1e3) / 1e3;
  }
  const std::string json_path = (fs::path(c.dir) / report::kReportJson).string();
  if (auto r = write_file_atomically(json_path, rec.meta.dump(2) + "\n"); !r) {
    log_(r.error().message);
  } else {
    report::RenderOptions ro;
    ro.dir = c.dir;
    auto rendered = report::render_report(ro);
    if (!rendered) {
      log_(rendered.error().message);
    } else {
      for (const std::string& p : rendered->problems) log_(p);
      ++reports_;
      if (publisher_) publisher_->report_written();
      log_("wrote " + report::index_path(c.dir) + " (" + std::to_string(rendered->pictures.size()) +
           " pictures)");
      if (o_.report_written) o_.report_written(c.dir);
    }
  }
  // The report named its stacks in full (DWARF: inlined functions, tail calls); watching needs
  // none of that until the next report: let it go (tens of MB).
  set_->release_symbols();
  for (const std::string& gone : enforce_disk_budget(o_.output, o_.budget.disk_bytes, c.name)) {
    log_("removed the report " + gone + " (over the disk budget)");
    if (publisher_) publisher_->report_removed();
  }
  capture_.reset();
}

std::string Watcher::status_line() const {
  size_t holding = 0;
  for (const Watched& w : signals_.watched()) holding += w.state.holds();
  std::string line = std::to_string(signals_.watched().size()) + " rules (" +
                     std::to_string(holding) + " holding), " +
                     std::to_string(set_ ? set_->rounds() : 0) + " samples, " +
                     std::to_string(reports_) + " reports";
  if (capture_) line += "; recording " + capture_->name;
  return line;
}

int Watcher::run() {
  RuleSet rules = load_rules(o_);
  for (const std::string& e : rules.errors) log_(e);
  if (rules.rules.empty()) {
    log_(rules.errors.empty() ? "no rule given (--rule EXPR or --rules FILE)"
                              : "no valid rule: nothing to watch for");
    return 2;
  }
  signals_.set_rules(rules.rules);
  publish_start(rules.rules);
  // A --comm selection may match nothing yet: the watcher waits for its process.
  bool said_waiting = false;
  while (!set_) {
    auto opened = open_set();
    if (opened) break;
    if (!o_.selection.comm || opened.error().errnum != ESRCH) {
      const bool no_bpf = o_.method == stacks::CaptureMethod::kBpf && opened.error().errnum != ESRCH;
      log_(opened.error().message +
           (no_bpf ? " (--method ptrace would stop every thread at every sample: say it to use it)"
                   : ""));
      return 1;
    }
    if (!said_waiting) log_(opened.error().message + "; waiting for one to start");
    said_waiting = true;
    for (int i = 0; i < 20 && !shutdown_requested(); ++i) sleep_ns(100'000'000);
    if (shutdown_requested()) return 0;
  }
  log_("watching " + std::to_string(set_->processes()) + " process" +
       (set_->processes() == 1 ? "" : "es") + " (" + set_->method() + "), " +
       std::to_string(signals_.watched().size()) + " rules; reports into " + o_.output);

  span_ns_ = static_cast<int64_t>(o_.ring_s * 1e9);
  auto period_ns = [this] {
    return static_cast<int64_t>(1e9 / (capture_ ? o_.record_hz : o_.rate_hz));
  };
  int64_t next_sample = static_cast<int64_t>(monotonic_ns());
  int64_t next_eval = next_sample;
  int status = 0;
  while (true) {
    if (reload_requested()) reload();
    const bool stopping = shutdown_requested();
    if (capture_ && capture_->done) finish_capture();
    if (stopping && !capture_) break;
    if (!capture_ && gate_.done()) break;
    int64_t now = static_cast<int64_t>(monotonic_ns());
    if (now >= next_sample) {
      if (auto r = set_->sample(); !r) {
        log_(r.error().message + "; nothing left to watch");
        if (capture_) {
          capture_->thread.join();
          capture_->done = true;
          finish_capture();
        }
        break;
      }
      for (const std::string& n : set_->notices()) log_(n);  // processes joining, exiting
      next_sample = std::max(next_sample + period_ns(), now);
      if (capture_ && capture_->first_full_ns == 0) {
        capture_->first_full_ns = static_cast<int64_t>(monotonic_ns());
      }
      if (!capture_) forget_old();
    }
    now = static_cast<int64_t>(monotonic_ns());
    if (now >= next_eval) {
      next_eval = std::max(next_eval + kEvaluationNs, now);
      keep_within_memory(now);
      Watched* holding =
          signals_.evaluate(*set_, watched_pids(), now, publisher_.has_value() || !o_.no_sched);
      if (!o_.no_sched && signals_.proc_sample()) sched_ring_.add(*signals_.proc_sample());
      if (holding && !capture_ && !stopping) {
        if (auto why = gate_.refused(now)) {
          if (!holding->said_refused) {
            holding->said_refused = true;
            log_("rule " + holding->state.rule().name + " holds, no report: " + *why);
          }
        } else {
          start_capture(*holding, now);
          // The ring's oldest sample: what the report holds from before the trigger. The first
          // full-rate sample is taken at once.
          if (capture_) {
            capture_->first_sample_ns = set_->oldest_round_ns();
            capture_->shortened = shortened_;
            capture_->trigger_ns = now;
            next_sample = now;
          }
        }
      }
      publish_evaluation(now);
      if (o_.status) o_.status(status_line());
      if (o_.tick) o_.tick();
    }
    const int64_t wake = std::min(next_sample, next_eval);
    now = static_cast<int64_t>(monotonic_ns());
    if (wake > now) {
      // A signal ends the nap at once (idle_for); a report's thread ending waits for it.
      const auto nap = std::chrono::microseconds(std::min<int64_t>((wake - now) / 1000, 200'000));
      if (auto r = set_->idle_for(nap); !r) {
        log_(r.error().message);
        status = 1;
        break;
      }
    }
  }
  if (capture_) {  // ended by an error while recording: the report is still written
    capture_->thread.join();
    capture_->done = true;
    finish_capture();
  }
  (void)set_->detach();
  log_("stopped after " + std::to_string(reports_) + " report" + (reports_ == 1 ? "" : "s"));
  return status;
}

}  // namespace

int watch(const WatchOptions& options) {
  Watcher w(options);
  return w.run();
}

}  // namespace hearth::watch
