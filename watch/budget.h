// What `hearth watch` may write: when a rule that holds may start a report (a cooldown after
// each report, at most so many in any hour, at most so many in all) and how much disk its
// reports may take (the oldest removed first). Pure but for enforce_disk_budget, which only ever
// removes report directories the watcher itself wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace hearth::watch {

struct Budget {
  double cooldown_s = 300;           // after a report's trigger, no other for this long
  size_t per_hour = 6;               // triggers in any 60 minutes
  size_t total = 0;                  // reports in all, then the watcher ends (0: no limit)
  uint64_t disk_bytes = 1ull << 30;  // every report of the output directory together
};

class TriggerGate {
 public:
  explicit TriggerGate(const Budget& budget) : budget_(budget) {}
  // Why a trigger at T_NS may not start a report ("cooling down for 212 s more after the last
  // report", "6 reports in the last hour, the most --per-hour allows"), or nothing: it may.
  std::optional<std::string> refused(int64_t t_ns) const;
  void fired(int64_t t_ns);
  size_t fired_count() const { return fired_; }
  // The total is reached: the watcher ends.
  bool done() const { return budget_.total > 0 && fired_ >= budget_.total; }
  void set_budget(const Budget& budget) { budget_ = budget; }

 private:
  Budget budget_;
  std::deque<int64_t> last_hour_;  // trigger times within the last hour, oldest first
  std::optional<int64_t> last_;
  size_t fired_ = 0;
};

// The name of a report directory for a trigger at REAL_NS (CLOCK_REALTIME) by RULE:
// "20261128T093012Z-slow_disk" (UTC to the second: names sort by time; the rule's name with
// anything but [A-Za-z0-9_.-] as '_').
std::string report_dir_name(int64_t real_ns, const std::string& rule);
// Whether NAME is one report_dir_name() makes.
bool is_report_dir_name(const std::string& name);

// Removes the oldest report directories of DIR (named as report_dir_name() makes, holding a
// report.json) until their total size is at most BYTES, never KEEP (the report just written,
// a name). Returns the names removed, oldest first. Other files and directories are left alone
// and not counted.
std::vector<std::string> enforce_disk_budget(const std::string& dir, uint64_t bytes,
                                             const std::string& keep);

}  // namespace hearth::watch
