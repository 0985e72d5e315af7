// Fuzz target for the folded-stack path: reader -> FrameTree -> filters -> writer -> reader,
// plus the label and XML helpers on every frame name.
//
// Input: the first byte picks the mode (bit 0: Merge::kLastChild, bit 1: --reverse, bits 2-7:
// the label width in characters, and twice it a line length limit for a second reading); the
// rest is folded text. Seeds in corpus/folded start with a digit ('0'..'3') and a newline, so
// they stay readable.
//
// Invariants checked (abort with context on failure):
// - whole counts are exact: the total is the sum of the self counts, without rounding;
// - a line length limit skips exactly the lines over it: the tree is the one read from the
//   text without them;
// - read into one column of a differential tree (as `hearth diff` reads BASE and NEW), the
//   text gives the same nodes with the same counts in that column, and zeros in the other;
// - filters and the folded round trip keep the total (whole counts exactly);
// - our own folded output parses without ignored lines;
// - to_folded is a fixed point: writing what we read back gives the same text (for flame
//   charts and --reverse only from the second round on, see below);
// - labels fit, dropping parameters is idempotent, shortening never lengthens a name,
//   escaped text is valid UTF-8 without '<';
// - read from a file by two threads (read_file's path for big files, here for any size), the
//   text gives read_text's tree, node and name ids included, and its stats (unless its first
//   bytes make it a pprof profile or a speedscope file to read_file).
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "render/flame/names.h"
#include "render/profile/filters.h"
#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "render/profile/pprof_reader.h"
#include "render/profile/speedscope_reader.h"
#include "render/svg/xml.h"
#include "tests/support/strict_utf8.h"

namespace {

namespace flame = hearth::flame;
namespace profile = hearth::profile;
namespace svg = hearth::svg;

[[noreturn]] void die(const char* what, std::string_view a = {}, std::string_view b = {}) {
  std::fprintf(stderr, "folded_fuzz: %s\n--- a (%zu bytes)\n%.*s\n--- b (%zu bytes)\n%.*s\n", what,
               a.size(), static_cast<int>(a.size()), a.data(), b.size(), static_cast<int>(b.size()),
               b.data());
  std::abort();
}

// Whole counts exactly. Fractional ones are non-negative, so sums in a different order differ
// by rounding only.
bool same_total(profile::Count a, profile::Count b) {
  if (!a.fractional && !b.fractional) return a.whole == b.whole;
  if (a.value == b.value) return true;
  return std::fabs(a.value - b.value) <= 1e-9 * std::fmax(std::fabs(a.value), std::fabs(b.value));
}

profile::FrameTree parse(std::string_view text, profile::Merge merge, bool reverse,
                         profile::ReadStats* stats,
                         size_t max_line_bytes = profile::kMaxLineBytes) {
  profile::FrameTree tree(merge);
  profile::FoldedReader reader(tree, {.reverse = reverse, .max_line_bytes = max_line_bytes});
  reader.read_text(text);
  tree.finalize();
  *stats = reader.stats();
  return tree;
}

void check_name(std::string_view name, size_t chars) {
  std::string_view bare = flame::strip_annotation(name);
  std::string params = flame::drop_parameters(bare);
  if (flame::drop_parameters(params) != params) die("drop_parameters not idempotent", bare);
  // Not idempotent in general (an unbalanced ')' swallowed by a template group can make the
  // parentheses balance), and it need not be: both sides shorten the full name. It never
  // lengthens a name.
  std::string templates = flame::drop_template_arguments(bare);
  if (flame::code_points(templates) > flame::code_points(bare)) {
    die("drop_template_arguments made the name longer", bare, templates);
  }
  std::string label =
      flame::fit_label(bare, static_cast<double>(chars) * 12 * 0.59 + 0.01, 12, 0.59);
  if (chars < 3 && !label.empty()) die("label where none fits", bare, label);
  if (flame::code_points(label) > chars) die("label too long", bare, label);
  for (std::string_view s : {name, std::string_view(label)}) {
    std::string x = svg::escaped(s);
    if (!hearth::test_support::strict_utf8(x)) die("escaped text is not UTF-8", s, x);
    if (x.find('<') != std::string::npos) die("raw '<' in escaped text", s, x);
  }
}

// TEXT read by two threads from a file (a memfd, so nothing is written to disk) against
// read_text: the same tree, id for id, and the same stats.
void check_two_threads(std::string_view text, profile::Merge merge, bool reverse) {
  // read_file tells a pprof profile or a speedscope file by its first 4 bytes, which read_text
  // (folded text only) does not look at: nothing to compare for those.
  const std::string_view head = text.substr(0, 4);
  if (profile::looks_like_pprof(head) || profile::looks_like_speedscope(head)) return;
  int fd = memfd_create("folded_fuzz", MFD_CLOEXEC);
  if (fd < 0) return;
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      return;
    }
    done += static_cast<size_t>(n);
  }
  profile::FrameTree one(merge), two(merge);
  profile::FoldedReader one_reader(one, {.reverse = reverse});
  one_reader.read_text(text);
  profile::FoldedReader two_reader(
      two, {.reverse = reverse, .parallel_min_bytes = 0, .threads = 2});
  hearth::Result<void> read = two_reader.read_file("/proc/self/fd/" + std::to_string(fd));
  ::close(fd);
  if (!read) die("two threads: the file could not be read", text, read.error().message);
  if (one.size() != two.size() || one.name_count() != two.name_count() ||
      one.fractional() != two.fractional() || one.differential() != two.differential() ||
      one.overflowed() != two.overflowed()) {
    die("two threads: another tree", text);
  }
  for (profile::NameId i = 0; i < one.name_count(); ++i) {
    if (one.name(i) != two.name(i)) die("two threads: other name ids", text);
  }
  for (profile::NodeId i = 0; i < one.size(); ++i) {
    const profile::Node& a = one.node(i);
    const profile::Node& b = two.node(i);
    if (a.name != b.name || a.parent != b.parent || a.first_child != b.first_child ||
        a.next_sibling != b.next_sibling || one.self(i).whole != two.self(i).whole ||
        one.self(i).value != two.self(i).value ||
        one.base_self(i).value != two.base_self(i).value) {
      die("two threads: other nodes or counts", text);
    }
  }
  const profile::ReadStats& x = one_reader.stats();
  const profile::ReadStats& y = two_reader.stats();
  if (x.lines != y.lines || x.ignored != y.ignored ||
      x.first_ignored_line != y.first_ignored_line || x.overlong != y.overlong ||
      x.first_overlong_line != y.first_overlong_line || x.overflow_line != y.overflow_line ||
      x.bytes != y.bytes) {
    die("two threads: other stats", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const profile::Merge merge = (mode & 1) ? profile::Merge::kLastChild : profile::Merge::kAll;
  const bool reverse = (mode & 2) != 0;
  const size_t chars = mode >> 2;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  profile::ReadStats stats;
  profile::FrameTree tree = parse(text, merge, reverse, &stats);
  for (profile::NameId id = 0; id < tree.name_count(); ++id) check_name(tree.name(id), chars);
  check_two_threads(text, merge, reverse);

  // The same text with a line length limit, against the text without the lines over it.
  const size_t limit = 2 * chars;
  std::string kept;
  uint64_t over = 0;
  for (std::string_view rest = text; !rest.empty();) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    if (line.size() > limit) {
      ++over;
    } else {
      kept.append(line).push_back('\n');
    }
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  profile::ReadStats limited_stats, kept_stats;
  profile::FrameTree limited = parse(text, merge, reverse, &limited_stats, limit);
  profile::FrameTree reference = parse(kept, merge, reverse, &kept_stats);
  if (limited_stats.overlong != over) die("line limit: wrong count of lines over it", text);
  if (limited_stats.lines != kept_stats.lines || limited_stats.ignored != kept_stats.ignored ||
      profile::to_folded(limited) != profile::to_folded(reference)) {
    die("line limit: not the tree of the text without the long lines", text, kept);
  }
  if ((limited_stats.overflow_line != 0) != (kept_stats.overflow_line != 0)) {
    die("line limit: overflow differs", text, kept);
  }

  if (stats.overflow_line != 0) return 0;  // the counts are wrong from here; the CLI stops
  for (profile::Column column : {profile::Column::kBase, profile::Column::kNew}) {
    profile::FrameTree two(merge);
    two.add_self(profile::kRoot, {}, {});  // differential before the first line
    profile::FoldedReader reader(two, {.reverse = reverse, .column = column});
    reader.read_text(text);
    two.finalize();
    bool base = column == profile::Column::kBase;
    if (two.size() != tree.size() || two.fractional() != tree.fractional()) {
      die("column reading: another tree", text);
    }
    for (profile::NodeId i = 0; i < tree.size(); ++i) {
      profile::Count here = base ? two.base_self(i) : two.self(i);
      profile::Count other = base ? two.self(i) : two.base_self(i);
      if (two.node(i).name != tree.node(i).name || two.node(i).parent != tree.node(i).parent ||
          here.whole != tree.self(i).whole || here.value != tree.self(i).value ||
          other.value != 0) {
        die("column reading: other counts", text);
      }
    }
  }
  // Whole counts are exact: the total is the sum of the self counts (no rounding anywhere).
  if (!tree.fractional()) {
    uint64_t sum = 0, base_sum = 0;
    bool wrapped = false;  // the sum passed 2^64 - 1, which the reader did not say
    for (profile::NodeId i = 0; i < tree.size(); ++i) {
      wrapped |= __builtin_add_overflow(sum, tree.self(i).whole, &sum);
      wrapped |= __builtin_add_overflow(base_sum, tree.base_self(i).whole, &base_sum);
    }
    if (wrapped || sum != tree.total().whole) {
      die("whole total is not the sum of the self counts", text);
    }
    if (base_sum != tree.base_total(profile::kRoot).whole) {
      die("whole base total is not the sum of the base self counts", text);
    }
  }

  profile::FilterOptions options;
  options.group_threads = true;
  profile::FrameTree grouped = profile::apply_filters(tree, options);
  if (!same_total(grouped.total(), tree.total())) die("group_threads changed the total");

  // Round 1: what we write must read back without loss.
  std::string first = profile::to_folded(grouped);
  profile::FrameTree again = parse(first, profile::Merge::kAll, false, &stats);
  if (stats.ignored != 0) die("our folded output has unparsable lines", first);
  if (stats.overflow_line != 0) {
    // --reverse can make a leaf like "x 99999999999999999999" that reads back as a second
    // count, too large. Otherwise we never write one.
    if (!reverse) die("our folded output has a count too large", first);
    return 0;
  }
  if (!same_total(again.total(), grouped.total())) die("round trip changed the total", first);
  std::string second = profile::to_folded(again);
  // A flame chart may write one path several times (merged on reading), and --reverse can
  // make a leaf like "x 5" that reads back as a count: compare from the second round on.
  if (merge == profile::Merge::kAll && !reverse && second != first) {
    die("to_folded is not a fixed point", first, second);
  }
  // Round 2: always a fixed point.
  profile::FrameTree third = parse(second, profile::Merge::kAll, false, &stats);
  if (stats.ignored != 0) die("our folded output has unparsable lines (round 2)", second);
  if (profile::to_folded(third) != second) {
    die("to_folded is not a fixed point (round 2)", second, profile::to_folded(third));
  }
  return 0;
}
