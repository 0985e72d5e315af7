// FoldedReader's pprof input: a profile's samples added as stacks, each as a line of folded
// stacks would be (the same options: --reverse, thread ids stripped, a diff's column).
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/file_io.h"
#include "render/profile/folded_reader.h"
#include "render/profile/gzip_data.h"
#include "render/profile/pprof_reader.h"

namespace hearth::profile {

void FoldedReader::add_frames(std::span<const std::string_view> frames, Count count) {
  ++line_no_;
  size_t bytes = frames.size();  // the ';' between them, and the blank before the count
  for (std::string_view f : frames) bytes += f.size();
  if (bytes > options_.max_line_bytes) return skip_overlong_line();
  ++stats_.lines;
  scratch_.assign(frames.begin(), frames.end());
  if (options_.reverse) std::reverse(scratch_.begin(), scratch_.end());
  NodeId node = kRoot;
  for (std::string_view f : scratch_) node = tree_.child(node, intern_frame(node, f));
  add_count(node, count, false, Count{});
}

Result<void> FoldedReader::read_pprof(std::string_view data, const std::string& name) {
  std::string inflated;
  if (is_gzip(data)) {
    auto r = gunzip(data, options_.max_pprof_bytes);
    if (!r) return fail(name + ": " + r.error().message);
    inflated = std::move(*r);
    data = inflated;
  }
  if (data.size() > options_.max_pprof_bytes) {
    return fail(name + ": a pprof profile past " + std::to_string(options_.max_pprof_bytes >> 20) +
                " MiB (the limit)");
  }
  current_file_ = name;
  line_no_ = 0;
  reset_prefix();
  auto read =
      profile::read_pprof(data, [&](std::span<const std::string_view> frames, int64_t value) {
        add_frames(frames, whole_count(static_cast<uint64_t>(value)));
      });
  if (!read) return fail(name + ": " + read.error().message);
  return {};
}

Result<void> FoldedReader::read_pprof_fd(int fd, std::string head) {
  // The whole profile, up to one byte past the limit (so that one past it is seen).
  std::string data = std::move(head);
  const size_t limit = options_.max_pprof_bytes;
  if (int e = read_fd_bounded(fd, limit, data); e != 0) {
    return fail_errno("cannot read " + current_file_, e);
  }
  if (data.size() > limit) {
    return fail(current_file_ + ": a pprof profile past " + std::to_string(limit >> 20) +
                " MiB (the limit)");
  }
  stats_.bytes += data.size();
  return read_pprof(data, current_file_);
}

}  // namespace hearth::profile
