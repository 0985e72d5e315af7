#include "render/profile/folded_reader.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>

#include "common/check.h"
#include "common/digits.h"
#include "render/profile/filters.h"

namespace hearth::profile {
namespace {

constexpr size_t kChunkBytes = 4 << 20;  // the buffer's first size

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// The length of the longest common prefix of A and B: 8 bytes at a time (lines of a sorted
// profile share hundreds of bytes with the previous one).
size_t common_prefix(std::string_view a, std::string_view b) {
  size_t limit = std::min(a.size(), b.size());
  size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= limit; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return i + static_cast<size_t>(std::countr_zero(x ^ y)) / 8;
    }
  }
  while (i < limit && a[i] == b[i]) ++i;
  return i;
}

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

std::string_view rstrip(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

TrailingCount take_trailing_count(std::string_view* text, Count* count) {
  std::string_view s = *text;
  size_t i = s.size();
  size_t dot = std::string_view::npos;
  while (i > 0) {
    char c = s[i - 1];
    if (c == '.') {
      if (dot != std::string_view::npos) return TrailingCount::kNoCount;  // "1.2.3"
      dot = i - 1;
    } else if (!is_digit(c)) {
      break;
    }
    --i;
  }
  std::string_view tok = s.substr(i);
  if (tok.empty() || !is_digit(tok[0])) return TrailingCount::kNoCount;
  // The whole line is a number (an empty stack: folded files never have one), or the count
  // is glued to the frame: not a count.
  if (i == 0 || !is_blank(s[i - 1])) return TrailingCount::kNoCount;
  std::string_view digits = tok.substr(0, dot == std::string_view::npos ? tok.size() : dot - i);
  // Exactly one blank separates the count, as in flamegraph.pl: a frame may end in blanks
  // ("write0; " has a leaf named " ").
  std::string_view before = s.substr(0, i - 1);
  if (dot == std::string_view::npos) {
    // An integer, exact.
    size_t lead = digits.find_first_not_of('0');
    digits.remove_prefix(lead == std::string_view::npos ? digits.size() : lead);
    uint64_t u = 0;
    if (digits.size() <= 19) {  // below 10^19 < 2^64: cannot overflow
      for (char c : digits) u = u * 10 + static_cast<uint64_t>(c - '0');
    } else {
      for (char c : digits) {
        if (__builtin_mul_overflow(u, 10, &u) ||
            __builtin_add_overflow(u, static_cast<uint64_t>(c - '0'), &u)) {
          *text = before;
          return TrailingCount::kTooLarge;
        }
      }
    }
    *count = whole_count(u);
    *text = before;
    return TrailingCount::kFound;
  }
  // A real number ("0.5", "12.0", "3."): a double.
  double v = 0;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Past double's range; or, when all digits before the dot are zeros, too small for it
    // (a count of 1e-400 written out): such a line is ignored.
    if (digits.find_first_not_of('0') == std::string_view::npos) return TrailingCount::kNoCount;
    *text = before;
    return TrailingCount::kTooLarge;
  }
  if (ec != std::errc() || p != tok.data() + tok.size() || !std::isfinite(v)) {
    return TrailingCount::kNoCount;
  }
  *count = fractional_count(v);
  *text = before;
  return TrailingCount::kFound;
}

FoldedReader::FoldedReader(FrameTree& tree, ReadOptions options) : tree_(tree), options_(options) {
  // A one-count line in a differential tree would count in both columns.
  HEARTH_CHECK(options_.column == Column::kAsWritten || tree_.differential());
}

void FoldedReader::ignore_line() {
  if (stats_.ignored++ == 0) {
    stats_.first_ignored_line = line_no_;
    stats_.first_ignored_file = current_file_;
  }
}

void FoldedReader::skip_overlong_line() {
  if (stats_.overlong++ == 0) {
    stats_.first_overlong_line = line_no_;
    stats_.first_overlong_file = current_file_;
  }
}

void FoldedReader::note_overflow() {
  if (stats_.overflow_line == 0) {
    stats_.overflow_line = line_no_;
    stats_.overflow_file = current_file_;
  }
}

void FoldedReader::reset_prefix() {
  prev_stack_.clear();
  prev_ends_.clear();
  prev_nodes_.clear();
}

NameId FoldedReader::intern_frame(NodeId parent, std::string_view frame) {
  if (options_.strip_thread_ids && parent == kRoot && is_thread_root(frame)) {
    renamed_.clear();
    renamed_.push_back('[');
    renamed_.append(thread_name(frame));
    renamed_.push_back(']');
    frame = renamed_;
  }
  return tree_.intern(frame);
}

void FoldedReader::add_line(std::string_view line) {
  ++line_no_;
  std::string_view s = rstrip(line);
  if (s.empty()) return;
  Count count;
  TrailingCount found = take_trailing_count(&s, &count);
  if (found == TrailingCount::kNoCount) return ignore_line();
  if (found == TrailingCount::kTooLarge) return note_overflow();
  Count base;
  std::string_view rest = s;
  found = take_trailing_count(&rest, &base);
  if (found == TrailingCount::kTooLarge) return note_overflow();
  bool two_counts = found == TrailingCount::kFound;
  if (two_counts) s = rest;
  if (s.empty()) return ignore_line();
  ++stats_.lines;

  NodeId node = kRoot;
  if (options_.reverse) {
    scratch_.clear();
    size_t start = 0;
    for (;;) {
      size_t semi = s.find(';', start);
      scratch_.push_back(s.substr(start, semi == std::string_view::npos ? semi : semi - start));
      if (semi == std::string_view::npos) break;
      start = semi + 1;
    }
    std::reverse(scratch_.begin(), scratch_.end());
    for (std::string_view f : scratch_) node = tree_.child(node, intern_frame(node, f));
    reset_prefix();
  } else {
    // Reuse the frames this line shares with the previous one.
    size_t lcp = common_prefix(s, prev_stack_);
    // Frame k of the previous line is shared when it ends inside the common prefix and the
    // new line has a frame boundary at the same offset.
    size_t k = 0;
    for (; k < prev_ends_.size(); ++k) {
      size_t e = prev_ends_[k];
      if (e > lcp || (e < s.size() && s[e] != ';')) break;
    }
    size_t start = 0;
    if (k > 0) {
      node = prev_nodes_[k - 1];
      start = prev_ends_[k - 1] + 1;
    }
    prev_ends_.resize(k);
    prev_nodes_.resize(k);
    if (k == 0 || prev_ends_[k - 1] < s.size()) {
      for (;;) {
        size_t semi = s.find(';', start);
        size_t end = semi == std::string_view::npos ? s.size() : semi;
        node = tree_.child(node, intern_frame(node, s.substr(start, end - start)));
        prev_ends_.push_back(static_cast<uint32_t>(end));
        prev_nodes_.push_back(node);
        if (semi == std::string_view::npos) break;
        start = semi + 1;
      }
    }
    prev_stack_.assign(s);
  }
  switch (options_.column) {
    case Column::kAsWritten:
      if (two_counts) {
        tree_.add_self(node, count, base);
      } else {
        tree_.add_self(node, count);
      }
      break;
    case Column::kBase:
    case Column::kNew: {
      // A two-count line gives its NEW count; its BASE count is dropped, but, as when the line
      // is read as written, a fractional one makes the profile fractional.
      Count none;
      none.fractional = two_counts && base.fractional;
      if (options_.column == Column::kBase) {
        tree_.add_self(node, none, count);
      } else {
        tree_.add_self(node, count, none);
      }
      break;
    }
  }
  if (tree_.overflowed()) note_overflow();
}

void FoldedReader::take_line(std::string_view line) {
  if (line.size() > options_.max_line_bytes) {
    ++line_no_;
    skip_overlong_line();
    return;
  }
  add_line(line);
}

void FoldedReader::read_text(std::string_view text) {
  stats_.bytes += text.size();
  while (!text.empty()) {
    size_t nl = text.find('\n');
    take_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

int FoldedReader::read_lines(int fd, int64_t begin, int64_t end) {
  // One buffer of lines; it grows while one line does not fit, up to the line limit.
  size_t cap = kChunkBytes;
  if (end >= 0) cap = static_cast<size_t>(std::min<int64_t>(cap, end - begin + 1));
  std::unique_ptr<char[]> buf(new char[cap]);
  size_t have = 0;        // bytes of an unfinished line carried over at the start of buf
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
  FoldedReader second(second_tree, options_);
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
    tree_.merge_from(second_tree);
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
  struct stat st {};
  const bool regular = path != "-" && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular && static_cast<uint64_t>(st.st_size) >= options_.parallel_min_bytes &&
      st.st_size > 0 &&
      tree_.merge() == Merge::kAll &&
      (options_.threads != 0 ? options_.threads : std::min(usable_cpus(), 2u)) >= 2) {
    ASSIGN_OR_RETURN(bool done, read_parallel(fd, st.st_size));
    if (done) return {};
  }
  if (regular) tree_.reserve(tree_.size() + static_cast<size_t>(st.st_size / 64));
  if (int err = read_lines(fd, 0, -1); err != 0) return fail_errno("cannot read " + path, err);
  return {};
}

}  // namespace hearth::profile
