// FoldedReader's speedscope input: a profile's stacks added as lines of folded stacks would be
// (the same options: --reverse, thread ids stripped, a diff's column).
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/file_io.h"
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
  if (int e = read_fd_bounded(fd, limit, data); e != 0) {
    return fail_errno("cannot read " + current_file_, e);
  }
  if (data.size() > limit) {
    return fail(current_file_ + ": a speedscope file past " + std::to_string(limit >> 20) +
                " MiB (the limit)");
  }
  stats_.bytes += data.size();
  return read_speedscope(data, current_file_);
}

}  // namespace hearth::profile
