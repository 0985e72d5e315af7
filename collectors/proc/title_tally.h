// Which of the titles a process showed over a recording names it: the one seen at most looks
// (ties: the one seen last). A server rewrites its title as it works (a PostgreSQL backend says
// each query's command, then "idle"): the title seen most says what the process mostly did,
// where the last one says only what it did at the end. Bounded: a process whose title names
// every request (a counter, an id) keeps kKept titles, a new one replacing the least seen (and
// taking its count plus one, so a title that keeps coming back can win). Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::proc {

class TitleTally {
 public:
  static constexpr size_t kKept = 8;

  // One look at the process's title ("" - a zombie's, or none read - is not counted).
  void count(std::string_view title);
  // The title seen most, ties to the later; "" when none was counted.
  std::string most_seen() const;

 private:
  struct Entry {
    std::string title;
    uint64_t seen = 0;
    uint64_t last = 0;  // the look that last saw it
  };
  std::vector<Entry> entries_;
  uint64_t looks_ = 0;
};

}  // namespace hearth::proc
