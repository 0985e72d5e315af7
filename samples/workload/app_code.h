// The sample workload's application code: what the http workers call (orders, users, JSON,
// an LRU cache, a search index), with C++ namespaces and templates so flamegraphs show names
// people meet in real services.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "samples/workload/runtime.h"

namespace sample {

namespace shop {
struct Order {
  uint64_t id;
  uint32_t customer;
  uint32_t items;
  double total;
  std::string status;
};
struct User {
  std::string name;
  std::string email;
  uint32_t visits = 0;
};
}  // namespace shop

namespace json {

class Encoder {
 public:
  template <typename T>
  SAMPLE_FRAME std::string encode(const std::vector<T>& items) {
    std::string out = "[";
    for (const T& item : items) {
      if (out.size() > 1) out += ',';
      encode_one(out, item);
    }
    out += ']';
    return out;
  }

 private:
  SAMPLE_FRAME void encode_one(std::string& out, const shop::Order& o) {
    out += '{';
    field(out, "id", o.id);
    out += ',';
    field(out, "customer", o.customer);
    out += ',';
    field(out, "items", o.items);
    out += ",\"total\":";
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, o.total, std::chars_format::fixed, 2);
    out.append(buf, r.ptr);
    out += ",\"status\":\"";
    out += o.status;
    out += "\"}";
  }
  SAMPLE_FRAME void field(std::string& out, std::string_view key, uint64_t v) {
    out += '"';
    out += key;
    out += "\":";
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  }
};

}  // namespace json

namespace cache {

// A map with a small "eviction" cost on every miss, keyed by strings.
template <typename K, typename V>
class LruCache {
 public:
  SAMPLE_FRAME const V& get(const K& key, const std::function<V(const K&)>& load) {
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    if (map_.size() >= 512) evict();
    return map_.emplace(key, load(key)).first->second;
  }

 private:
  SAMPLE_FRAME void evict() {
    for (int i = 0; i < 64 && !map_.empty(); ++i) map_.erase(map_.begin());
  }
  std::unordered_map<K, V> map_;
};

}  // namespace cache

namespace search {

struct Bm25 {
  static double weight(double tf, double df, double len) {
    return std::log1p(1000.0 / (df + 1.0)) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / 300.0));
  }
};

class Index {
 public:
  template <typename Scorer>
  SAMPLE_FRAME double query(uint64_t seed, int terms) {
    double best = 0;
    for (int t = 0; t < terms; ++t) best = std::max(best, score_postings<Scorer>(seed + t));
    return best;
  }

 private:
  template <typename Scorer>
  SAMPLE_FRAME double score_postings(uint64_t term) {
    double best = 0;
    uint64_t x = term * 0x9E3779B97F4A7C15ull + 1;
    for (int doc = 0; doc < 1500; ++doc) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      double s = Scorer::weight(static_cast<double>(x % 7 + 1), static_cast<double>(x % 97),
                                static_cast<double>(x % 600));
      best = std::max(best, s);
    }
    return best;
  }
};

}  // namespace search

}  // namespace sample
