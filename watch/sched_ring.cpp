#include "watch/sched_ring.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace hearth::watch {
namespace {

constexpr uint32_t kWhole = 65535;  // a share of 1

// SHARES (each clamped to [0, 1]) as fractions of kWhole that never sum above it.
void quantize(const double (&shares)[4], uint16_t (&out)[4]) {
  uint32_t sum = 0;
  for (int i = 0; i < 4; ++i) {
    const double s = std::clamp(shares[i], 0.0, 1.0);
    out[i] = static_cast<uint16_t>(std::floor(s * kWhole));
    sum += out[i];
  }
  while (sum > kWhole) {  // shares summing above 1 (rounding): the largest gives way
    uint16_t* largest = std::max_element(std::begin(out), std::end(out));
    const uint32_t cut = std::min<uint32_t>(*largest, sum - kWhole);
    *largest = static_cast<uint16_t>(*largest - cut);
    sum -= cut;
  }
}

}  // namespace

void SchedRing::add(const ProcSample& sample) {
  if (sample.first || sample.interval_s <= 0) return;
  Read read;
  read.end_ns = sample.t_ns;
  read.start_ns = sample.t_ns - std::llround(sample.interval_s * 1e9);
  for (const ThreadShares& t : sample.threads) {
    if (t.span_s <= 0) continue;  // its first read: no shares yet
    Row r;
    r.tid = static_cast<int32_t>(t.tid);
    r.pid = static_cast<int32_t>(t.pid);
    quantize({t.running, t.runnable, t.sleeping, t.blocked}, r.share);
    r.slices = static_cast<uint32_t>(std::min<uint64_t>(t.slices, UINT32_MAX));
    read.rows.push_back(r);
  }
  read.rows.shrink_to_fit();
  std::lock_guard<std::mutex> hold(mu_);
  if (!reads_.empty()) {
    if (read.end_ns <= reads_.back().end_ns) return;  // out of order: not ours to mend
    read.start_ns = std::max(read.start_ns, reads_.back().end_ns);  // never overlapping
  }
  rows_ += read.rows.size();
  reads_.push_back(std::move(read));
}

void SchedRing::forget_before(int64_t t_ns) {
  std::lock_guard<std::mutex> hold(mu_);
  while (!reads_.empty() && reads_.front().end_ns <= t_ns) {
    rows_ -= reads_.front().rows.size();
    reads_.pop_front();
  }
}

sched_intervals::UntracedSlots SchedRing::untraced_slots(uint64_t from_ns, uint64_t until_ns,
                                                         uint64_t slot_ns) const {
  sched_intervals::UntracedSlots out;
  out.mark.until_ns = until_ns;
  out.mark.source = "proc";
  if (slot_ns == 0 || until_ns <= from_ns) return out;
  // The grid's first slot: FROM rounded down onto until - k·slot (never below 0).
  const uint64_t k = std::min((until_ns - from_ns + slot_ns - 1) / slot_ns, until_ns / slot_ns);
  const uint64_t grid_ns = until_ns - k * slot_ns;
  struct Thread {
    int64_t pid = 0;
    std::vector<sched_intervals::Slot> slots;  // in time order
  };
  std::unordered_map<int32_t, Thread> by_tid;
  std::vector<int64_t> lengths;  // of the reads used
  std::lock_guard<std::mutex> hold(mu_);
  for (const Read& read : reads_) {
    const uint64_t a = static_cast<uint64_t>(std::max<int64_t>(read.start_ns, 0));
    const uint64_t b = static_cast<uint64_t>(std::max<int64_t>(read.end_ns, 0));
    const uint64_t lo = std::max(a, grid_ns), hi = std::min(b, until_ns);
    if (lo >= hi) continue;
    lengths.push_back(read.end_ns - read.start_ns);
    const double span = static_cast<double>(b - a);
    // The slots the read covers, each with its overlap.
    for (uint64_t s = grid_ns + (lo - grid_ns) / slot_ns * slot_ns; s < hi; s += slot_ns) {
      const uint64_t o = std::min(hi, s + slot_ns) - std::max(lo, s);
      if (o == 0) continue;
      for (const Row& r : read.rows) {
        Thread& t = by_tid[r.tid];
        t.pid = r.pid;
        if (t.slots.empty() || t.slots.back().slot_start_ns != s) {
          sched_intervals::Slot slot;
          slot.tid = r.tid;
          slot.pid = r.pid;
          slot.slot_start_ns = s;
          t.slots.push_back(slot);
        }
        sched_intervals::Slot& slot = t.slots.back();
        auto part = [&](uint16_t q) { return static_cast<uint64_t>(q) * o / kWhole; };
        slot.on_cpu_ns += part(r.share[0]);
        slot.runnable_ns += part(r.share[1]);
        slot.sleeping_ns += part(r.share[2]);
        slot.blocked_ns += part(r.share[3]);
        slot.switches += static_cast<uint64_t>(
            std::llround(static_cast<double>(r.slices) * static_cast<double>(o) / span));
      }
    }
  }
  std::vector<int32_t> tids;
  tids.reserve(by_tid.size());
  for (const auto& [tid, t] : by_tid) tids.push_back(tid);
  std::sort(tids.begin(), tids.end());
  for (const int32_t tid : tids) {
    std::vector<sched_intervals::Slot>& slots = by_tid[tid].slots;
    out.slots.insert(out.slots.end(), slots.begin(), slots.end());
  }
  if (!lengths.empty()) {  // the median interval, to the ms
    std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
    const int64_t median = lengths[lengths.size() / 2];
    out.mark.resolution_ns = static_cast<uint64_t>(
        std::max<int64_t>(1'000'000, (median + 500'000) / 1'000'000 * 1'000'000));
  }
  return out;
}

nlohmann::json before_trigger_json(const sched_intervals::UntracedSlots& u) {
  uint64_t first = u.mark.until_ns;
  std::vector<int64_t> tids;
  for (const sched_intervals::Slot& s : u.slots) {
    first = std::min(first, s.slot_start_ns);
    if (tids.empty() || tids.back() != s.tid) tids.push_back(s.tid);
  }
  auto seconds = [](uint64_t ns) { return std::round(static_cast<double>(ns) / 1e6) / 1e3; };
  return {{"source", "/proc schedstat and state"},
          {"resolution_s", seconds(u.mark.resolution_ns)},
          {"span_s", seconds(u.mark.until_ns - first)},
          {"slots", u.slots.size()},
          {"threads", tids.size()},
          {"file", "sched.slots.tsv"}};
}

size_t SchedRing::reads() const {
  std::lock_guard<std::mutex> hold(mu_);
  return reads_.size();
}

size_t SchedRing::rows() const {
  std::lock_guard<std::mutex> hold(mu_);
  return rows_;
}

int64_t SchedRing::span_ns() const {
  std::lock_guard<std::mutex> hold(mu_);
  return reads_.empty() ? 0 : reads_.back().end_ns - reads_.front().start_ns;
}

size_t SchedRing::bytes() const {
  std::lock_guard<std::mutex> hold(mu_);
  return rows_ * sizeof(Row) + reads_.size() * sizeof(Read);
}

}  // namespace hearth::watch
