#include "render/moment/moment.h"

#include <algorithm>
#include <regex>
#include <unordered_map>

#include "common/check.h"

namespace hearth::moment {
namespace {

using timed_samples::Samples;

// The page's patterns (templates/heatmap.js LOCK and IO, there with the i flag): here written in
// lower case and matched against the name with its ASCII letters lowered, which is the same
// thing (JavaScript's case folding never maps a non-ASCII character to an ASCII one).
const std::regex& lock_re() {
  static const std::regex re(
      "futex|mutex|(^|[^a-z])(spin_?)?lock(?![a-z])|rwsem|sem_wait|semaphore|cond_?wait|"
      "condition_variable",
      std::regex::ECMAScript | std::regex::optimize);
  return re;
}
const std::regex& io_re() {
  static const std::regex re(
      "(^|[^a-z])(e?poll|p?select|p?readv?|p?writev?|recv|send|accept|connect|fsync|fdatasync|"
      "sync_file|io_|aio|blk|bio_|submit_bio|nfs|ext4|xfs|btrfs|wait_on_page|folio_wait)",
      std::regex::ECMAScript | std::regex::optimize);
  return re;
}

}  // namespace

std::vector<std::string_view> stack_frames(std::string_view s) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t semi = s.find(';', start);
    if (semi == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, semi - start));
    start = semi + 1;
  }
}

namespace {

Rank rank_of(const Samples& s, uint32_t stack, char state,
             std::unordered_map<uint32_t, int>* wait_cache) {
  if (state == 'D') return Rank::kBlocked;
  if (state != 'R') {
    auto [it, added] = wait_cache->try_emplace(stack, 0);
    if (added) {
      const std::vector<std::string_view> frames = stack_frames(s.stacks[stack]);
      for (size_t i = frames.size(); i-- > 0;) {
        if (const int k = wait_kind_of_frame(frames[i]); k != 0) {
          it->second = k;
          break;
        }
      }
    }
    if (it->second == 1) return Rank::kLock;
    if (it->second == 2) return Rank::kIo;
  }
  if (state == 'R') return Rank::kRunning;
  if (state == 'S') return Rank::kSleeping;
  return Rank::kOther;
}

}  // namespace

int wait_kind_of_frame(std::string_view frame) {
  std::string lower(frame);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (std::regex_search(lower, lock_re())) return 1;
  if (std::regex_search(lower, io_re())) return 2;
  return 0;
}

size_t nearest_round(const Samples& s, uint64_t time_ns) {
  HEARTH_CHECK(!s.rounds.empty());
  const auto at = std::lower_bound(s.rounds.begin(), s.rounds.end(), time_ns,
                                   [](const timed_samples::Round& r, uint64_t t) { return r.time_ns < t; });
  const size_t r = static_cast<size_t>(at - s.rounds.begin());
  if (r >= s.rounds.size()) return s.rounds.size() - 1;
  if (r > 0 && time_ns - s.rounds[r - 1].time_ns <= s.rounds[r].time_ns - time_ns) return r - 1;
  return r;
}

Moment moment_at(const Samples& s, size_t round, const Pattern* only) {
  HEARTH_CHECK(round < s.rounds.size());
  // Each thread's last change at or before ROUND, and its first change ever.
  constexpr size_t kNone = ~size_t{0};
  const size_t n_threads = s.threads.size();
  std::vector<size_t> last(n_threads, kNone), last_round(n_threads, 0), first(n_threads, kNone);
  const size_t end =
      round + 1 < s.rounds.size() ? s.rounds[round + 1].first_change : s.changes.size();
  size_t r = 0;
  for (size_t c = 0; c < end && c < s.changes.size(); ++c) {
    while (r + 1 < s.rounds.size() && s.rounds[r + 1].first_change <= c) ++r;
    const uint32_t t = s.changes[c].thread;
    if (t >= n_threads) continue;
    last[t] = c;
    last_round[t] = r;
    // The page's first run: the thread's first change that is not kGone.
    if (first[t] == kNone && s.changes[c].state != timed_samples::kGone) first[t] = c;
  }
  // A file of one process: every thread is in its samples (as the page: one process, no check).
  std::unordered_map<int64_t, int> pids;
  for (const timed_samples::Round& rd : s.rounds) pids.emplace(rd.pid, 0);
  const bool one_process = pids.size() <= 1;

  Moment m;
  m.round = round;
  m.time_ns = s.rounds[round].time_ns;
  m.pid = s.rounds[round].pid;
  std::unordered_map<uint64_t, size_t> group_of;  // stack * 256 + state -> index into groups
  std::unordered_map<uint32_t, int> wait_cache;
  for (uint32_t t = 0; t < n_threads; ++t) {
    if (last[t] == kNone) continue;
    const timed_samples::Change& ch = s.changes[last[t]];
    if (ch.state == timed_samples::kGone) continue;
    if (!one_process && s.threads[t].pid != m.pid) continue;
    if (only != nullptr && !only->search(s.threads[t].root)) continue;
    const uint64_t key = uint64_t{ch.stack} * 256 + static_cast<unsigned char>(ch.state);
    auto [it, added] = group_of.try_emplace(key, m.groups.size());
    if (added) {
      Group g;
      g.stack = ch.stack;
      g.state = ch.state;
      g.rank = rank_of(s, ch.stack, ch.state, &wait_cache);
      m.groups.push_back(std::move(g));
    }
    Group& g = m.groups[it->second];
    ThreadAt at;
    at.thread = t;
    at.since_round = last_round[t];
    at.since_ns = m.time_ns - s.rounds[last_round[t]].time_ns;
    at.first = first[t] == last[t];
    g.longest_ns = std::max(g.longest_ns, at.since_ns);
    g.threads.push_back(at);
    ++m.threads;
  }
  std::sort(m.groups.begin(), m.groups.end(), [](const Group& a, const Group& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.threads.size() != b.threads.size()) return a.threads.size() > b.threads.size();
    if (a.longest_ns != b.longest_ns) return a.longest_ns > b.longest_ns;
    if (a.stack != b.stack) return a.stack < b.stack;
    return static_cast<unsigned char>(a.state) < static_cast<unsigned char>(b.state);
  });
  for (Group& g : m.groups) {
    std::sort(g.threads.begin(), g.threads.end(), [](const ThreadAt& a, const ThreadAt& b) {
      if (a.since_round != b.since_round) return a.since_round < b.since_round;
      return a.thread < b.thread;
    });
  }
  return m;
}

std::string rank_why(Rank rank, char state) {
  switch (rank) {
    case Rank::kBlocked: return "blocked (D)";
    case Rank::kLock: return std::string("lock wait, ") + state;
    case Rank::kIo: return std::string("I/O wait, ") + state;
    case Rank::kRunning: return "on CPU or runnable (R)";
    case Rank::kSleeping: return "sleeping (S)";
    case Rank::kOther: return std::string("state ") + state;
  }
  return "";
}

const char* rank_kind(Rank rank) {
  static constexpr const char* kKinds[] = {"blocked", "lock", "io", "running", "sleeping", "other"};
  return kKinds[static_cast<int>(rank)];
}

const char* rank_here(Rank rank) {
  static constexpr const char* kHere[] = {"blocked here", "waiting here", "waiting here",
                                          "running here", "sleeping here", "here"};
  return kHere[static_cast<int>(rank)];
}

}  // namespace hearth::moment
