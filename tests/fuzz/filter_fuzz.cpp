// Fuzz target for the filter path of `hearth flame --grep/--only-threads/--group-threads`:
// pattern text -> Pattern::compile -> apply_filters over a tree read from folded text.
//
// Input: "MODE\nGREP\nONLY\nFOLDED...". MODE's low 4 bits (so the digits '0'..'9' and ':'..'?'
// in readable seeds): bit 0 uses GREP, bit 1 uses ONLY as --only-threads, bit 2 adds
// --group-threads, bit 3 reads as a flame chart (Merge::kLastChild). Seeds in corpus/filter.
//
// Invariants checked (abort with context on failure):
// - compiling any bytes returns a pattern or a one-line error, and never crashes;
// - the filtered total is what a direct walk of the tree says it must be: the counts of the
//   stacks whose thread root matches ONLY and some frame of which matches GREP (base counts
//   too for two-count input); grouping threads never changes it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/pattern.h"
#include "render/profile/filters.h"
#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace {

namespace profile = hearth::profile;

[[noreturn]] void die(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "filter_fuzz: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// Whole counts exactly; fractional ones up to rounding (sums in another order).
bool same_total(profile::Count a, profile::Count b) {
  if (!a.fractional && !b.fractional) return a.whole == b.whole;
  if (a.value == b.value) return true;
  return std::fabs(a.value - b.value) <= 1e-9 * std::fmax(std::fabs(a.value), std::fabs(b.value));
}

profile::Count plus(profile::Count a, profile::Count b) {
  if (a.fractional || b.fractional) return profile::fractional_count(a.value + b.value);
  return profile::whole_count(a.whole + b.whole);  // the tree's total fits, so parts do
}

// The next line of *TEXT (without its '\n'); *TEXT keeps what follows.
std::string_view take_line(std::string_view* text) {
  size_t nl = text->find('\n');
  std::string_view line = text->substr(0, nl);
  *text = nl == std::string_view::npos ? std::string_view() : text->substr(nl + 1);
  return line;
}

// A pattern for the filters, or nullopt when the text does not compile (checked: one line).
std::optional<hearth::Pattern> compile(std::string_view text) {
  hearth::Result<hearth::Pattern> p = hearth::Pattern::compile(text);
  if (p) {
    if (p->text() != text) die("Pattern::text() differs from the compiled text", text);
    return std::move(*p);
  }
  const std::string& why = p.error().message;
  if (why.empty() || why.find('\n') != std::string::npos) die("not a one-line error", why);
  return std::nullopt;
}

// What the filters must keep, from a walk of the tree (node ids grow from parents to children).
struct Expected {
  profile::Count total;
  profile::Count base_total;
};

Expected expected_totals(const profile::FrameTree& tree, const profile::FilterOptions& o) {
  std::vector<uint8_t> path_hit(tree.size(), 0);   // some frame from the root to here matches
  std::vector<uint8_t> thread_ok(tree.size(), 1);  // the depth-1 ancestor matches ONLY
  Expected e;
  for (profile::NodeId i = 1; i < tree.size(); ++i) {
    const profile::Node& n = tree.node(i);
    std::string_view name = tree.name(n.name);
    path_hit[i] = path_hit[n.parent] || (o.grep && o.grep->search(name));
    thread_ok[i] = n.parent == profile::kRoot ? !o.only_threads || o.only_threads->search(name)
                                              : thread_ok[n.parent];
    if (thread_ok[i] && (!o.grep || path_hit[i])) {
      e.total = plus(e.total, tree.self(i));
      e.base_total = plus(e.base_total, tree.base_self(i));
    }
  }
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] & 0x0f;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  take_line(&text);  // the rest of MODE's line
  std::string_view grep = take_line(&text);
  std::string_view only = take_line(&text);

  profile::FilterOptions o;
  if (mode & 1) o.grep = compile(grep);
  if (mode & 2) o.only_threads = compile(only);
  o.group_threads = (mode & 4) != 0;
  if (!profile::filters_active(o)) return 0;

  profile::FrameTree tree((mode & 8) ? profile::Merge::kLastChild : profile::Merge::kAll);
  profile::FoldedReader reader(tree, {});
  reader.read_text(text);
  tree.finalize();
  if (reader.stats().overflow_line != 0) return 0;  // the CLI stops here

  Expected want = expected_totals(tree, o);
  profile::FrameTree out = profile::apply_filters(tree, o);
  if (!same_total(out.total(), want.total)) die("filtered total differs from the tree walk");
  if (out.differential() && !same_total(out.base_total(profile::kRoot), want.base_total)) {
    die("filtered base total differs from the tree walk");
  }
  if (o.group_threads) {
    o.group_threads = false;
    if (!same_total(profile::apply_filters(tree, o).total(), out.total())) {
      die("--group-threads changed the filtered total");
    }
  }
  return 0;
}
