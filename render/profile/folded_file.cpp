// FoldedReader's file reading: buffered reads of a file or a range of it, and the two-thread
// path for big regular files (folded_reader.h says what it guarantees).
#include "render/profile/folded_reader.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>

namespace hearth::profile {
namespace {

constexpr size_t kChunkBytes = 256 << 10;  // the buffer's first size: read lines stay in the cache

// The CPUs this process may run on.
unsigned usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<unsigned>(CPU_COUNT(&set));
}

// Where the second half of FD's SIZE bytes starts: just after the first newline at or after
// the middle; 0 when there is none (one line, or a last line that is half the file) or on a
// read error (the one-thread path then reports it).
int64_t split_point(int fd, int64_t size) {
  char buf[64 << 10];
  for (int64_t pos = size / 2; pos < size;) {
    ssize_t n = ::pread(fd, buf, std::min<int64_t>(sizeof buf, size - pos), pos);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    if (const void* nl = std::memchr(buf, '\n', static_cast<size_t>(n))) {
      int64_t at = pos + (static_cast<const char*>(nl) - buf) + 1;
      return at < size ? at : 0;
    }
    pos += n;
  }
  return 0;
}

}  // namespace

int FoldedReader::read_lines(int fd, int64_t begin, int64_t end) {
  // One buffer of lines; it grows while one line does not fit, up to the line limit.
  size_t cap = kChunkBytes;
  if (end >= 0) cap = static_cast<size_t>(std::min<int64_t>(cap, end - begin + 1));
  std::unique_ptr<char[]> buf(new char[cap]);
  size_t have = 0;  // bytes of an unfinished line carried over at the start of buf
  if (end < 0 && !pending_.empty()) {
    // What read_file read to tell the format: the first bytes (a few, fewer than the buffer).
    have = pending_.size();
    std::memcpy(buf.get(), pending_.data(), have);
    stats_.bytes += have;
    pending_.clear();
  }
  bool skipping = false;  // inside a line over the limit, already counted as overlong
  int64_t pos = begin;
  for (;;) {
    ssize_t n;
    if (end < 0) {
      n = ::read(fd, buf.get() + have, cap - have);
    } else {
      n = ::pread(fd, buf.get() + have, std::min<int64_t>(cap - have, end - pos), pos);
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    pos += n;
    stats_.bytes += static_cast<uint64_t>(n);
    size_t len = have + static_cast<size_t>(n);
    if (n == 0) {
      if (have > 0 && !skipping) take_line(std::string_view(buf.get(), have));
      return 0;
    }
    std::string_view text(buf.get(), len);
    size_t done = 0;
    for (;;) {
      const void* nl = std::memchr(text.data() + done, '\n', len - done);
      if (nl == nullptr) break;
      size_t line_end = static_cast<const char*>(nl) - text.data();
      if (skipping) {
        skipping = false;  // the rest of the overlong line ends here
      } else {
        take_line(text.substr(done, line_end - done));
      }
      done = line_end + 1;
    }
    have = len - done;
    if (have < cap) {
      std::memmove(buf.get(), buf.get() + done, have);
      continue;
    }
    // One unfinished line fills the buffer.
    if (!skipping && have > options_.max_line_bytes) {
      // Over the limit: counted once, and skipped up to its newline.
      ++line_no_;
      skip_overlong_line();
      skipping = true;
    }
    if (skipping) {
      have = 0;
      continue;
    }
    // Make room, at most one byte over the limit: a full buffer then means a line over it.
    size_t bigger = cap + std::min(cap, options_.max_line_bytes - have + 1);
    std::unique_ptr<char[]> grown(new char[bigger]);
    std::memcpy(grown.get(), buf.get(), have);
    buf = std::move(grown);
    cap = bigger;
  }
}

void FoldedReader::absorb(const FoldedReader& other) {
  const ReadStats& o = other.stats_;
  uint64_t offset = line_no_;  // OTHER's line numbers start after this reader's lines
  stats_.lines += o.lines;
  stats_.bytes += o.bytes;
  if (o.ignored > 0 && stats_.ignored == 0) {
    stats_.first_ignored_line = o.first_ignored_line + offset;
    stats_.first_ignored_file = o.first_ignored_file;
  }
  stats_.ignored += o.ignored;
  if (o.overlong > 0 && stats_.overlong == 0) {
    stats_.first_overlong_line = o.first_overlong_line + offset;
    stats_.first_overlong_file = o.first_overlong_file;
  }
  stats_.overlong += o.overlong;
  if (o.overflow_line != 0 && stats_.overflow_line == 0) {
    stats_.overflow_line = o.overflow_line + offset;
    stats_.overflow_file = o.overflow_file;
  }
  line_no_ += other.line_no_;
}

namespace {

// Whether the first 64 KiB of FD hold a line of gdb's or eu-stack's backtrace text or of perf
// script's (then the file is read in one thread, from its start: the folder needs its blocks
// whole and in order).
bool head_has_gdb_text(int fd) {
  char head[64 << 10];
  ssize_t n = ::pread(fd, head, sizeof head, 0);
  if (n <= 0) return false;
  std::string_view text(head, static_cast<size_t>(n));
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) break;  // a line cut by the 64 KiB: not looked at
    std::string_view line = text.substr(0, nl);
    if (is_gdb_thread_header(line) || is_gdb_frame(line)) return true;
    if (is_eu_stack_process_header(line) || is_eu_stack_thread_header(line)) return true;
    if (looks_like_perf_script(line)) return true;
    text.remove_prefix(nl + 1);
  }
  return false;
}

}  // namespace

Result<bool> FoldedReader::read_parallel(int fd, int64_t size) {
  int64_t split = split_point(fd, size);
  if (split <= 0) return false;
  // The first half is read into tree_ by this reader, as one thread would; the second into a
  // tree of its own by another, merged after. Address space for the nodes is set aside, so
  // the arrays are not copied as they grow (see FrameTree::reserve).
  constexpr int64_t kBytesPerNode = 64;
  tree_.reserve(tree_.size() + static_cast<size_t>(size / kBytesPerNode));
  FrameTree second_tree = tree_.empty_like();
  second_tree.reserve(static_cast<size_t>((size - split) / kBytesPerNode));
  ReadOptions second_options = options_;
  second_options.format = InputFormat::kFolded;  // read_file checked the head: not gdb's text
  FoldedReader second(second_tree, second_options);
  second.current_file_ = current_file_;

  int second_err = 0;
  std::exception_ptr second_failed;
  std::thread worker;
  try {
    worker = std::thread([&] {
      try {
        second_err = second.read_lines(fd, split, size);
      } catch (...) {
        second_failed = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    return false;  // no thread to be had: one reads it all
  }
  int first_err = 0;
  std::exception_ptr first_failed;
  try {
    first_err = read_lines(fd, 0, split);
  } catch (...) {
    first_failed = std::current_exception();
  }
  worker.join();
  if (first_failed) std::rethrow_exception(first_failed);
  if (second_failed) std::rethrow_exception(second_failed);
  if (first_err != 0 || second_err != 0) {
    return fail_errno("cannot read " + current_file_, first_err != 0 ? first_err : second_err);
  }
  const FrameTree* parts[] = {&second_tree};
  if (tree_.can_merge(parts)) {
    tree_.merge_from(std::move(second_tree));
    absorb(second);
  } else {
    // Fractional counts or an overflow: sums of doubles depend on the order of the adds, and
    // the line where an overflow happens is the one-thread reader's to find. This reader goes
    // on from where its half ended, as one thread would have.
    if (int err = read_lines(fd, split, size); err != 0) {
      return fail_errno("cannot read " + current_file_, err);
    }
  }
  return true;
}

Result<void> FoldedReader::read_file(const std::string& path) {
  int fd = STDIN_FILENO;
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int e = errno;
      return fail_errno("cannot read " + path, e);
    }
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } closer{fd};
  current_file_ = path == "-" ? "<stdin>" : path;
  line_no_ = 0;
  reset_prefix();
  start_file();
  struct stat st {};
  const bool regular = path != "-" && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (options_.format == InputFormat::kAuto || options_.format == InputFormat::kPprof ||
      options_.format == InputFormat::kSpeedscope) {
    // The first bytes tell a pprof profile: of a regular file read in place, of a pipe kept for
    // read_lines.
    std::string head(4, '\0');
    size_t got = 0;
    while (got < head.size()) {
      ssize_t n = regular ? ::pread(fd, head.data() + got, head.size() - got, got)
                          : ::read(fd, head.data() + got, head.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int e = errno;
        return fail_errno("cannot read " + path, e);
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    head.resize(got);
    if (options_.format == InputFormat::kPprof ||
        (options_.format == InputFormat::kAuto && looks_like_pprof(head))) {
      if (regular) head.clear();  // read again, from the start
      return read_pprof_fd(fd, std::move(head));
    }
    if (options_.format == InputFormat::kSpeedscope ||
        (options_.format == InputFormat::kAuto && looks_like_speedscope(head))) {
      if (regular) head.clear();
      return read_speedscope_fd(fd, std::move(head));
    }
    if (!regular) pending_ = std::move(head);
  }
  if (regular && static_cast<uint64_t>(st.st_size) >= options_.parallel_min_bytes &&
      st.st_size > 0 && options_.format != InputFormat::kGdb &&
      options_.format != InputFormat::kEuStack && options_.format != InputFormat::kPerfScript &&
      !head_has_gdb_text(fd) && tree_.merge() == Merge::kAll &&
      (options_.threads != 0 ? options_.threads : std::min(usable_cpus(), 2u)) >= 2) {
    ASSIGN_OR_RETURN(bool done, read_parallel(fd, st.st_size));
    if (done) return {};
  }
  if (regular) tree_.reserve(tree_.size() + static_cast<size_t>(st.st_size / 64));
  if (int err = read_lines(fd, 0, -1); err != 0) return fail_errno("cannot read " + path, err);
  end_file();
  return {};
}

}  // namespace hearth::profile
