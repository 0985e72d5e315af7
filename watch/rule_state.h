// One rule over time: fed the rule's signal at each of the watcher's evaluations, says whether
// the rule holds. Pure (times are given, never read), so its tests need no clock.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "watch/rules.h"

namespace hearth::watch {

// The one value a rule compares among a metric's instances (a `pcp:`/`mmv:` metric with
// instances and none named): the largest for > and >=, the smallest for < and <=, so the rule
// holds when any instance's value does. Nothing for no values.
std::optional<double> value_of_instances(const Rule& rule, const std::vector<double>& values);

class RuleState {
 public:
  explicit RuleState(const Rule& rule) : rule_(rule) {}

  // The signal's VALUE at T_NS (times never go back), in the rule's measure: a share as a
  // fraction, a duration in seconds, a metric as published; nullopt when the signal has no
  // value then (a metric not published, no thread matching). Returns whether the rule holds:
  //   - no window: VALUE compares true;
  //   - `for D`: it has compared true at every evaluation since at least D ago (a missing
  //     value breaks the run);
  //   - `over D`: the mean of the values of the last D compares true, once D has been watched
  //     (the first value at least D ago).
  bool observe(int64_t t_ns, std::optional<double> value);

  // What the rule compared at the last evaluation (the value, or the window's mean); nullopt
  // before the first value.
  std::optional<double> shown() const { return shown_; }
  bool holds() const { return holds_; }
  const Rule& rule() const { return rule_; }

 private:
  bool compares(double v) const;

  Rule rule_;
  bool holds_ = false;
  std::optional<double> shown_;
  std::optional<int64_t> true_since_ns_;           // held_for: the start of the current run
  std::optional<int64_t> first_ns_;                // mean_over: the first evaluation with a value
  std::deque<std::pair<int64_t, double>> window_;  // mean_over: the last D's values
  double window_sum_ = 0;
  uint32_t left_since_sum_ = 0;
};

}  // namespace hearth::watch
