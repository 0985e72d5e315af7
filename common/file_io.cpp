#include "common/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/unique_fd.h"

namespace hearth {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
// Bytes per write(): see write_all.
constexpr size_t kWriteBytes = 16 * 1024;

}  // namespace

Result<void> read_chunks(const std::string& path,
                         const std::function<void(std::string_view chunk)>& consume) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    const int e = errno;  // before the message's allocation
    return fail_errno("cannot read " + path, e);
  }
  char buffer[kChunkBytes];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      const int e = errno;
      if (e == EINTR) continue;
      return fail_errno("cannot read " + path, e);
    }
    if (n == 0) return {};
    consume(std::string_view(buffer, static_cast<size_t>(n)));
  }
}

Result<std::string> read_file(const std::string& path) {
  std::string out;
  RETURN_IF_ERROR(read_chunks(path, [&out](std::string_view chunk) { out.append(chunk); }));
  return out;
}

int read_fd_bounded(int fd, size_t limit, std::string& data) {
  while (data.size() <= limit) {
    const size_t old = data.size();
    data.resize(old + std::min<size_t>(limit + 1 - old, 1 << 20));
    const ssize_t n = ::read(fd, data.data() + old, data.size() - old);
    if (n < 0) {
      const int e = errno;
      data.resize(old);
      if (e == EINTR) continue;
      return e;
    }
    data.resize(old + static_cast<size_t>(n));
    if (n == 0) break;
  }
  return 0;
}

int write_all(int fd, const char* data, size_t size) {
  // 16 KiB per write(): one large write() kept a CPU 3.5 ms in the kernel (1 MB into ext4, on a
  // kernel without preemption), where a real-time thread of a sampled process waited for it;
  // 64 KiB writes still did, 0.3-0.45 ms each (ext4 takes a write in folios as large as the
  // write, and yields between folios), while hearth wrote a 10,000-thread profile (issue 30).
  while (size > 0) {
    const ssize_t n = ::write(fd, data, std::min(size, kWriteBytes));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace hearth
