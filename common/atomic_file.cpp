#include "common/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

#include "common/file_io.h"

namespace hearth {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

// The directory a file at PATH goes into: "." for a bare name.
std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The name through which another call can reach an open descriptor (linkat needs a path).
std::string fd_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

// Starts writing FD's dirty pages back (without waiting for it), 256 KiB per call. Renaming a
// file over an existing one makes ext4 (auto_da_alloc) allocate the new file's blocks and start
// its writeback inside rename(): one stretch of 0.4-0.5 ms in the kernel on a kernel without
// preemption, where a real-time thread of a sampled process waited for the CPU (issue 30); and
// one writeback of a whole large file (a 10,000-thread profile) still held the CPU 0.6-0.7 ms
// at a time between two resched points. In steps, each call's stretch is short, and the
// rename finds nothing left to flush. Best effort: a filesystem without it loses nothing.
void start_writeback(int fd) {
  constexpr off_t kStep = 256 << 10;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  for (off_t at = 0; at < st.st_size; at += kStep) {
    if (::sync_file_range(fd, at, kStep, SYNC_FILE_RANGE_WRITE) != 0) return;
  }
}

// PATH.hearth-tmp-XXXXXX with 6 random letters and digits.
std::string temporary_name(const std::string& path) {
  static constexpr std::string_view kChars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  uint8_t bytes[6] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    // No entropy yet (early boot): any name will do, EEXIST makes the caller draw again.
    static uint64_t counter = 0;
    uint64_t v = static_cast<uint64_t>(::getpid()) * 1000003u + ++counter;
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(v), v >>= 8;
  }
  std::string name = path + ".hearth-tmp-";
  for (uint8_t b : bytes) name += kChars[b % kChars.size()];
  return name;
}

// An unnamed regular file in DIR, or -1 with errno set.
int open_unnamed(const std::string& dir, mode_t mode) {
  return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);  // umask applies
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path, mode_t mode) {
  AtomicFile f;
  f.path_ = path;
  f.buffer_.reserve(kBufferBytes);
  if (path == "-") {
    f.is_stdout_ = true;
    return f;
  }
  // An existing path that is not a regular file (/dev/null, a FIFO, a terminal) is written in
  // place: renaming over it would replace the device with a file (as root, even /dev/null).
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return fail("cannot write " + path + ": it is a directory");
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      int e = errno;
      return fail_errno("cannot write " + path, e);
    }
    f.owned_.reset(fd);
    f.in_place_ = true;
    return f;
  }
  int unnamed = open_unnamed(directory_of(path), mode);
  if (unnamed >= 0) {
    // linkat() names the file through /proc/self/fd (linkat with AT_EMPTY_PATH would need
    // CAP_DAC_READ_SEARCH): without /proc, it could never get a name, so use the fallback.
    if (::access(fd_path(unnamed).c_str(), F_OK) == 0) {
      f.owned_.reset(unnamed);
      f.unnamed_ = true;
      return f;
    }
    ::close(unnamed);
  } else {
    int e = errno;
    // EOPNOTSUPP: the filesystem has no O_TMPFILE (some FUSE, NFS, older overlayfs); EISDIR: a
    // kernel older than 3.11, which reads O_TMPFILE as O_DIRECTORY. Both fall back to a named
    // temporary file. Any other error (ENOENT, EACCES, ENOSPC) is the answer for PATH too.
    if (e != EOPNOTSUPP && e != EISDIR) return fail_errno("cannot write " + path, e);
  }
  std::string tmpl = path + ".hearth-tmp-XXXXXX";
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return fail_errno("cannot write " + path, e);
  }
  // mkostemp creates 0600; outputs are ordinary files, so honour the umask like open(2) would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, mode & ~mask);  // best effort: a failure leaves a private file, still correct
  f.owned_.reset(fd);
  f.tmp_path_ = std::move(tmpl);
  return f;
}

AtomicFile::AtomicFile(AtomicFile&&) noexcept = default;

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() {
  if (owned_.valid()) {
    owned_.reset();  // frees an unnamed file
    if (!in_place_ && !unnamed_) ::unlink(tmp_path_.c_str());
  }
  done_ = true;
}

int AtomicFile::fd() const {
  if (done_) return -1;
  return is_stdout_ ? STDOUT_FILENO : owned_.get();
}

void AtomicFile::flush_buffer() {
  if (fd() < 0 || buffer_.empty()) return;
  if (write_errno_ == 0) write_errno_ = write_all(fd(), buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::write(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBufferBytes) flush_buffer();
  if (bytes.size() >= kBufferBytes) {
    if (write_errno_ == 0 && fd() >= 0) write_errno_ = write_all(fd(), bytes.data(), bytes.size());
    return;
  }
  buffer_.append(bytes);
}

Result<void> AtomicFile::commit() {
  flush_buffer();
  if (write_errno_ != 0) {
    int e = write_errno_;
    discard();
    return fail_errno("cannot write " + path_, e);
  }
  if (is_stdout_) {
    done_ = true;
    return {};
  }
  if (in_place_) {
    int rc = owned_.close();
    int e = errno;
    if (rc != 0) return fail_errno("cannot write " + path_, e);
    return {};
  }
  // Only over an existing file: a new name needs no flush at rename, and the flusher writes it
  // back later (or never, for a file removed soon).
  if (::access(path_.c_str(), F_OK) == 0) start_writeback(owned_.get());
  if (unnamed_) {
    Result<void> linked = link_into_place();
    discard();  // closes the descriptor: the file lives on under PATH, or is freed
    return linked;
  }
  if (owned_.close() != 0) {
    int e = errno;
    ::unlink(tmp_path_.c_str());
    return fail_errno("cannot write " + path_, e);
  }
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp_path_.c_str());
    return fail_errno("cannot rename into " + path_, e);
  }
  return {};
}

Result<void> AtomicFile::link_into_place() {
  const std::string from = fd_path(owned_.get());
  // Nothing at PATH yet: the file appears there whole, in one step.
  if (::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, path_.c_str(), AT_SYMLINK_FOLLOW) == 0) return {};
  int e = errno;
  if (e != EEXIST) return fail_errno("cannot write " + path_, e);
  // PATH exists (a file, a symlink): link() never replaces, so take a temporary name and
  // rename it over PATH right away.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = temporary_name(path_);
    if (::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      e = errno;
      if (e == EEXIST) continue;  // another file has that name: draw again
      return fail_errno("cannot write " + path_, e);
    }
    if (::rename(tmp.c_str(), path_.c_str()) != 0) {
      e = errno;
      ::unlink(tmp.c_str());
      return fail_errno("cannot rename into " + path_, e);
    }
    return {};
  }
  return fail_errno("cannot write " + path_, EEXIST);
}

Result<void> write_file_atomically(const std::string& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::create(path));
  f.write(bytes);
  return f.commit();
}

}  // namespace hearth
