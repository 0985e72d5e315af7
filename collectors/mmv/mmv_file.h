// One MMV file, open for snapshots. The layout is decoded once from a private copy of the file
// (pread); values are then read from a read-only shared mapping at every snapshot.
//
// Consistency. The MMV format has no lock: a writer updates a value with a plain store while
// we read. What a snapshot guarantees:
// - it is taken only when generation 1 == generation 2 != 0 (the writer finished initialising
//   the file) and both are re-checked after the values are copied; if they changed, the
//   snapshot is dropped (kRetry, or kReplaced when the file was re-initialised);
// - each numeric value is one aligned 8-byte load, so it is never torn; an elapsed-time value
//   (value + start time) is re-read until its start time is stable;
// - each string field (256 bytes) is copied twice and the copies compared; a string that
//   changes under every attempt is reported absent for that snapshot (Snapshot::torn_strings).
//   A writer stalled in the middle of an update (libpcp_mmv clears the field, then copies the
//   text) shows the same prefix to both copies: without a lock in the format no reader can
//   tell that apart from a real value;
// - a snapshot is atomic per value, NOT across values: two counters a writer updates together
//   may be seen one before and one after the update.
// A file truncated under the mapping raises SIGBUS, which sigbus_guard turns into kReplaced.
// Thread-compatible (one thread per MmvFile).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/mmv/mmv_model.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth::mmv {

struct Sample {
  bool present = false;  // false: a SENTINEL "no value", or a string torn on every attempt
  // The 8 value bytes as stored (i32/u32/float in the low 4 bytes). Elapsed: µs, with an open
  // interval counted up to the snapshot (value + now_µs + extra).
  uint64_t raw = 0;
  std::string text;  // strings
};

struct Snapshot {
  uint64_t time_ns = 0;         // CLOCK_REALTIME before the values were copied
  std::vector<Sample> samples;  // by Layout::slots index
  size_t torn_strings = 0;
};

enum class SnapshotStatus : uint8_t {
  kOk,
  kRetry,     // the writer was changing the file: nothing read, try next interval
  kReplaced,  // new inode, new generation, or truncated: reopen (a new series)
  kGone,      // the path no longer exists
};

class MmvFile {
 public:
  // Errors: "cannot open PATH: ...", "PATH: <what is damaged>"; errnum EAGAIN when the file is
  // still being initialised by its writer (try again later).
  static Result<MmvFile> open(const std::string& path);

  MmvFile(MmvFile&& other) noexcept;
  MmvFile& operator=(MmvFile&& other) noexcept;
  MmvFile(const MmvFile&) = delete;
  MmvFile& operator=(const MmvFile&) = delete;
  ~MmvFile();

  SnapshotStatus snapshot(Snapshot* out);

  const std::string& path() const { return path_; }
  const Layout& layout() const { return layout_; }
  // The PROCESS flag is set and the writer's pid is gone or a zombie.
  bool writer_gone() const;

 private:
  MmvFile() = default;

  std::string path_;
  UniqueFd fd_;
  MappedRegion map_;  // the whole file, read-only; none when there are no values
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  Layout layout_;
  std::vector<uint32_t> string_slots_;  // indices of the string slots
  // Scratch reused by snapshots (sized at open: nothing is allocated while copying).
  std::vector<uint64_t> words_;        // per slot: value, extra
  std::vector<unsigned char> copies_;  // per string slot: 2 × 256 bytes
  std::vector<uint8_t> string_ok_;     // per string slot: the two copies agreed
};

// Decodes SAMPLE of a METRIC for people and the TSV: integers in decimal, floats with the
// shortest text that reads back the same, strings as stored.
std::string format_value(const Metric& metric, const Sample& sample);
// As a number (strings: NaN).
double value_as_double(const Metric& metric, const Sample& sample);

}  // namespace hearth::mmv
