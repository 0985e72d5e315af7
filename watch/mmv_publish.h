// `hearth watch`'s live figures as an MMV file (man 5 mmv), written with PCP's own libpcp_mmv,
// so the host's pmcd + pmdammv serve them (then pmlogger, pmproxy, pmie, grafana-pcp) with no
// daemon of ours. The metrics, as pminfo names them (NAME: the file's name, e.g. "hearth"):
//   mmv.NAME.watch.rule.{value,known,holds,fired,text}     per rule (instances: rule names)
//   mmv.NAME.watch.threads.{running,runnable,blocked,count} per thread group (thread names)
//   mmv.NAME.watch.{up,triggers,reports,reports.removed}
//   mmv.NAME.watch.sampling.{cpu,stopped_us}, mmv.NAME.watch.ring.{seconds,bytes}
//   mmv.NAME.watch.ring.{stacks,stacks_added,names,names_added,shortened,shortenings}
//   mmv.NAME.watch.memory.budget
// README "hearth watch: metrics published to PCP" documents each one.
//
// The file is $PCP_TMP_DIR/mmv/NAME (PCP_TMP_DIR as libpcp reads it: the environment, else
// /etc/pcp.conf), with PCP's PROCESS flag: pmdammv serves it only while this process lives. The
// layout is fixed at start: new rules or thread names need a new file (restart()); each new file
// is announced to pmdammv by touching the directory once it is whole, and again in a later second
// (pmdammv looks for files only when the directory changes, and drops one it finds half-made).
// The destructor removes it.
// Two things PCP 6.0.3's pmdammv does not serve, so they are not used: the SENTINEL flag's
// "no value" for a double (it shows NaN; a rule without a value has rule.known 0 instead), and
// instance labels (libpcp_mmv writes them, pmdammv looks them up by another identity; the rule's
// text is the string metric rule.text instead).
// Not thread-safe: one thread (the watcher's) calls everything.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace hearth::watch {

struct PublishedRule {
  std::string name;  // the instance's name (1-255 bytes, unique among the rules)
  std::string text;  // the rule as written: rule.text (cut to 254 bytes)
};

// One thread group's last second, by the group's thread name.
struct GroupShares {
  std::string name;
  uint32_t threads = 0;  // threads in the group now
  // Shares of the group's thread time over the last second, each 0..1 (running + runnable +
  // blocked <= 1; the rest is sleeping).
  double running = 0;
  double runnable = 0;
  double blocked = 0;
};

// The ring's tables and its memory budget (MmvPublisher::ring).
struct RingFigures {
  uint64_t stacks = 0, stacks_added = 0;  // stacks::SamplerTables
  uint64_t names = 0, names_added = 0;
  uint64_t memory_budget_bytes = 0;
  bool shortened = false;    // the budget keeps the ring shorter than asked, now
  uint64_t shortenings = 0;  // episodes of that so far
};

class MmvPublisher {
 public:
  // At most this many thread groups get an instance of their own; the rest share "other".
  static constexpr size_t kMaxThreadGroups = 256;

  // Creates the file NAME ([A-Za-z][A-Za-z0-9_]*, at most 64 bytes: pmdammv puts it into
  // metric names) with an instance per rule and per thread name (the first kMaxThreadGroups
  // distinct ones, in the order given; "other" for the rest when there are more). up = 1.
  // Errors, one line: a bad name or rule, the file taken by another live process, or the file
  // not creatable ("cannot create PCP's MMV file PATH: Permission denied (...)"). Another
  // publisher of the same NAME must not be live in this process (destroy it first, or use
  // restart()).
  static Result<MmvPublisher> start(const std::string& name,
                                    const std::vector<PublishedRule>& rules,
                                    const std::vector<std::string>& thread_names);

  MmvPublisher(MmvPublisher&&) noexcept;
  MmvPublisher& operator=(MmvPublisher&&) noexcept;
  MmvPublisher(const MmvPublisher&) = delete;
  MmvPublisher& operator=(const MmvPublisher&) = delete;
  // up = 0, then the file is removed (pmdammv drops its metrics at its next request).
  ~MmvPublisher();

  // The same file again with other rules or thread names (SIGHUP, threads come and go): the
  // counters carry over (triggers, reports, a rule's `fired` for a rule of the same name), the
  // other figures start unset. On error nothing is published any more (every setter is a no-op)
  // until a restart() succeeds.
  Result<void> restart(const std::vector<PublishedRule>& rules,
                       const std::vector<std::string>& thread_names);

  // Rule INDEX (in start's order) at its last evaluation: the value it compared (nullopt: none
  // yet: rule.value 0 and rule.known 0) and whether its condition held.
  void rule(size_t index, std::optional<double> value, bool holds);
  // Rule INDEX triggered a report: its `fired` and `triggers` count one more.
  void fired(size_t rule_index);
  // The whole last second: every group present now. A group published but absent here gets 0;
  // a name without an instance of its own counts into "other" (threads summed, shares weighted
  // by threads).
  void threads(const std::vector<GroupShares>& groups);
  // The watcher itself: its CPU (a share of one core over the last second), how long hearth has
  // kept the target's threads stopped since it started (µs, a total), and the ring's span (s)
  // and size (bytes).
  void watcher(double cpu_share, uint64_t stopped_us_total, double ring_seconds,
               uint64_t ring_bytes);
  void ring(const RingFigures& figures);
  void report_written();
  void report_removed();  // a report removed by the disk budget

  const std::string& path() const;  // the file's full path

 private:
  struct Impl;
  explicit MmvPublisher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::watch
