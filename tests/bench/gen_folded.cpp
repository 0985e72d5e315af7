// gen_folded: writes synthetic folded stacks (`root;...;leaf COUNT`, root first) to stdout, for
// benchmarking `hearth flame` against flamegraph.pl. Not part of any test.
//
//   gen_folded --stacks N [--seed S] [--functions F] [--shape narrow|broad] [--unsorted]
//
// The profile is shaped like one from a C++ server: thread roots from a handful of pools
// (`[worker-12 tid=4213]`), a fixed start-up chain per pool, then a walk down a layered call
// graph of F functions with long C++ names (namespaces, templates, parameter lists, lambdas,
// operators), often ending in a libc + kernel tail. Callees are picked with Zipf weights, and
// most stacks are a variation of an earlier one (another leaf, other last few calls, another
// thread), so stacks share prefixes as in real profiles (~5 new tree nodes per stack).
// Depth 10-60, mean ~33; lines ~1.8 KB (100k stacks ~180 MB). Exactly N unique stacks; counts
// are Zipf-distributed (P(count >= k) = 1/k). Lines are sorted, as stackcollapse-*.pl writes
// them, unless --unsorted. The output depends only on the arguments, on every platform and
// compiler: own PRNG, no std:: distributions.
//
// --shape broad (the default is narrow, described above) imitates a server with many distinct
// call paths: 30,000 functions, of which every function on one level in four (and 5% of the
// rest) is a dispatcher calling hundreds to a thousand others, half the time its hot one and
// else any alike; 256 entry points per thread pool; hot threads; more new walks, and derived
// stacks that mostly branch off right below a dispatcher on their parent's walk. Same names,
// depth ~35, lines ~1.8 KB, but ~22 new tree nodes per stack (2.2M nodes at 100k stacks) and
// node fan-outs in the hundreds at several depths (4-10; at 100k stacks up to ~880, 86 nodes
// with 100 or more children). Narrow output is unchanged by the option (byte for byte).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gen_vocabulary.h"

using namespace gen;

namespace {

enum class TreeShape { kNarrow, kBroad };

struct Options {
  uint64_t stacks = 10000;
  uint64_t seed = 1;
  uint32_t functions = 0;  // 0: the shape's default
  TreeShape shape = TreeShape::kNarrow;
  bool sorted = true;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "gen_folded: %s\n"
               "usage: gen_folded --stacks N [--seed S] [--functions F] [--shape narrow|broad]"
               " [--unsorted]\n",
               why);
  std::exit(2);
}

Options parse_args(int argc, char** argv) {
  Options o;
  auto number = [&](int& i) {
    if (i + 1 >= argc) usage("missing value");
    const char* s = argv[++i];
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s, s + std::strlen(s), v);
    if (ec != std::errc() || *end != '\0') usage("not a number");
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--stacks") {
      o.stacks = number(i);
    } else if (a == "--seed") {
      o.seed = number(i);
    } else if (a == "--functions") {
      o.functions = static_cast<uint32_t>(number(i));
    } else if (a == "--shape") {
      if (i + 1 >= argc) usage("missing value");
      const std::string_view v = argv[++i];
      if (v == "narrow") {
        o.shape = TreeShape::kNarrow;
      } else if (v == "broad") {
        o.shape = TreeShape::kBroad;
      } else {
        usage("--shape must be narrow or broad");
      }
    } else if (a == "--unsorted") {
      o.sorted = false;
    } else {
      usage("unknown argument");
    }
  }
  if (o.functions == 0) o.functions = o.shape == TreeShape::kBroad ? 30000 : 4000;
  if (o.functions < 200) usage("--functions must be at least 200");
  return o;
}

constexpr uint32_t kLevels = 80;    // depth layers of the call graph
constexpr uint32_t kMinDepth = 10;  // frames per stack, thread root included
constexpr uint32_t kMaxDepth = 60;
constexpr int64_t kMeanDepth = 36;  // the realised mean is about 1 less
constexpr uint32_t kNoTail = UINT32_MAX;

// Interns names; ids are reassigned in lexicographic order once all names are known.
class NameTable {
 public:
  uint32_t add(std::string name) {
    auto [it, inserted] = index_.try_emplace(std::move(name), names_.size());
    if (inserted) names_.push_back(it->first);
    return it->second;
  }
  // Sorts the names; returns old id -> new id.
  std::vector<uint32_t> sort() {
    std::vector<uint32_t> order(names_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return names_[a] < names_[b]; });
    std::vector<uint32_t> remap(names_.size());
    std::vector<std::string> sorted(names_.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
      remap[order[i]] = i;
      sorted[i] = std::move(names_[order[i]]);
    }
    names_ = std::move(sorted);
    index_.clear();
    return remap;
  }
  const std::string& operator[](uint32_t id) const { return names_[id]; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> index_;
};

struct Node {
  uint32_t name;  // id in the NameTable
  uint32_t level;
  std::vector<uint32_t> callees;  // node indices, hottest first
};

struct PoolIds {
  std::vector<uint32_t> threads;  // thread root frames
  std::vector<uint32_t> chain;    // start-up frames below the root
  std::vector<uint32_t> entries;  // level-0 nodes, hottest first
  uint32_t weight;
};

struct TailIds {
  std::vector<uint32_t> frames;
  uint32_t weight;
};

// One stack before it is spelled out: root, start-up chain, walk, tail.
struct Shape {
  uint32_t pool;
  uint32_t thread;
  uint64_t walk_begin;  // into Generator::walks_
  uint32_t walk_len;
  uint32_t tail;  // kNoTail or an index into tails
  uint32_t tail_len;
};

class Generator {
 public:
  Generator(const Options& opt, Rng& rng) : rng_(rng), broad_(opt.shape == TreeShape::kBroad) {
    build_graph(opt.functions);
    build_pools();
    build_tails();
    const std::vector<uint32_t> remap = names_.sort();
    for (Node& n : nodes_) n.name = remap[n.name];
    for (PoolIds& p : pools_) {
      for (uint32_t& id : p.threads) id = remap[id];
      for (uint32_t& id : p.chain) id = remap[id];
    }
    for (TailIds& t : tails_) {
      for (uint32_t& id : t.frames) id = remap[id];
    }
  }

  const NameTable& names() const { return names_; }

  // A new candidate stack (possibly a duplicate of an earlier one) as frame ids, root first.
  // Most stacks are variations of an earlier one, which gives the shared prefixes of a real
  // profile: the same path on another thread, another leaf, or a different last few calls.
  void next(std::vector<uint32_t>& ids) {
    pending_mark_ = walks_.size();
    const double fresh_share = broad_ ? kBroadFreshShare : kFreshShare;
    pending_ = shapes_.size() < kFreshFirst || rng_.chance(fresh_share) ? fresh() : derive();
    spell(pending_, ids);
  }
  // Keeps the last stack from next() as a parent for later ones.
  void accept() { shapes_.push_back(pending_); }
  // Drops the last stack from next() (a duplicate).
  void reject() { walks_.resize(pending_mark_); }

 private:
  static constexpr double kFreshShare = 0.02;  // stacks that start a new walk from a thread root
  static constexpr size_t kFreshFirst = 100;   // and the first ones, so no single one dominates
  static constexpr double kBroadFreshShare = 0.25;
  static constexpr uint32_t kBroadEntries = 256;  // level-0 entry points per pool (narrow: 8)

  // Index in [0, n) with weight 1/(i+1), like Rng::zipf, but O(log n) from a cached table of
  // cumulative weights: for the long callee lists of --shape broad.
  uint32_t long_tail(uint32_t n) {
    std::vector<double>& cum = cumulative_[n];
    if (cum.empty()) {
      double total = 0;
      for (uint32_t i = 0; i < n; ++i) cum.push_back(total += 1.0 / (i + 1));
    }
    const double u = rng_.unit() * cum.back();
    const auto i = static_cast<uint32_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin());
    return std::min(i, n - 1);
  }
  uint32_t pick_hot(uint32_t n) { return broad_ ? long_tail(n) : rng_.zipf(n); }
  static constexpr uint32_t kDispatcher = 200;  // callees: a dispatcher
  // A dispatcher's callee: its hot one half the time, else any of them alike.
  uint32_t dispatch(uint32_t n) { return rng_.chance(0.5) ? 0 : rng_.below(n); }

  void build_graph(uint32_t functions) {
    // Node i sits at level i * kLevels / F; callees come mostly from the next level, sometimes
    // from further down (shared helpers) or the same level (recursion-like).
    NameMaker maker(rng_);
    nodes_.resize(functions);
    by_level_.resize(kLevels);
    for (uint32_t i = 0; i < functions; ++i) {
      nodes_[i].name = names_.add(maker.make());
      nodes_[i].level = static_cast<uint32_t>(uint64_t{i} * kLevels / functions);
      by_level_[nodes_[i].level].push_back(i);
    }
    if (broad_) {
      add_broad_callees();
      return;
    }
    for (uint32_t i = 0; i < functions; ++i) {
      Node& n = nodes_[i];
      const uint32_t fanout = 2 + rng_.below(5);
      for (uint32_t k = 0; k < fanout; ++k) {
        const uint32_t r = rng_.below(100);
        const uint32_t step = r < 75 ? 1 : r < 87 ? 2 : r < 92 ? 0 : 3 + rng_.below(10);
        const auto& candidates = by_level_[std::min(n.level + step, kLevels - 1)];
        const uint32_t c = candidates[rng_.below(static_cast<uint32_t>(candidates.size()))];
        if (c != i && std::find(n.callees.begin(), n.callees.end(), c) == n.callees.end()) {
          n.callees.push_back(c);
        }
      }
      if (n.callees.empty()) n.callees.push_back(by_level_[std::min(n.level + 1, kLevels - 1)][0]);
    }
  }

  // Callees for --shape broad: most functions call a few others, a quarter call dozens, and
  // one in twenty is a dispatcher calling hundreds to thousands (up to 1,999 picks, fewer
  // after duplicates: a level holds F / kLevels functions).
  void add_broad_callees() {
    const auto functions = static_cast<uint32_t>(nodes_.size());
    std::vector<uint32_t> picked_by(functions, UINT32_MAX);  // the caller that last picked it
    for (uint32_t i = 0; i < functions; ++i) {
      Node& n = nodes_[i];
      const uint32_t r = rng_.below(100);
      const bool dispatcher = r < 5 || n.level % 4 == 1;
      const uint32_t fanout = dispatcher ? 600 + rng_.below(2400)
                              : r < 30   ? 20 + rng_.below(80)
                                         : 2 + rng_.below(6);
      for (uint32_t k = 0; k < fanout; ++k) {
        const uint32_t s = rng_.below(100);
        const uint32_t step = dispatcher ? 1 + rng_.below(4)
                              : s < 70   ? 1
                              : s < 85   ? 2
                              : s < 90   ? 0
                                         : 3 + rng_.below(10);
        const auto& candidates = by_level_[std::min(n.level + step, kLevels - 1)];
        const uint32_t c = candidates[rng_.below(static_cast<uint32_t>(candidates.size()))];
        if (c != i && picked_by[c] != i) {
          picked_by[c] = i;
          n.callees.push_back(c);
        }
      }
      if (n.callees.empty()) n.callees.push_back(by_level_[std::min(n.level + 1, kLevels - 1)][0]);
    }
  }

  void build_pools() {
    uint32_t tid = 4200;
    for (const Pool& p : make_pools()) {
      PoolIds ids;
      for (uint32_t t = 0; t < p.threads; ++t) {
        std::string root = "[";  // appends, not operator+: g++ 12 warns falsely (-Wrestrict)
        root += p.name;
        if (p.threads > 1) {
          root += '-';
          root += std::to_string(t);
        }
        root += " tid=";
        root += std::to_string(tid++);
        root += ']';
        ids.threads.push_back(names_.add(root));
      }
      for (std::string_view f : p.chain) ids.chain.push_back(names_.add(std::string(f)));
      const auto& level0 = by_level_[0];
      for (uint32_t k = 0, entries = broad_ ? kBroadEntries : 8; k < entries; ++k) {
        ids.entries.push_back(level0[rng_.below(static_cast<uint32_t>(level0.size()))]);
      }
      ids.weight = p.weight;
      pool_weight_total_ += p.weight;
      pools_.push_back(std::move(ids));
    }
  }

  void build_tails() {
    for (const Tail& t : make_tails()) {
      TailIds ids{{}, t.weight};
      for (std::string_view f : t.frames) ids.frames.push_back(names_.add(std::string(f)));
      tail_weight_total_ += t.weight;
      tails_.push_back(std::move(ids));
    }
  }

  template <class T>
  uint32_t weighted(const std::vector<T>& items, uint32_t total) {
    uint32_t r = rng_.below(total);
    for (uint32_t i = 0; i < items.size(); ++i) {
      if (r < items[i].weight) return i;
      r -= items[i].weight;
    }
    return static_cast<uint32_t>(items.size() - 1);
  }

  uint32_t prefix_len(const Shape& s) const {
    return 1 + static_cast<uint32_t>(pools_[s.pool].chain.size());
  }

  // A tail for `s` (or none); a sample often lands part-way down one.
  void pick_tail(Shape& s) {
    s.tail = kNoTail;
    s.tail_len = 0;
    if (!rng_.chance(0.75)) return;
    s.tail = weighted(tails_, tail_weight_total_);
    const auto len = static_cast<uint32_t>(tails_[s.tail].frames.size());
    s.tail_len = rng_.chance(0.5) ? len : 1 + rng_.below(len);
  }

  // Appends `len` walk steps after `from` (a node, or UINT32_MAX to start at the pool entry).
  // Broad: a dispatcher picks its hot callee half the time, but a derived stack that branches
  // off right below one (BRANCH) takes any other callee.
  void walk(const Shape& s, uint32_t from, uint32_t len, bool branch = false) {
    const PoolIds& pool = pools_[s.pool];
    for (uint32_t k = 0; k < len; ++k) {
      uint32_t node;
      if (from == UINT32_MAX) {
        const auto n = static_cast<uint32_t>(pool.entries.size());
        node = pool.entries[broad_ ? dispatch(n) : pick_hot(n)];
      } else {
        const auto& callees = nodes_[from].callees;
        const auto n = static_cast<uint32_t>(callees.size());
        const bool dispatcher = broad_ && n >= kDispatcher;
        node = callees[!dispatcher ? pick_hot(n) : branch && k == 0 ? rng_.below(n) : dispatch(n)];
      }
      walks_.push_back(node);
      from = node;
    }
  }

  uint32_t pick_thread(uint32_t pool) {
    const auto n = static_cast<uint32_t>(pools_[pool].threads.size());
    return broad_ ? long_tail(n) : rng_.below(n);
  }

  Shape fresh() {
    Shape s{};
    s.pool = weighted(pools_, pool_weight_total_);
    s.thread = pick_thread(s.pool);
    // Depth ~ N(kMeanDepth, 11) from a sum of uniforms.
    int64_t sum = 0;
    for (int k = 0; k < 6; ++k) sum += rng_.below(1000);
    const auto depth = static_cast<uint32_t>(
        std::clamp<int64_t>(kMeanDepth + (sum - 2997) * 11 / 707, kMinDepth, kMaxDepth));
    pick_tail(s);
    const uint32_t room = depth - prefix_len(s);  // >= 3: kMinDepth exceeds every prefix
    s.tail_len = std::min(s.tail_len, room - 2);
    s.walk_len = room - s.tail_len;
    if (s.tail_len == 0) s.tail = kNoTail;
    s.walk_begin = walks_.size();
    walk(s, UINT32_MAX, s.walk_len);
    return s;
  }

  // How many calls of PARENT's walk a broad derived stack redoes: most often all those below
  // one of its dispatchers, the shallower ones first (so a dispatcher on a hot path gets a
  // new callee from many stacks), else from any depth.
  uint32_t broad_redo(const Shape& parent) {
    if (rng_.chance(0.9)) {
      for (uint32_t k = 0; k + 1 < parent.walk_len; ++k) {
        const uint32_t node = walks_[parent.walk_begin + k];
        if (nodes_[node].callees.size() >= kDispatcher && rng_.chance(0.6)) {
          return parent.walk_len - (k + 1);
        }
      }
    }
    return 1 + rng_.below(parent.walk_len);
  }

  Shape derive() {
    const Shape parent = shapes_[rng_.below(static_cast<uint32_t>(shapes_.size()))];
    Shape s = parent;
    const uint32_t r = rng_.below(100);
    if (r < 4) {  // the same path on another thread of the pool
      s.thread = pick_thread(s.pool);
      return s;
    }
    // The depth stays near the parent's, drifting back towards kMeanDepth.
    const uint32_t prefix = prefix_len(s);
    const uint32_t parent_depth = prefix + parent.walk_len + parent.tail_len;
    int64_t depth = int64_t{parent_depth} + rng_.below(7) - 3;
    if (rng_.chance(0.15)) depth += parent_depth > kMeanDepth ? -2 : 2;
    const uint32_t room =
        static_cast<uint32_t>(std::clamp<int64_t>(depth, kMinDepth, kMaxDepth)) - prefix;
    pick_tail(s);
    if (r < 35) {  // the same path, another leaf; the walk is shared with the parent
      s.tail_len = std::min(s.tail_len, room > s.walk_len ? room - s.walk_len : 0);
      if (s.tail_len == 0) s.tail = kNoTail;
      return prefix + s.walk_len + s.tail_len < kMinDepth ? parent : s;
    }
    // Keep most of the walk, redo the last few calls. A total depth within
    // [kMinDepth, kMaxDepth] follows from room's and the parent's.
    uint32_t redo = 1 + rng_.below(3) + (rng_.chance(0.3) ? rng_.below(10) : 0);
    // Broad: from any depth (after the same draws as narrow: its output is unchanged).
    if (broad_) redo = broad_redo(parent);
    redo = std::min(redo, parent.walk_len - 1);
    const uint32_t keep = parent.walk_len - redo;
    s.tail_len = std::min(s.tail_len, room > keep + 1 ? room - keep - 1 : 0);
    if (s.tail_len == 0) s.tail = kNoTail;
    s.walk_len = std::max(keep + 1, room - s.tail_len);
    s.walk_begin = walks_.size();
    for (uint32_t k = 0; k < keep; ++k) {
      const uint32_t node = walks_[parent.walk_begin + k];
      walks_.push_back(node);
    }
    walk(s, walks_.back(), s.walk_len - keep, true);
    return s;
  }

  void spell(const Shape& s, std::vector<uint32_t>& ids) const {
    const PoolIds& pool = pools_[s.pool];
    ids.clear();
    ids.push_back(pool.threads[s.thread]);
    ids.insert(ids.end(), pool.chain.begin(), pool.chain.end());
    for (uint32_t k = 0; k < s.walk_len; ++k) ids.push_back(nodes_[walks_[s.walk_begin + k]].name);
    if (s.tail != kNoTail) {
      const auto& t = tails_[s.tail].frames;
      ids.insert(ids.end(), t.begin(), t.begin() + s.tail_len);
    }
  }

  Rng& rng_;
  const bool broad_;
  std::unordered_map<uint32_t, std::vector<double>> cumulative_;  // n -> long_tail's weights
  NameTable names_;
  std::vector<Node> nodes_;
  std::vector<std::vector<uint32_t>> by_level_;
  std::vector<PoolIds> pools_;
  uint32_t pool_weight_total_ = 0;
  std::vector<TailIds> tails_;
  uint32_t tail_weight_total_ = 0;
  std::vector<Shape> shapes_;    // accepted stacks
  std::vector<uint32_t> walks_;  // walk nodes of all shapes, concatenated
  Shape pending_{};
  size_t pending_mark_ = 0;
};

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9;
  return h ^ (h >> 29);
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  Rng rng(opt.seed);
  Generator gen(opt, rng);

  std::vector<uint32_t> frames;      // all stacks' frame ids, concatenated, root first
  std::vector<uint64_t> offsets{0};  // stack i is frames[offsets[i], offsets[i+1])
  std::vector<uint32_t> counts;
  std::unordered_set<uint64_t> seen;  // 64-bit hashes: a collision only costs one more try
  frames.reserve(opt.stacks * 36);
  offsets.reserve(opt.stacks + 1);
  counts.reserve(opt.stacks);
  seen.reserve(opt.stacks);
  std::vector<uint32_t> stack;
  uint64_t failures = 0;
  while (counts.size() < opt.stacks) {
    gen.next(stack);
    uint64_t h = stack.size();
    for (uint32_t id : stack) h = mix(h, id);
    if (!seen.insert(h).second) {
      gen.reject();
      if (++failures > 100 * opt.stacks + 100000) {
        std::fprintf(stderr, "gen_folded: cannot find %llu unique stacks; raise --functions\n",
                     static_cast<unsigned long long>(opt.stacks));
        return 1;
      }
      continue;
    }
    gen.accept();
    frames.insert(frames.end(), stack.begin(), stack.end());
    offsets.push_back(frames.size());
    // Zipf: P(count >= k) = 1/k, capped.
    const double u = 1.0 - rng.unit();  // (0, 1]
    counts.push_back(static_cast<uint32_t>(std::min(1.0 / u, 100000.0)));
  }

  auto span_of = [&](uint32_t i) {
    return std::span(frames).subspan(offsets[i], offsets[i + 1] - offsets[i]);
  };
  std::vector<uint32_t> order(counts.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  if (opt.sorted) {
    // Ids follow name order, so this groups shared prefixes as a textual sort would.
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const auto x = span_of(a), y = span_of(b);
      return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
    });
  }

  const NameTable& names = gen.names();
  std::string out;
  out.reserve(1 << 21);
  for (uint32_t i : order) {
    bool first = true;
    for (uint32_t id : span_of(i)) {
      if (!first) out += ';';
      first = false;
      out += names[id];
    }
    char num[16];
    auto [end, ec] = std::to_chars(num, num + sizeof num, counts[i]);
    out += ' ';
    out.append(num, end);
    out += '\n';
    if (out.size() > (1 << 20)) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) break;
      out.clear();
    }
  }
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "gen_folded: write failed\n");
    return 1;
  }
  return 0;
}
