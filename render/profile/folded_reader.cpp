#include "render/profile/folded_reader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/check.h"
#include "common/digits.h"
#include "render/profile/filters.h"

namespace hearth::profile {
namespace {

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

// Appends to ENDS where each frame of S from byte START on ends: the offset of each ';' after
// START, then S's size. 16 bytes at a time where SSE2 is there (every x86-64).
void append_frame_ends(std::string_view s, size_t start, std::vector<uint32_t>* ends) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = start;
#if defined(__SSE2__)
  const __m128i semi = _mm_set1_epi8(';');
  for (; i + 16 <= n; i += 16) {
    __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, semi)));
    for (; mask != 0; mask &= mask - 1) {
      ends->push_back(static_cast<uint32_t>(i + static_cast<size_t>(std::countr_zero(mask))));
    }
  }
#endif
  for (; i < n; ++i) {
    if (p[i] == ';') ends->push_back(static_cast<uint32_t>(i));
  }
  ends->push_back(static_cast<uint32_t>(n));
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
      // The frames past the shared ones: their names are interned together (the ids are those
      // of one lookup after another), then walked down from NODE.
      scratch_.clear();
      size_t first = prev_ends_.size();
      append_frame_ends(s, start, &prev_ends_);
      for (size_t i = first; i < prev_ends_.size(); ++i) {
        scratch_.push_back(s.substr(start, prev_ends_[i] - start));
        start = prev_ends_[i] + 1;
      }
      if (node == kRoot && options_.strip_thread_ids && is_thread_root(scratch_[0])) {
        renamed_.clear();
        renamed_.push_back('[');
        renamed_.append(thread_name(scratch_[0]));
        renamed_.push_back(']');
        scratch_[0] = renamed_;
      }
      name_ids_.resize(scratch_.size());
      tree_.intern_all(scratch_, name_ids_);
      for (NameId name : name_ids_) {
        node = tree_.child(node, name);
        prev_nodes_.push_back(node);
      }
    }
    prev_stack_.assign(s);
  }
  add_count(node, count, two_counts, base);
}

void FoldedReader::add_count(NodeId node, Count count, bool two_counts, Count base) {
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
  if (gdb_) {
    take_gdb_line(line);
    return;
  }
  if (eu_stack_) {
    ++line_no_;
    eu_stack_->add_line(line);
    return;
  }
  if (perf_) {
    take_perf_line(line);
    return;
  }
  if (!format_known_) {
    if (options_.format == InputFormat::kPerfScript ||
        (options_.format == InputFormat::kAuto && looks_like_perf_script(line))) {
      start_perf_script();
      take_perf_line(line);
      return;
    }
    // eu-stack's frames are gdb's too ("#0  0x… NAME"): its headers come first.
    if (options_.format == InputFormat::kEuStack ||
        (options_.format == InputFormat::kAuto &&
         (is_eu_stack_process_header(line) || is_eu_stack_thread_header(line)))) {
      forget_undecided_lines();
      eu_stack_ = std::make_unique<EuStackFolder>([this](std::string_view folded) {
        add_line(folded);
        --line_no_;  // a thread block's line, not one of the file's
      });
      format_known_ = true;
      ++line_no_;
      eu_stack_->add_line(line);
      return;
    }
    if (options_.format == InputFormat::kGdb ||
        (options_.format == InputFormat::kAuto &&
         (is_gdb_thread_header(line) || is_gdb_frame(line)))) {
      forget_undecided_lines();  // gdb's preamble
      gdb_ = std::make_unique<GdbTextFolder>([this](std::string_view folded) {
        add_line(folded);
        --line_no_;  // a thread block's line, not one of the file's
      });
      format_known_ = true;
      take_gdb_line(line);
      return;
    }
    const uint64_t lines = stats_.lines, ignored = stats_.ignored;
    add_line(line);
    if (stats_.lines > lines || options_.format == InputFormat::kFolded) format_known_ = true;
    ignored_undecided_ += stats_.ignored - ignored;
    return;
  }
  add_line(line);
}

void FoldedReader::take_gdb_line(std::string_view line) {
  ++line_no_;
  gdb_->add_line(line);
}

void FoldedReader::forget_undecided_lines() {
  stats_.ignored -= ignored_undecided_;
  if (stats_.ignored == 0) {
    stats_.first_ignored_line = 0;
    stats_.first_ignored_file.clear();
  }
}

void FoldedReader::start_perf_script() {
  forget_undecided_lines();
  perf_ = std::make_unique<PerfScriptFolder>([this](std::string_view folded, int64_t) {
    add_line(folded);
    --line_no_;  // a sample's line, not one of the file's
  });
  format_known_ = true;
}

void FoldedReader::take_perf_line(std::string_view line) {
  ++line_no_;
  if (!perf_->add_line(line)) ignore_line();
}

void FoldedReader::start_file() {
  format_known_ = options_.format == InputFormat::kFolded;
  ignored_undecided_ = 0;
  gdb_.reset();
  eu_stack_.reset();
  perf_.reset();
}

void FoldedReader::end_file() {
  if (gdb_) {
    gdb_->finish();
    gdb_threads_ += gdb_->threads();
    gdb_.reset();
  }
  if (eu_stack_) {
    eu_stack_->finish();
    eu_stack_threads_ += eu_stack_->threads();
    eu_stack_.reset();
  }
  if (perf_) {
    perf_->finish();
    perf_stats_.samples += perf_->samples();
    perf_stats_.other_samples += perf_->other_event_samples();
    if (perf_stats_.event.empty()) perf_stats_.event = perf_->event();
    if (perf_stats_.other_event.empty()) perf_stats_.other_event = perf_->other_event();
    perf_.reset();
  }
}

void FoldedReader::read_text(std::string_view text) {
  start_file();
  stats_.bytes += text.size();
  while (!text.empty()) {
    size_t nl = text.find('\n');
    take_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  end_file();
}

}  // namespace hearth::profile
