// The raw sub-buffers read from each CPU's trace_pipe_raw during the recording, kept in an
// unlinked temporary file (O_TMPFILE: nothing is left behind, even on SIGKILL) and decoded
// only after the window ends. The recording itself then costs one read and one buffered write
// per sub-buffer — no decoding, no formatting — which keeps the reader ahead of the ring
// buffer at millions of events per second. Disk use: the raw records, ~70 bytes per
// sched_switch (perf.data's order of magnitude).
//
// Replay merges the CPUs' streams exactly by timestamp (each CPU's pages are in order; ties go
// to the lower CPU), with no assumption about when records were committed.
//
// Not thread-safe; move-only.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectors/sched/decoder.h"
#include "collectors/sched/events.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth::sched {

class Spool {
 public:
  // An unnamed file in DIR (falls back to a named one, unlinked at once).
  static Result<Spool> create(const std::string& dir);

  Spool(Spool&& other) noexcept;
  Spool& operator=(Spool&& other) noexcept;
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  ~Spool();

  // One sub-buffer as trace_pipe_raw returned it. Buffered; errors are remembered and
  // reported by replay().
  void append(int cpu, const void* data, size_t size);

  uint64_t bytes() const { return bytes_; }

  // Decodes every record with DECODER and hands the events to SINK in timestamp order.
  // Returns the count of events the kernel flagged as missed in page headers (-1 entries
  // ignored): a cross-check of the stats files.
  Result<uint64_t> replay(Decoder& decoder, const std::function<void(SchedEvent&)>& sink);

 private:
  Spool() = default;
  Result<void> flush();

  struct Chunk {
    int cpu;
    uint32_t size;
    uint64_t offset;
  };
  UniqueFd fd_;
  std::string buffer_;
  uint64_t bytes_ = 0;
  int write_errno_ = 0;
  size_t max_chunk_ = 0;
  std::vector<Chunk> chunks_;
};

}  // namespace hearth::sched
