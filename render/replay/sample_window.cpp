#include "render/replay/sample_window.h"

#include <algorithm>

#include "common/check.h"

namespace hearth::replay {
namespace {

bool before(const ThreadNow& a, int64_t pid, int64_t tid) {
  return a.pid != pid ? a.pid < pid : a.tid < tid;
}

// Round ROUND's changes applied to THREADS (sorted by pid, tid).
void apply_changes(const Samples& s, size_t round, std::vector<ThreadNow>* threads) {
  size_t first = s.rounds[round].first_change;
  size_t end = round + 1 < s.rounds.size() ? s.rounds[round + 1].first_change : s.changes.size();
  HEARTH_CHECK(first <= end && end <= s.changes.size());
  for (size_t i = first; i < end; ++i) {
    const timed_samples::Change& c = s.changes[i];
    HEARTH_CHECK(c.thread < s.threads.size());
    const timed_samples::Thread& th = s.threads[c.thread];
    auto at = std::lower_bound(
        threads->begin(), threads->end(), th,
        [](const ThreadNow& a, const timed_samples::Thread& b) { return before(a, b.pid, b.tid); });
    bool found = at != threads->end() && at->pid == th.pid && at->tid == th.tid;
    if (c.state == timed_samples::kGone) {
      if (found) threads->erase(at);
      continue;
    }
    HEARTH_CHECK(c.stack < s.stacks.size());
    if (!found) {
      threads->insert(at, ThreadNow{.pid = th.pid,
                                    .tid = th.tid,
                                    .thread = c.thread,
                                    .stack = c.stack,
                                    .state = c.state,
                                    .since = static_cast<uint32_t>(round)});
      continue;
    }
    // A new root alone (a rename) keeps how long the thread has been as it is.
    if (at->stack != c.stack || at->state != c.state) at->since = static_cast<uint32_t>(round);
    at->thread = c.thread;
    at->stack = c.stack;
    at->state = c.state;
  }
}

}  // namespace

SampleWindow::SampleWindow(const Samples& samples, uint64_t window_ns, size_t first_round)
    : samples_(samples), window_ns_(window_ns), first_round_(first_round) {
  HEARTH_CHECK(!samples.rounds.empty() && first_round < samples.rounds.size());
  // Threads with the same root text (merged threads: "[pool]") count as one, as in the live
  // view.
  std::unordered_map<std::string_view, uint32_t> root_ids;
  root_of_thread_.reserve(samples.threads.size());
  for (const timed_samples::Thread& t : samples.threads) {
    auto [it, added] = root_ids.try_emplace(t.root, static_cast<uint32_t>(roots_.size()));
    if (added) roots_.push_back(t.root);
    root_of_thread_.push_back(it->second);
  }
  Cursor c{.round = 0, .threads = {}};
  for (size_t r = 0; r < samples.rounds.size(); ++r) {
    apply_changes(samples, r, &c.threads);
    c.round = r;
    if (r % kCheckpointEvery == 0) checkpoints_.push_back(c);
  }
  round_ = first_round;
  begin_ = begin_of(first_round);
  count(begin_, round_, 1);
  move(&head_, round_);
}

void SampleWindow::apply(Cursor* c, size_t round) const {
  HEARTH_CHECK(round == c->round + 1);
  apply_changes(samples_, round, &c->threads);
  c->round = round;
}

void SampleWindow::move(Cursor* c, size_t round) const {
  // Forward from where C is when that is within ROUND's checkpoint stretch, else from the
  // checkpoint.
  if (c->round > round || c->round < round / kCheckpointEvery * kCheckpointEvery)
    *c = checkpoints_[round / kCheckpointEvery];
  while (c->round < round) apply(c, c->round + 1);
}

size_t SampleWindow::begin_of(size_t round) const {
  if (window_ns_ == 0) return first_round_;
  uint64_t t = samples_.rounds[round].time_ns;
  if (t < window_ns_) return first_round_;
  uint64_t from = t - window_ns_ + 1;  // within WINDOW_NS before: later than t - window
  auto first = samples_.rounds.begin() + static_cast<ptrdiff_t>(first_round_);
  auto it = std::partition_point(first, samples_.rounds.begin() + static_cast<ptrdiff_t>(round),
                                 [&](const timed_samples::Round& r) { return r.time_ns < from; });
  return static_cast<size_t>(it - samples_.rounds.begin());
}

void SampleWindow::count(size_t from, size_t to, int sign) {
  move(&scratch_, from);
  for (size_t r = from;; apply(&scratch_, ++r)) {
    int64_t pid = samples_.rounds[r].pid;
    auto it = std::lower_bound(scratch_.threads.begin(), scratch_.threads.end(), pid,
                               [](const ThreadNow& a, int64_t p) { return a.pid < p; });
    for (; it != scratch_.threads.end() && it->pid == pid; ++it) {
      uint64_t key = static_cast<uint64_t>(root_of_thread_[it->thread]) << 32 | it->stack;
      if (sign > 0) {
        ++counts_[key];
        ++total_;
      } else {
        auto c = counts_.find(key);
        HEARTH_CHECK(c != counts_.end() && c->second > 0 && total_ > 0);
        if (--c->second == 0) counts_.erase(c);
        --total_;
      }
    }
    if (r == to) break;
  }
}

void SampleWindow::seek(size_t round) {
  HEARTH_CHECK(round >= first_round_ && round < samples_.rounds.size());
  size_t begin = begin_of(round);
  if (begin > round_ || begin_ > round) {  // no round in common: count afresh
    counts_.clear();
    total_ = 0;
    count(begin, round, 1);
  } else {
    if (round > round_) count(round_ + 1, round, 1);
    if (round < round_) count(round + 1, round_, -1);
    if (begin > begin_) count(begin_, begin - 1, -1);
    if (begin < begin_) count(begin, begin_ - 1, 1);
  }
  round_ = round;
  begin_ = begin;
  move(&head_, round);
}

const std::vector<ThreadNow>& SampleWindow::threads() const {
  return head_.threads;
}

std::vector<SampleWindow::Entry> SampleWindow::top(size_t n) const {
  std::vector<std::pair<uint64_t, uint64_t>> all(counts_.begin(), counts_.end());  // key, count
  if (all.empty() || n == 0) return {};
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  // Every stack with at least the Nth count, in text order among equals.
  uint64_t least = all[std::min(n, all.size()) - 1].second;
  std::vector<Entry> out;
  for (const auto& [key, count] : all) {
    if (count < least) break;
    Entry e{.stack = roots_[key >> 32], .count = count};
    const std::string& frames = samples_.stacks[key & 0xffffffffu];
    if (!frames.empty()) {
      e.stack += ';';
      e.stack += frames;
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count > b.count : a.stack < b.stack;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

uint64_t SampleWindow::stall_median_ns() const {
  std::vector<uint64_t> stalls;
  for (size_t r = begin_; r <= round_; ++r) stalls.push_back(samples_.rounds[r].stall_ns);
  auto mid = stalls.begin() + static_cast<ptrdiff_t>(stalls.size() / 2);
  std::nth_element(stalls.begin(), mid, stalls.end());
  return *mid;
}

uint64_t SampleWindow::stall_max_ns() const {
  uint64_t most = 0;
  for (size_t r = begin_; r <= round_; ++r) most = std::max(most, samples_.rounds[r].stall_ns);
  return most;
}

}  // namespace hearth::replay
