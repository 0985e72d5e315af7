#include "render/diff/diff_model.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string_view>
#include <system_error>
#include <thread>

#include "common/check.h"
#include "render/profile/filters.h"

namespace hearth::diff {
namespace {

using profile::FrameTree;
using profile::kNone;
using profile::kRoot;
using profile::NameId;
using profile::NodeId;

// Copies SRC's paths into DST; thread roots lose their ids. Counts go to NEW's column
// (IS_NEW) or BASE's. Node ids in SRC are increasing from parent to child, so one pass works.
void merge_into(FrameTree& dst, const FrameTree& src, bool is_new) {
  std::vector<NodeId> map(src.size(), kRoot);
  std::vector<NameId> names(src.name_count(), kNone);  // SRC's name -> DST's, once looked up
  std::string renamed;
  for (size_t i = 1; i < src.size(); ++i) {
    const profile::Node& n = src.node(static_cast<NodeId>(i));
    NameId name_id;
    std::string_view name = src.name(n.name);
    if (n.parent == kRoot && profile::is_thread_root(name)) {
      renamed.clear();
      renamed.push_back('[');
      renamed.append(profile::thread_name(name));
      renamed.push_back(']');
      name_id = dst.intern(renamed);
    } else {
      if (names[n.name] == kNone) names[n.name] = dst.intern(name);
      name_id = names[n.name];
    }
    NodeId d = dst.child(map[n.parent], name_id);
    map[i] = d;
    profile::Count self = src.self(static_cast<NodeId>(i));
    if (self.value != 0) {
      dst.add_self(d, is_new ? self : profile::Count{}, is_new ? profile::Count{} : self);
    }
  }
}

Measure measure(profile::Count c1, profile::Count c2, const DiffModel& m) {
  Measure r;
  r.base = c1;
  r.next = c2;
  double x1 = c1.value, x2 = c2.value;
  double n1 = m.base_total.value, n2 = m.new_total.value;
  r.base_share = 100 * x1 / n1;
  r.new_share = 100 * x2 / (m.options.normalize ? n2 : n1);
  r.pp = r.new_share - r.base_share;
  const double u = m.options.per_sample;  // counts per sample: the tests are on samples
  r.z = change_z(x1 / u, n1 / u, x2 / u, n2 / u, m.options.normalize);
  return r;
}

bool is_tested(double base, double next, double min_samples) {
  return base + next > 0 && std::max(base, next) >= min_samples;
}

bool is_tested(const Measure& inclusive, double min_samples) {
  return is_tested(inclusive.base.value, inclusive.next.value, min_samples);
}

// The inclusive measure of a path, with its significance.
Measure path_inclusive(const DiffModel& m, NodeId id) {
  Measure r = measure(m.tree.base_total(id), m.tree.total(id), m);
  r.significant = id != kRoot && is_tested(r, m.options.min_samples * m.options.per_sample) &&
                  std::fabs(r.z) > m.path_z;
  return r;
}

// A + B. Sums over one profile's functions never pass its total, which fits.
profile::Count plus(profile::Count a, profile::Count b) {
  if (a.fractional || b.fractional) return profile::fractional_count(a.value + b.value);
  return profile::whole_count(a.whole + b.whole);
}

double rounded(double pp) {
  return std::nearbyint(pp * 100);
}

// The larger of the significant changes in direction SIGN, or -1 when there is none.
double signed_change(const Item& it, int sign) {
  double best = -1;
  if (it.inclusive.significant && sign * it.inclusive.pp > 0) best = sign * it.inclusive.pp;
  if (it.self.significant && sign * it.self.pp > 0) best = std::max(best, sign * it.self.pp);
  return best;
}

void rank_functions(const DiffModel& m, std::vector<size_t>* idx, const std::vector<double>& key,
                    int sign) {
  std::sort(idx->begin(), idx->end(), [&](size_t a, size_t b) {
    double ka = rounded(key[a]), kb = rounded(key[b]);
    if (ka != kb) return ka > kb;
    double sa = sign * m.functions[a].self.pp, sb = sign * m.functions[b].self.pp;
    if (sa != sb) return sa > sb;
    return m.tree.name(m.functions[a].name) < m.tree.name(m.functions[b].name);
  });
}

}  // namespace

double change_z(double x1, double n1, double x2, double n2, bool normalize) {
  if (!normalize) {
    double v = x1 + x2;
    return v > 0 ? (x2 - x1) / std::sqrt(v) : 0;
  }
  if (!(n1 > 0 && n2 > 0)) return 0;
  double p1 = x1 / n1, p2 = x2 / n2;
  double p = (x1 + x2) / (n1 + n2);
  double var = p * (1 - p) * (1 / n1 + 1 / n2);
  return var > 0 ? (p2 - p1) / std::sqrt(var) : 0;
}

double critical_z(double alpha, size_t tests) {
  if (tests == 0) tests = 1;
  double target = alpha / static_cast<double>(tests);  // per-test two-sided level
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    if (std::erfc(mid / std::sqrt(2.0)) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

FrameTree empty_merged_tree() {
  FrameTree t(profile::Merge::kAll);
  t.add_self(kRoot, {}, {});  // differential from the start: base counts kept apart
  return t;
}

profile::ReadOptions merged_read_options(bool base) {
  profile::ReadOptions o;
  o.column = base ? profile::Column::kBase : profile::Column::kNew;
  o.strip_thread_ids = true;
  return o;
}

bool has_samples(const FrameTree& merged, bool base) {
  for (size_t i = 0; i < merged.size(); ++i) {
    NodeId id = static_cast<NodeId>(i);
    if ((base ? merged.base_self(id) : merged.self(id)).value > 0) return true;
  }
  return false;
}

DiffModel build_diff(const FrameTree& base, const FrameTree& next, const DiffOptions& options) {
  FrameTree t = empty_merged_tree();
  merge_into(t, base, false);
  merge_into(t, next, true);
  t.finalize();
  return build_diff_merged(std::move(t), options);
}

DiffModel build_diff_merged(FrameTree merged, const DiffOptions& options) {
  DiffModel m;
  m.options = options;
  m.tree = std::move(merged);
  const FrameTree& t = m.tree;
  m.base_total = t.base_total(kRoot);
  m.new_total = t.total();
  HEARTH_CHECK(m.base_total.value > 0 && m.new_total.value > 0);

  // Paths: every node of the merged tree but the root is a path. They are tested on a second
  // thread while this one adds up the functions (each writes only its own fields of M).
  auto test_paths = [&m, &t, &options] {
    for (size_t i = 1; i < t.size(); ++i) {
      NodeId id = static_cast<NodeId>(i);
      m.path_tests += is_tested(t.base_total(id).value, t.total(id).value,
                                options.min_samples * options.per_sample)
                          ? 2
                          : 0;
    }
    m.path_z = critical_z(options.alpha, m.path_tests);
    for (size_t i = 1; i < t.size(); ++i) {
      NodeId id = static_cast<NodeId>(i);
      if (path_inclusive(m, id).significant) m.significant_nodes.push_back(id);
    }
  };
  std::exception_ptr paths_failed;
  std::thread paths;
  try {
    paths = std::thread([&] {
      try {
        test_paths();
      } catch (...) {
        paths_failed = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    test_paths();  // no thread to be had
  }
  struct Joiner {
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{paths};

  // Functions: inclusive counts each sample once per name, however often the name recurs on
  // its stack, so a depth-first walk counts a node only when no ancestor has the same name.
  size_t names = t.name_count();
  std::vector<profile::Count> bi(names), ni(names), bs(names), ns(names);
  std::vector<uint32_t> active(names);
  std::vector<uint8_t> seen(names);
  struct Step {
    NodeId node;
    bool leave;
  };
  std::vector<Step> todo;
  for (NodeId c = t.node(kRoot).first_child; c != kNone; c = t.node(c).next_sibling) {
    todo.push_back({c, false});
  }
  while (!todo.empty()) {
    Step s = todo.back();
    todo.pop_back();
    const profile::Node& n = t.node(s.node);
    if (s.leave) {
      --active[n.name];
      continue;
    }
    if (active[n.name] == 0) {
      bi[n.name] = plus(bi[n.name], t.base_total(s.node));
      ni[n.name] = plus(ni[n.name], t.total(s.node));
    }
    bs[n.name] = plus(bs[n.name], t.base_self(s.node));
    ns[n.name] = plus(ns[n.name], t.self(s.node));
    seen[n.name] = 1;
    ++active[n.name];
    todo.push_back({s.node, true});
    for (NodeId c = n.first_child; c != kNone; c = t.node(c).next_sibling) {
      todo.push_back({c, false});
    }
  }
  for (size_t k = 0; k < names; ++k) {
    if (!seen[k]) continue;
    Item it;
    it.name = static_cast<NameId>(k);
    it.inclusive = measure(bi[k], ni[k], m);
    it.self = measure(bs[k], ns[k], m);
    it.tested = is_tested(it.inclusive, options.min_samples * options.per_sample);
    m.function_tests += it.tested ? 2 : 0;
    m.functions.push_back(it);
  }
  std::sort(m.functions.begin(), m.functions.end(),
            [&](const Item& a, const Item& b) { return t.name(a.name) < t.name(b.name); });

  // Bonferroni within each family: the chance that any test of the family comes out
  // significant between two samples of one distribution is at most alpha.
  m.function_z = critical_z(options.alpha, m.function_tests);
  for (Item& it : m.functions) {
    it.inclusive.significant = it.tested && std::fabs(it.inclusive.z) > m.function_z;
    it.self.significant = it.tested && std::fabs(it.self.z) > m.function_z;
  }
  if (paths.joinable()) paths.join();
  if (paths_failed) std::rethrow_exception(paths_failed);
  return m;
}

Item path_item(const DiffModel& m, NodeId id) {
  const FrameTree& t = m.tree;
  Item it;
  it.name = t.node(id).name;
  it.node = id;
  it.inclusive = measure(t.base_total(id), t.total(id), m);
  it.self = measure(t.base_self(id), t.self(id), m);
  it.tested = id != kRoot && is_tested(it.inclusive, m.options.min_samples * m.options.per_sample);
  it.inclusive.significant = it.tested && std::fabs(it.inclusive.z) > m.path_z;
  it.self.significant = it.tested && std::fabs(it.self.z) > m.path_z;
  return it;
}

std::string path_name(const DiffModel& m, NodeId node) {
  std::vector<std::string_view> parts;
  for (NodeId n = node; n != kRoot && n != kNone; n = m.tree.node(n).parent) {
    parts.push_back(m.tree.name(m.tree.node(n).name));
  }
  std::string out;
  for (size_t i = parts.size(); i-- > 0;) {
    out.append(parts[i]);
    if (i > 0) out.push_back(';');
  }
  return out;
}

std::vector<size_t> regressions(const DiffModel& m, double threshold_pp) {
  std::vector<size_t> out;
  std::vector<double> key(m.functions.size(), -1);
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const Item& it = m.functions[i];
    if (it.inclusive.significant && it.inclusive.pp > threshold_pp) key[i] = it.inclusive.pp;
    if (it.self.significant && it.self.pp > threshold_pp) key[i] = std::max(key[i], it.self.pp);
    if (key[i] > 0) out.push_back(i);
  }
  rank_functions(m, &out, key, 1);
  return out;
}

std::vector<size_t> significant_functions(const DiffModel& m, int sign) {
  std::vector<size_t> out;
  std::vector<double> key(m.functions.size());
  for (size_t i = 0; i < m.functions.size(); ++i) {
    key[i] = signed_change(m.functions[i], sign);
    if (key[i] > 0) out.push_back(i);
  }
  rank_functions(m, &out, key, sign);
  return out;
}

std::vector<NodeId> significant_paths(const DiffModel& m, int sign) {
  struct Row {
    NodeId node;
    double inclusive_pp;
    double self_pp;
  };
  std::vector<Row> rows;
  for (NodeId id : m.significant_nodes) {
    Item it = path_item(m, id);
    if (!(sign * it.inclusive.pp > 0)) continue;
    // A change carried whole by one child is shown there, deeper, and not repeated here.
    bool carried = false;
    for (NodeId c = m.tree.node(id).first_child; c != kNone && !carried;
         c = m.tree.node(c).next_sibling) {
      if (!std::binary_search(m.significant_nodes.begin(), m.significant_nodes.end(), c)) continue;
      carried = rounded(path_inclusive(m, c).pp) == rounded(it.inclusive.pp);
    }
    if (!carried) rows.push_back({id, it.inclusive.pp, it.self.pp});
  }
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    double ka = rounded(sign * a.inclusive_pp), kb = rounded(sign * b.inclusive_pp);
    if (ka != kb) return ka > kb;
    double sa = sign * a.self_pp, sb = sign * b.self_pp;
    if (sa != sb) return sa > sb;
    return a.node < b.node;
  });
  std::vector<NodeId> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back(r.node);
  return out;
}

std::vector<NodeId> only_in_one(const DiffModel& m, bool added) {
  const FrameTree& t = m.tree;
  auto here = [&](NodeId n) { return (added ? t.total(n) : t.base_total(n)).value; };
  auto there = [&](NodeId n) { return (added ? t.base_total(n) : t.total(n)).value; };
  std::vector<NodeId> out;
  for (size_t i = 1; i < t.size(); ++i) {
    NodeId id = static_cast<NodeId>(i);
    NodeId parent = t.node(id).parent;
    if (here(id) > 0 && there(id) == 0 && (parent == kRoot || there(parent) > 0)) {
      out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end(), [&](NodeId a, NodeId b) {
    if (here(a) != here(b)) return here(a) > here(b);
    return a < b;
  });
  return out;
}

std::vector<size_t> functions_only_in_one(const DiffModel& m, bool added) {
  std::vector<size_t> out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const Measure& in = m.functions[i].inclusive;
    double next = in.next.value, base = in.base.value;
    if (added ? (next > 0 && base == 0) : (base > 0 && next == 0)) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    const Measure& x = m.functions[a].inclusive;
    const Measure& y = m.functions[b].inclusive;
    return added ? x.next.value > y.next.value : x.base.value > y.base.value;
  });
  return out;
}

}  // namespace hearth::diff
