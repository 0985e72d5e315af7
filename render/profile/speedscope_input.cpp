// FoldedReader's speedscope input: a profile's stacks added as lines of folded stacks would be
// (the same options: --reverse, thread ids stripped, a diff's column).
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "render/profile/folded_reader.h"
#include "render/profile/speedscope_reader.h"

namespace hearth::profile {

Result<void> FoldedReader::read_speedscope(std::string_view json, const std::string& name) {
  if (json.size() > options_.max_speedscope_bytes) {
    return fail(name + ": a speedscope file past " +
                std::to_string(options_.max_speedscope_bytes >> 20) + " MiB (the limit)");
  }
  current_file_ = name;
  line_no_ = 0;
  reset_prefix();
  auto read = profile::read_speedscope(json, [&](std::span<const std::string_view> frames,
                                                 Count count) { add_frames(frames, count); });
  if (!read) return fail(name + ": " + read.error().message);
  return {};
}

Result<void> FoldedReader::read_speedscope_fd(int fd, std::string head) {
  // The whole file, up to one byte past the limit (so that one past it is seen).
  std::string data = std::move(head);
  const size_t limit = options_.max_speedscope_bytes;
  for (;;) {
    if (data.size() > limit) {
      return fail(current_file_ + ": a speedscope file past " + std::to_string(limit >> 20) +
                  " MiB (the limit)");
    }
    size_t old = data.size();
    data.resize(old + std::min<size_t>(limit + 1 - old, 1 << 20));
    ssize_t n = ::read(fd, data.data() + old, data.size() - old);
    if (n < 0 && errno == EINTR) {
      data.resize(old);
      continue;
    }
    if (n < 0) {
      int e = errno;
      return fail_errno("cannot read " + current_file_, e);
    }
    data.resize(old + static_cast<size_t>(n));
    if (n == 0) break;
  }
  stats_.bytes += data.size();
  return read_speedscope(data, current_file_);
}

}  // namespace hearth::profile
