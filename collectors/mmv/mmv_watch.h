// What `hearth mmv` watches: MMV files named on the command line, and directories of them
// (by default PCP's $PCP_TMP_DIR/mmv). Every poll() rescans the directories, opens files that
// appeared, reopens files that were replaced (a new series: counters start again), notes files
// that disappeared or whose writer died, and snapshots the rest. A file that cannot be read
// (damaged, truncated, being rewritten) gives one error when it goes bad and one event when it
// is read again, however often the reason changes in between; its polls in between are counted
// as lost (troubles()). The other files go on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/mmv/mmv_file.h"
#include "common/result.h"

namespace hearth::mmv {

// $PCP_TMP_DIR/mmv: from the environment, else PCP_TMP_DIR in $PCP_CONF or /etc/pcp.conf,
// else /var/lib/pcp/tmp.
std::string default_mmv_dir();

struct Source {
  std::string path;
  bool directory = false;
};

// ARGS as `hearth mmv` takes them: a FILE or DIR path, or a NAME (no '/', not a path here)
// meaning DEFAULT_DIR/NAME. No ARGS: DEFAULT_DIR. Errors: one line per argument that names
// nothing ("app: no such MMV file (looked in ./app and /var/lib/pcp/tmp/mmv/app)").
Result<std::vector<Source>> resolve_sources(const std::vector<std::string>& args,
                                            const std::string& default_dir);

// The files SOURCES name now: each file, and each directory's regular files not starting with
// '.' (what Watcher::poll reads).
std::set<std::string> source_files(const std::vector<Source>& sources);

// The MMV files in DIR whose writer (the PROCESS flag's pid) is one of PIDS, by path.
std::vector<Source> sources_written_by(const std::string& dir, const std::vector<pid_t>& pids);

// One file from its opening until it is replaced or disappears.
struct Series {
  uint64_t id = 0;   // 1, 2, ... in the order series start
  std::string name;  // the file's name (no directory)
  MmvFile file;
  bool stale = false;  // PROCESS flag and the writer is gone
};

// kError: a file went bad (DETAIL: why, starting with the path); kReadable: it was read again.
enum class EventKind : uint8_t { kError, kGone, kReplaced, kStale, kAlive, kSkipped, kReadable };
// "error" "gone" "replaced" "stale" "alive" "skipped" "readable"
const char* event_name(EventKind k);

// When a file could not be read. An episode starts at the poll that cannot open a file (damaged,
// truncated, not readable; not while its writer is still initialising it) and ends at the poll
// that reads it again, or when the file leaves its directory.
struct Trouble {
  std::string reason;         // why the latest episode started (the error, starting with the path)
  uint64_t episodes = 0;      // times the file went bad
  uint64_t lost = 0;          // polls during the episodes: samples lost
  uint64_t episode_lost = 0;  // of those, in the latest episode
  bool unreadable = false;    // in an episode at the last poll
};

class SeriesSink {
 public:
  virtual ~SeriesSink() = default;
  virtual void on_series(const Series& series) = 0;  // before its first values
  virtual void on_values(const Series& series, const Snapshot& snapshot) = 0;
  // SERIES may be null (an error about a file no series was opened for: PATH names it).
  virtual void on_event(uint64_t time_ns, const Series* series, const std::string& path,
                        EventKind kind, std::string_view detail) = 0;
};

class Watcher {
 public:
  explicit Watcher(std::vector<Source> sources);
  // One round over every source; reports to SINK.
  void poll(SeriesSink& sink);
  size_t open_files() const { return open_.size(); }
  // Every file that was ever unreadable, by path.
  const std::map<std::string, Trouble>& troubles() const { return troubles_; }

 private:
  // REOPEN: a replaced file may be reopened (not when it was opened in this very round).
  void visit(const std::string& path, SeriesSink& sink, uint64_t now_ns, bool reopen);

  std::vector<Source> sources_;
  std::map<std::string, std::unique_ptr<Series>> open_;  // by path
  std::map<std::string, Trouble> troubles_;              // by path
  uint64_t next_id_ = 1;
};

}  // namespace hearth::mmv
