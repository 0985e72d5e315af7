#include "collectors/sched/interval_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace hearth::sched {

namespace si = sched_intervals;

IntervalKeep choose_keep(uint64_t start_ns, uint64_t end_ns, uint64_t keep_ns) {
  constexpr uint64_t kS = 1'000'000'000;
  constexpr uint64_t kMaxSlots = 3600;
  IntervalKeep k;
  k.window_start_ns = start_ns;
  k.whole_from_ns = start_ns;
  k.slot_ns = kS;
  const uint64_t window = end_ns > start_ns ? end_ns - start_ns : 0;
  if (window <= keep_ns) return k;
  const uint64_t before = window - keep_ns;  // to be sliced, up to a slot less
  for (uint64_t s : {1, 2, 5, 10, 30, 60, 300, 600, 1800, 3600}) {
    k.slot_ns = s * kS;
    if (before / k.slot_ns <= kMaxSlots) break;
  }
  while (before / k.slot_ns > kMaxSlots) k.slot_ns *= 2;  // beyond 5,000 days
  k.whole_from_ns = start_ns + before / k.slot_ns * k.slot_ns;
  return k;
}

// ---- Encoding ----
//
// One interval: a flags byte, then LEB128 varints:
//   flags bit 0: a gap: varint (start - end of the previous interval) follows; else it starts
//                where the previous one ended (the first interval always has one)
//         bit 1: cpu changed: varint (cpu + 1) follows; else the previous interval's (-1 first)
//         bit 2: varint BY follows; else by = -1
//         bits 3-7: the state's index in kStateCodes, or 31: the state byte itself follows
//   then varint (end - start), then the optional fields in the order gap, cpu, by, state.

namespace {

constexpr std::string_view kStateCodes = "CRSDtTIXZPWK?";
constexpr uint8_t kLogGap = 1, kLogCpu = 2, kLogBy = 4;
constexpr uint8_t kLogRawState = 31;

void log_put_varint(std::vector<uint8_t>* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

uint64_t log_get_varint(const std::vector<uint8_t>& in, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0; *pos < in.size() && shift < 64; shift += 7) {
    uint8_t b = in[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
  }
  return v;
}

size_t class_index(char state) {
  return static_cast<size_t>(si::state_class(state));
}

}  // namespace

void ThreadIntervals::commit(const Pending& p) {
  uint8_t flags = 0;
  size_t code = kStateCodes.find(p.state);
  if (code == std::string_view::npos) code = kLogRawState;
  if (count_ == 0 || p.start != log_end_) flags |= kLogGap;
  if (p.cpu != log_cpu_) flags |= kLogCpu;
  if (p.by != -1) flags |= kLogBy;
  flags |= static_cast<uint8_t>(code << 3);
  log_.push_back(flags);
  log_put_varint(&log_, p.end - p.start);
  if (flags & kLogGap)
    log_put_varint(&log_, p.start - (count_ == 0 ? 0 : log_end_));  // >= 0: add()
  if (flags & kLogCpu) log_put_varint(&log_, static_cast<uint64_t>(p.cpu + 1));
  if (flags & kLogBy) log_put_varint(&log_, static_cast<uint64_t>(p.by));
  if (code == kLogRawState) log_.push_back(static_cast<uint8_t>(p.state));
  log_end_ = p.end;
  log_cpu_ = p.cpu;
  ++count_;
}

bool ThreadIntervals::next(Cursor* c, si::Interval* out) const {
  if (c->pos >= log_.size()) return false;
  const uint8_t flags = log_[c->pos++];
  const uint64_t duration = log_get_varint(log_, &c->pos);
  // The first interval's gap counts from 0 (c->end starts at 0).
  out->start_ns = (flags & kLogGap) ? c->end + log_get_varint(log_, &c->pos) : c->end;
  out->end_ns = out->start_ns + duration;
  if (flags & kLogCpu) c->cpu = static_cast<int>(log_get_varint(log_, &c->pos)) - 1;
  out->cpu = c->cpu;
  out->by = (flags & kLogBy) ? static_cast<int64_t>(log_get_varint(log_, &c->pos)) : -1;
  const uint8_t code = flags >> 3;
  if (code == kLogRawState) {
    out->state = c->pos < log_.size() ? static_cast<char>(log_[c->pos++]) : si::kStateUnknown;
  } else {
    out->state = code < kStateCodes.size() ? kStateCodes[code] : si::kStateUnknown;
  }
  c->end = out->end_ns;
  return true;
}

ThreadIntervals::SlotAcc& ThreadIntervals::slot(uint64_t index) {
  // Emission is in time order per thread: the slot is the last one or a new one at the back.
  if (slots_.empty() || slots_.back().index < index) {
    slots_.push_back({});
    slots_.back().index = index;
    return slots_.back();
  }
  auto it = std::lower_bound(slots_.begin(), slots_.end(), index,
                             [](const SlotAcc& s, uint64_t i) { return s.index < i; });
  if (it == slots_.end() || it->index != index) {
    it = slots_.insert(it, SlotAcc{});
    it->index = index;
  }
  return *it;
}

void ThreadIntervals::fold(const IntervalKeep& keep, uint64_t from, uint64_t to, char state) {
  const size_t c = class_index(state);
  while (from < to) {
    uint64_t index = (from - keep.window_start_ns) / keep.slot_ns;
    uint64_t slot_end = keep.window_start_ns + (index + 1) * keep.slot_ns;
    uint64_t upto = std::min(to, slot_end);
    slot(index).ns[c] += upto - from;
    from = upto;
  }
}

void ThreadIntervals::add(const IntervalKeep& keep, uint64_t from, uint64_t to, char state, int cpu,
                          int64_t by) {
  if (from < last_end_) {
    ++overlaps_;
    from = last_end_;
  }
  if (from >= to) return;
  last_end_ = to;
  from = std::max(from, keep.window_start_ns);
  if (from < keep.whole_from_ns) {
    const uint64_t cut = std::min(to, keep.whole_from_ns);
    fold(keep, from, cut, state);
    from = cut;
    if (from >= to) return;
  }
  Pending& p = pending_;
  if (p.valid && p.end == from && p.state == state && p.cpu == cpu && p.by == by) {
    p.end = to;
    return;
  }
  if (p.valid) commit(p);
  p = {true, from, to, state, cpu, by};
}

void ThreadIntervals::switch_out(const IntervalKeep& keep, uint64_t ts) {
  if (ts >= keep.whole_from_ns || ts < keep.window_start_ns) return;
  slot((ts - keep.window_start_ns) / keep.slot_ns).switches++;
}

void ThreadIntervals::finish() {
  if (pending_.valid) commit(pending_);
  pending_.valid = false;
  log_.shrink_to_fit();
  slots_.shrink_to_fit();
}

size_t ThreadIntervals::bytes() const {
  return log_.capacity() + slots_.capacity() * sizeof(SlotAcc);
}

// ---- The store ----

uint64_t IntervalStore::intervals() const {
  uint64_t n = 0;
  for (const ThreadLog& t : threads) n += t.log.intervals();
  return n;
}

uint64_t IntervalStore::slots() const {
  uint64_t n = 0;
  for (const ThreadLog& t : threads) n += t.log.slots().size();
  return n;
}

uint64_t IntervalStore::overlaps() const {
  uint64_t n = 0;
  for (const ThreadLog& t : threads) n += t.log.overlaps();
  return n;
}

size_t IntervalStore::bytes() const {
  size_t n = threads.capacity() * sizeof(ThreadLog);
  for (const ThreadLog& t : threads) n += t.log.bytes();
  return n;
}

std::function<bool(si::Interval*)> IntervalStore::interval_rows() const {
  size_t k = 0;
  ThreadIntervals::Cursor c;
  return [this, k, c](si::Interval* out) mutable {
    while (k < threads.size()) {
      if (threads[k].log.next(&c, out)) {
        out->tid = threads[k].tid;
        out->pid = threads[k].pid;
        return true;
      }
      ++k;
      c = {};
    }
    return false;
  };
}

std::function<bool(si::Slot*)> IntervalStore::slot_rows() const {
  size_t k = 0, i = 0;
  return [this, k, i](si::Slot* out) mutable {
    while (k < threads.size()) {
      const auto& slots = threads[k].log.slots();
      if (i < slots.size()) {
        const ThreadIntervals::SlotAcc& s = slots[i++];
        *out = {};
        out->tid = threads[k].tid;
        out->pid = threads[k].pid;
        out->slot_start_ns = keep.window_start_ns + s.index * keep.slot_ns;
        out->on_cpu_ns = s.ns[static_cast<size_t>(si::StateClass::kOnCpu)];
        out->runnable_ns = s.ns[static_cast<size_t>(si::StateClass::kRunnable)];
        out->sleeping_ns = s.ns[static_cast<size_t>(si::StateClass::kSleeping)];
        out->blocked_ns = s.ns[static_cast<size_t>(si::StateClass::kBlocked)];
        out->stopped_ns = s.ns[static_cast<size_t>(si::StateClass::kStopped)];
        out->other_ns = s.ns[static_cast<size_t>(si::StateClass::kOther)];
        out->switches = s.switches;
        return true;
      }
      ++k;
      i = 0;
    }
    return false;
  };
}

Result<IntervalFiles> write_interval_files(const std::string& dir,
                                           const sched_tsv::SchedHeader& header,
                                           const IntervalStore& store,
                                           const si::UntracedSlots* before) {
  IntervalFiles out;
  const bool untraced = before != nullptr && !before->slots.empty();
  sched_tsv::SchedHeader h = header;
  si::Kept kept = store.kept();
  si::Untraced mark;
  std::function<bool(si::Slot*)> rows = store.slot_rows();
  if (untraced) {
    // The window reaches back to the first slot from before; the tracer's window is whole (or
    // sliced) from its start as before. Each thread's slots from before come first.
    mark = before->mark;
    mark.until_ns = header.window_start_ns;
    uint64_t first = header.window_start_ns;
    for (const si::Slot& s : before->slots) first = std::min(first, s.slot_start_ns);
    h.window_start_ns = first;
    rows = [traced = store.slot_rows(), &b = before->slots, i = size_t{0}, next = si::Slot{},
            have = false, done = false](si::Slot* slot) mutable {
      if (!have && !done) {
        have = traced(&next);
        done = !have;
      }
      if (i < b.size() && (!have || b[i].tid <= next.tid)) {
        *slot = b[i++];
        return true;
      }
      if (!have) return false;
      *slot = next;
      have = false;
      return true;
    };
  }
  const std::string path = dir + "/sched.intervals.tsv";
  ASSIGN_OR_RETURN(out.intervals, si::write_intervals(path, h, kept, store.interval_rows(), mark));
  const std::string slots = dir + "/sched.slots.tsv";
  if (store.sliced() || untraced) {
    ASSIGN_OR_RETURN(out.slots, si::write_slots(slots, h, kept, rows, mark));
  } else if (::unlink(slots.c_str()) != 0 && errno != ENOENT) {
    int e = errno;
    return fail_errno("cannot remove the earlier recording's " + slots, e);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) out.bytes = static_cast<uint64_t>(st.st_size);
  return out;
}

}  // namespace hearth::sched
