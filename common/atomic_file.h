// Writes an output file atomically: the final path shows the old file (or nothing) until
// commit(), then the whole new file, never a part of it.
//
// The bytes go to an unnamed file in the target's directory (O_TMPFILE): a run killed before
// commit() (even by SIGKILL, when no destructor runs) leaves nothing behind, since the kernel
// frees an unnamed file with its last descriptor. commit() links it to PATH when PATH does not
// exist; over an existing PATH it links it to PATH.hearth-tmp-XXXXXX and renames that over PATH
// at once (two syscalls: the only moment a kill can leave a temporary name).
// Where the directory's filesystem has no O_TMPFILE, the bytes go to PATH.hearth-tmp-XXXXXX
// instead, renamed over PATH by commit() and removed by the destructor; only there can a killed
// run leave a temporary file.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "common/result.h"
#include "common/unique_fd.h"

namespace hearth {

class AtomicFile {
 public:
  // Opens the unnamed file in PATH's directory (or creates PATH.hearth-tmp-XXXXXX there, see
  // above). "-" means standard output (no rename); an existing non-regular file (/dev/null, a
  // FIFO) is written in place. MODE: the new file's permissions, before the umask (0600 for a
  // private file, e.g. a cache entry).
  static Result<AtomicFile> create(const std::string& path, mode_t mode = 0666);

  // Moving hands the file over; the moved-from object then owns nothing. No move assignment:
  // overwriting an open file would have to discard it first.
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Buffered; errors are remembered and reported by commit().
  void write(std::string_view bytes);
  // Flushes, fsyncs nothing (outputs are reproducible), links or renames into place. A failed
  // commit leaves the old file (or nothing) under PATH.
  Result<void> commit();

  const std::string& path() const { return path_; }

 private:
  AtomicFile() = default;
  void flush_buffer();
  void discard();
  int fd() const;  // where bytes go: standard output, the file, or -1 once done

  Result<void> link_into_place();

  std::string path_;
  std::string tmp_path_;  // the named fallback's temporary file; "" for an unnamed file
  UniqueFd owned_;        // the file written (none for standard output)
  bool done_ = false;     // committed or discarded: nothing more is written
  bool is_stdout_ = false;
  bool in_place_ = false;  // not a regular file (a device, a FIFO): written directly
  bool unnamed_ = false;   // an O_TMPFILE file: no name until commit()
  int write_errno_ = 0;
  std::string buffer_;
};

// Convenience: write BYTES to PATH atomically.
Result<void> write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace hearth
