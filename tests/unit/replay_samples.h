// Timed samples built by hand for the replay tests, and a plain recount to check the window's
// incremental counts against.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "formats/timed_samples.h"

namespace hearth::replay_testing {

using timed_samples::Samples;

// A small recording of pid 42 "app", a round every 100 ms (0 … 900 ms), three threads:
//   r0: 43 R work, 44 S poll, 42 S poll   r3: 44 D read   r5: 43 S poll
//   r7: 44 S poll, 42 gone                r8: 42 R work
inline Samples small_recording() {
  Samples s;
  s.pid = 42;
  s.name = "app";
  s.stacks = {"start_thread;work", "start_thread;poll;do_futex_[k];futex_wait_[k]",
              "start_thread;read;io_schedule_[k]"};
  s.threads = {{.tid = 43, .pid = 42, .root = "[worker-1 tid=43]"},
               {.tid = 44, .pid = 42, .root = "[worker-2 tid=44]"},
               {.tid = 42, .pid = 42, .root = "[app tid=42]"}};
  auto change = [&](uint32_t thread, char state, uint32_t stack) {
    s.changes.push_back({.thread = thread, .stack = stack, .state = state});
  };
  for (uint32_t r = 0; r < 10; ++r) {
    s.rounds.push_back({.time_ns = r * 100'000'000ull,
                        .pid = 42,
                        .stall_ns = 10'000ull * (r + 1),
                        .first_change = static_cast<uint32_t>(s.changes.size())});
    if (r == 0) {
      change(0, 'R', 0);
      change(1, 'S', 1);
      change(2, 'S', 1);
    } else if (r == 3) {
      change(1, 'D', 2);
    } else if (r == 5) {
      change(0, 'S', 1);
    } else if (r == 7) {
      change(1, 'S', 1);
      change(2, timed_samples::kGone, 0);
    } else if (r == 8) {
      change(2, 'R', 0);
    }
  }
  return s;
}

// ROUNDS rounds of two processes (pids 1 and 2, alternating, some rounds at the same time) and
// THREADS threads each, changing at random (fixed seed), threads leaving and coming back, one
// renamed: crosses the window's checkpoints.
inline Samples random_recording(size_t rounds, uint32_t threads, unsigned seed) {
  Samples s;
  std::mt19937 rng(seed);
  for (int i = 0; i < 7; ++i) s.stacks.push_back("main;f" + std::to_string(i));
  s.stacks.push_back("");  // a thread with nothing below its root
  for (int64_t pid = 1; pid <= 2; ++pid) {
    for (uint32_t t = 0; t < threads; ++t) {
      int64_t tid = pid * 100 + t;
      s.threads.push_back({.tid = tid,
                           .pid = pid,
                           .root = "[p" + std::to_string(pid) + " pid=" + std::to_string(pid) +
                                   "];[t" + std::to_string(tid) + " tid=" + std::to_string(tid) +
                                   "]"});
    }
  }
  // The renamed thread: tid 100 under a second root.
  s.threads.push_back({.tid = 100, .pid = 1, .root = "[p1 pid=1];[renamed tid=100]"});
  std::map<uint32_t, bool> present;
  uint64_t time = 0;
  for (size_t r = 0; r < rounds; ++r) {
    int64_t pid = 1 + static_cast<int64_t>(r % 2);
    if (rng() % 3 != 0) time += 1 + rng() % 20'000'000;
    s.rounds.push_back({.time_ns = time,
                        .pid = pid,
                        .stall_ns = rng() % 100'000,
                        .first_change = static_cast<uint32_t>(s.changes.size())});
    for (uint32_t t = 0; t < threads; ++t) {
      uint32_t index = static_cast<uint32_t>(pid - 1) * threads + t;
      bool renamed = pid == 1 && t == 0 && r > rounds / 2;
      if (renamed) index = 2 * threads;
      bool first = r < 2;
      if (!first && rng() % 4 != 0) continue;
      if (!first && rng() % 9 == 0) {
        s.changes.push_back({.thread = index, .stack = 0, .state = timed_samples::kGone});
        continue;
      }
      s.changes.push_back({.thread = index,
                           .stack = static_cast<uint32_t>(rng() % s.stacks.size()),
                           .state = "RSD"[rng() % 3]});
    }
  }
  return s;
}

// The stacks counted over rounds [FROM, TO], recounted from the start: "ROOT;FRAMES" -> count.
inline std::map<std::string, uint64_t> recount(const Samples& s, size_t from, size_t to) {
  std::map<std::pair<int64_t, int64_t>, std::pair<uint32_t, uint32_t>> now;  // -> thread, stack
  std::map<std::string, uint64_t> counts;
  for (size_t r = 0; r <= to; ++r) {
    size_t end = r + 1 < s.rounds.size() ? s.rounds[r + 1].first_change : s.changes.size();
    for (size_t i = s.rounds[r].first_change; i < end; ++i) {
      const auto& c = s.changes[i];
      const auto& th = s.threads[c.thread];
      if (c.state == timed_samples::kGone) {
        now.erase({th.pid, th.tid});
      } else {
        now[{th.pid, th.tid}] = {c.thread, c.stack};
      }
    }
    if (r < from) continue;
    for (const auto& [key, v] : now) {
      if (key.first != s.rounds[r].pid) continue;
      std::string stack = s.threads[v.first].root;
      if (!s.stacks[v.second].empty()) stack += ";" + s.stacks[v.second];
      ++counts[stack];
    }
  }
  return counts;
}

}  // namespace hearth::replay_testing
