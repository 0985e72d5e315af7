#include "common/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

namespace hearth {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

// write(2) until done or a real error; returns 0 or errno.
int write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      int e = errno;
      if (e == EINTR) continue;
      return e;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  AtomicFile f;
  f.path_ = path;
  f.buffer_.reserve(kBufferBytes);
  if (path == "-") {
    f.is_stdout_ = true;
    f.fd_ = STDOUT_FILENO;
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
    f.fd_ = fd;
    f.in_place_ = true;
    return f;
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
  ::fchmod(fd, 0666 & ~mask);  // best effort: a failure leaves a private file, still correct
  f.fd_ = fd;
  f.tmp_path_ = std::move(tmpl);
  return f;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept {
  *this = std::move(other);
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    tmp_path_ = std::move(other.tmp_path_);
    fd_ = std::exchange(other.fd_, -1);
    is_stdout_ = other.is_stdout_;
    in_place_ = other.in_place_;
    write_errno_ = other.write_errno_;
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() {
  if (fd_ >= 0 && !is_stdout_) {
    ::close(fd_);
    if (!in_place_) ::unlink(tmp_path_.c_str());
  }
  fd_ = -1;
}

void AtomicFile::flush_buffer() {
  if (fd_ < 0 || buffer_.empty()) return;
  if (write_errno_ == 0) write_errno_ = write_all(fd_, buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::write(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBufferBytes) flush_buffer();
  if (bytes.size() >= kBufferBytes) {
    if (write_errno_ == 0 && fd_ >= 0) write_errno_ = write_all(fd_, bytes.data(), bytes.size());
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
    fd_ = -1;
    return {};
  }
  if (in_place_) {
    int rc = ::close(std::exchange(fd_, -1));
    int e = errno;
    if (rc != 0) return fail_errno("cannot write " + path_, e);
    return {};
  }
  if (::close(std::exchange(fd_, -1)) != 0) {
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

Result<void> write_file_atomically(const std::string& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::create(path));
  f.write(bytes);
  return f.commit();
}

}  // namespace hearth
