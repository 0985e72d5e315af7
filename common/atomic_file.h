// Writes an output file atomically: bytes go to a temporary name in the same directory and
// are renamed over the final path by commit(). A file never committed is removed by the
// destructor, so a failed or interrupted run leaves nothing half-written.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace hearth {

class AtomicFile {
 public:
  // Creates PATH.hearth-tmp-XXXXXX next to PATH. "-" means standard output (no rename); an
  // existing non-regular file (/dev/null, a FIFO) is written in place.
  static Result<AtomicFile> create(const std::string& path);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Buffered; errors are remembered and reported by commit().
  void write(std::string_view bytes);
  // Flushes, fsyncs nothing (outputs are reproducible), renames into place.
  Result<void> commit();

  const std::string& path() const { return path_; }

 private:
  AtomicFile() = default;
  void flush_buffer();
  void discard();

  std::string path_;
  std::string tmp_path_;
  int fd_ = -1;
  bool is_stdout_ = false;
  bool in_place_ = false;  // not a regular file (a device, a FIFO): written directly
  int write_errno_ = 0;
  std::string buffer_;
};

// Convenience: write BYTES to PATH atomically.
Result<void> write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace hearth
