// What `hearth mmv` says on stderr about files that go bad and come back, in a number of lines
// that does not grow with how often they do (the TSV keeps every event):
// - a file that goes bad: one line saying why ("PATH: metrics section … past the end …");
// - a file read again: one line ("PATH: readable again (3 samples lost)");
// - a file that goes bad again less than kQuietNs after its last such line: one line saying so,
//   then nothing about it for kQuietNs; the next line counts what happened meanwhile;
// - at the end, one line per file that was ever unreadable: how many times, how many samples
//   were lost, and whether it still is.
// At most three lines per file per kQuietNs, and the summary. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "collectors/mmv/mmv_watch.h"

namespace hearth::cli {

class MmvNotices {
 public:
  static constexpr uint64_t kQuietNs = 60'000'000'000;  // 60 s

  // PRINT receives each line without the "hearth mmv: " prefix or a line end.
  explicit MmvNotices(std::function<void(const std::string&)> print, uint64_t quiet_ns = kQuietNs);

  // Events as the Watcher reports them (TIME_NS: the event's time); other kinds are ignored.
  void on_event(uint64_t time_ns, const std::string& path, mmv::EventKind kind,
                std::string_view detail);

  // The summary from the Watcher's troubles().
  void finish(const std::map<std::string, mmv::Trouble>& troubles);

 private:
  struct FileState {
    uint64_t last_bad_line_ns = 0;  // when the latest "gone bad" line was printed
    bool printed_any = false;
    bool bad_line_printed = false;  // for the current episode: its end gets a line too
    uint64_t quiet_until_ns = 0;    // no line before this
    uint64_t unreported = 0;        // episodes since the last line about this file
  };

  std::function<void(const std::string&)> print_;
  uint64_t quiet_ns_;
  std::map<std::string, FileState> files_;
};

}  // namespace hearth::cli
