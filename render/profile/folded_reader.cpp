#include "render/profile/folded_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

namespace hearth::profile {
namespace {

constexpr size_t kChunkBytes = 4 << 20;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string_view rstrip(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

bool take_trailing_count(std::string_view* text, double* count) {
  std::string_view s = *text;
  size_t end = s.size();
  size_t i = end;
  while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '.')) --i;
  std::string_view tok = s.substr(i);
  if (tok.empty() || !(tok[0] >= '0' && tok[0] <= '9')) return false;
  if (std::count(tok.begin(), tok.end(), '.') > 1) return false;
  if (i == 0) {
    // The whole line is a number: an empty stack. Accept only if there is no stack at all
    // and the caller allows it; folded files never have this, treat as unparsable.
    return false;
  }
  if (!is_blank(s[i - 1])) return false;
  double v = 0;
  if (tok.find('.') == std::string_view::npos && tok.size() <= 15) {
    uint64_t u = 0;
    for (char c : tok) u = u * 10 + static_cast<uint64_t>(c - '0');
    v = static_cast<double>(u);
  } else {
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size()) return false;  // e.g. out of range
  }
  *count = v;
  // Exactly one blank separates the count, as in flamegraph.pl: a frame may end in blanks
  // ("write0; " has a leaf named " ").
  *text = s.substr(0, i - 1);
  return true;
}

FoldedReader::FoldedReader(FrameTree& tree, ReadOptions options) : tree_(tree), options_(options) {}

void FoldedReader::ignore_line() {
  if (stats_.ignored++ == 0) {
    stats_.first_ignored_line = line_no_;
    stats_.first_ignored_file = current_file_;
  }
}

void FoldedReader::reset_prefix() {
  prev_stack_.clear();
  prev_ends_.clear();
  prev_nodes_.clear();
}

void FoldedReader::add_line(std::string_view line) {
  ++line_no_;
  std::string_view s = rstrip(line);
  if (s.empty()) return;
  double count = 0;
  if (!take_trailing_count(&s, &count)) return ignore_line();
  double base = 0;
  std::string_view rest = s;
  bool two_counts = take_trailing_count(&rest, &base);
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
    for (std::string_view f : scratch_) node = tree_.child(node, tree_.intern(f));
    reset_prefix();
  } else {
    // Reuse the frames this line shares with the previous one.
    size_t limit = std::min(s.size(), prev_stack_.size());
    size_t lcp = 0;
    while (lcp < limit && s[lcp] == prev_stack_[lcp]) ++lcp;
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
        node = tree_.child(node, tree_.intern(s.substr(start, end - start)));
        prev_ends_.push_back(static_cast<uint32_t>(end));
        prev_nodes_.push_back(node);
        if (semi == std::string_view::npos) break;
        start = semi + 1;
      }
    }
    prev_stack_.assign(s);
  }
  if (two_counts) {
    tree_.add_self(node, count, base);
  } else {
    tree_.add_self(node, count);
  }
}

void FoldedReader::read_text(std::string_view text) {
  stats_.bytes += text.size();
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      add_line(text);
      break;
    }
    add_line(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
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
  current_file_ = path == "-" ? "<stdin>" : path;
  line_no_ = 0;
  reset_prefix();
  std::unique_ptr<char[]> buf(new char[kChunkBytes]);
  size_t have = 0;        // bytes of an unfinished line carried over at the start of buf
  bool skipping = false;  // inside a line longer than the buffer, already counted as ignored
  int err = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.get() + have, kChunkBytes - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    stats_.bytes += static_cast<uint64_t>(n);
    size_t len = have + static_cast<size_t>(n);
    if (n == 0) {
      if (have > 0 && !skipping) add_line(std::string_view(buf.get(), have));
      break;
    }
    std::string_view text(buf.get(), len);
    size_t done = 0;
    for (;;) {
      const void* nl = std::memchr(text.data() + done, '\n', len - done);
      if (nl == nullptr) break;
      size_t end = static_cast<const char*>(nl) - text.data();
      if (skipping) {
        skipping = false;  // the rest of the overlong line ends here
      } else {
        add_line(text.substr(done, end - done));
      }
      done = end + 1;
    }
    have = len - done;
    if (have == kChunkBytes) {
      // One line longer than the buffer: no real stack is 4 MiB. It counts as one unparsable
      // line and is skipped up to its newline.
      if (!skipping) {
        ++line_no_;
        ignore_line();
        skipping = true;
      }
      have = 0;
      continue;
    }
    std::memmove(buf.get(), buf.get() + done, have);
  }
  if (fd != STDIN_FILENO) ::close(fd);
  if (err != 0) return fail_errno("cannot read " + path, err);
  return {};
}

}  // namespace hearth::profile
