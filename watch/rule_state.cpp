#include "watch/rule_state.h"

#include <algorithm>
#include <cmath>

namespace hearth::watch {

std::optional<double> value_of_instances(const Rule& rule, const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  const bool above = rule.compare == Compare::greater || rule.compare == Compare::greater_equal;
  return above ? *std::max_element(values.begin(), values.end())
               : *std::min_element(values.begin(), values.end());
}

bool RuleState::compares(double v) const {
  switch (rule_.compare) {
    case Compare::greater:
      return v > rule_.threshold;
    case Compare::greater_equal:
      return v >= rule_.threshold;
    case Compare::less:
      return v < rule_.threshold;
    case Compare::less_equal:
      return v <= rule_.threshold;
  }
  return false;
}

bool RuleState::observe(int64_t t_ns, std::optional<double> value) {
  if (value && !std::isfinite(*value)) value.reset();
  const auto window_ns = static_cast<int64_t>(std::llround(rule_.window_s * 1e9));
  switch (rule_.window) {
    case Window::now:
      shown_ = value;
      holds_ = value && compares(*value);
      break;
    case Window::held_for:
      shown_ = value;
      if (!value || !compares(*value)) {
        true_since_ns_.reset();
      } else if (!true_since_ns_) {
        true_since_ns_ = t_ns;
      }
      holds_ = true_since_ns_ && t_ns - *true_since_ns_ >= window_ns;
      break;
    case Window::mean_over:
      if (value) {
        if (!first_ns_) first_ns_ = t_ns;
        window_.emplace_back(t_ns, *value);
        window_sum_ += *value;
      }
      // Values older than D leave. The running sum is summed afresh every 4,096 leavings, so
      // rounding never accumulates over a week of watching.
      while (!window_.empty() && window_.front().first <= t_ns - window_ns) {
        window_sum_ -= window_.front().second;
        window_.pop_front();
        if (++left_since_sum_ >= 4096) {
          left_since_sum_ = 0;
          window_sum_ = 0;
          for (const auto& [t, v] : window_) window_sum_ += v;
        }
      }
      if (window_.empty()) {
        window_sum_ = 0;
        shown_.reset();
        holds_ = false;
        break;
      }
      shown_ = window_sum_ / static_cast<double>(window_.size());
      holds_ = *first_ns_ <= t_ns - window_ns && compares(*shown_);
      break;
  }
  return holds_;
}

}  // namespace hearth::watch
