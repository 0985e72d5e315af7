#include "recording/alloc_collector.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "collectors/alloc/alloc_probe.h"
#include "collectors/alloc/alloc_profile.h"
#include "collectors/alloc/alloc_window.h"
#include "collectors/alloc/allocator_symbols.h"
#include "collectors/proc/maps.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/unique_fd.h"
#include "recording/alloc_rate.h"
#include "recording/recording.h"
#include "render/report/report.h"

namespace hearth::recording {
namespace {

constexpr uint64_t kAllocRateInterval = 100'000'000;  // ns: a point every poll of the window

}  // namespace

Result<AllocViews> parse_alloc_views(const std::string& text) {
  AllocViews v;
  size_t start = 0;
  for (size_t comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = text.find(',', start);
    const std::string word = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (word == "bytes")
      v.bytes = true;
    else if (word == "count")
      v.count = true;
    else if (word == "live")
      v.live = true;
    else
      return fail("--alloc takes bytes, count or live, or several comma-separated (bytes,live)");
  }
  if (!v.any()) {
    return fail("--alloc takes bytes, count or live, or several comma-separated (bytes,live)");
  }
  return v;
}

std::string alloc_views_text(const AllocViews& v) {
  std::string s;
  for (auto [on, name] : {std::pair{v.bytes, "bytes"}, {v.count, "count"}, {v.live, "live"}}) {
    if (on) s += (s.empty() ? "" : ",") + std::string(name);
  }
  return s;
}

void run_alloc_collector(const AllocCollectorOptions& a, Outcome* out) {
  namespace fs = std::filesystem;
  // The pidfd first: the process it names is the one the probes are for, even if the pid is
  // reused.
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, a.pid, 0)));
  if (pidfd.get() < 0) return out->failed("no process " + std::to_string(a.pid));
  auto maps = proc::read_maps(a.pid);
  if (!maps) return out->failed(maps.error().message);
  auto allocator = alloc::find_allocator(a.pid, *maps);
  if (!allocator) return out->failed(allocator.error().message);
  auto probe = alloc::AllocProbe::open(
      {.pid = a.pid, .mean_bytes = a.mean_bytes, .live = a.views.live, .live_entries = a.live_max},
      *allocator);
  if (!probe) return out->failed(probe.error().message);
  auto profile = alloc::AllocProfile::open(
      {.pid = a.pid, .mean_bytes = probe->mean_bytes(), .symbol_cache = a.symbol_cache});
  if (!profile) return out->failed(profile.error().message);
  std::string names;
  for (const alloc::AllocatorEntry& e : allocator->entries) {
    if (e.kind != HEARTH_ALLOC_FREE) names += (names.empty() ? "" : ", ") + e.name;
  }
  if (a.note) {
    a.note("alloc: sampling " + names + " of " + allocator->path + " (" +
           alloc_views_text(a.views) + ")");
  }

  auto on_sample = [&](const hearth_alloc_event& e) { profile->add(e); };
  AllocRate rate(kAllocRateInterval);
  auto take_rate = [&] {
    const uint64_t now = realtime_ns();
    if (!rate.due(now)) return;
    const alloc::AllocProbeTotals t = probe->totals();
    rate.add({now, t.calls, t.bytes});
  };
  take_rate();
  // The window ends with the target too; the target runs unprobed after it.
  const std::string ended_because =
      alloc::run_alloc_window({.pidfd = pidfd.get(), .ended = a.ended, .polled = take_rate},
                              *probe, *profile, on_sample)
          .error;
  const alloc::AllocProbeTotals totals = probe->totals();
  rate.add({realtime_ns(), totals.calls, totals.bytes});  // the window's end
  std::vector<hearth_alloc_live> blocks;
  if (a.views.live) blocks = probe->live_blocks();
  probe = std::unexpected(Error{});  // nothing of ours left in the kernel

  json& f = out->figures;
  f["views"] = alloc_views_text(a.views);
  f["allocator"] = allocator->path;
  f["entries"] = names;
  f["mean_bytes"] = a.mean_bytes;
  f["calls"] = totals.calls;
  f["bytes"] = totals.bytes;
  f["samples"] = totals.samples;
  f["lost"] = totals.lost;
  const alloc::AllocProfileStats& ps = profile->stats();
  f["stacks"] = ps.stacks;
  f["truncated_stacks"] = ps.truncated;
  f["estimated_bytes"] = std::llround(ps.bytes);
  f["estimated_calls"] = std::llround(ps.calls);
  auto write = [&](const char* name, const stacks::StackCounts& counts) -> Result<void> {
    const std::string path = (fs::path(a.output) / name).string();
    if (counts.total() == 0) return {};  // nothing sampled: no file, the figures say so
    return write_file_atomically(path, counts.to_folded());
  };
  if (a.views.bytes) {
    if (auto w = write(report::kAllocFolded, profile->counts(alloc::AllocWeight::kBytes)); !w)
      return out->failed(w.error().message);
  }
  if (a.views.count) {
    if (auto w = write(report::kAllocCountFolded, profile->counts(alloc::AllocWeight::kCalls)); !w)
      return out->failed(w.error().message);
  }
  if (std::string text = rate.series_text(a.pid, allocator->path); !text.empty()) {
    const std::string path = (fs::path(a.output) / report::kAllocRateSeries).string();
    if (auto w = write_file_atomically(path, text); !w) return out->failed(w.error().message);
    f["rate_points"] = rate.points().size();
  }
  if (a.views.live) {
    alloc::AllocLiveStats live{};
    stacks::StackCounts counts = profile->live_counts(blocks, alloc::AllocWeight::kBytes, &live);
    if (auto w = write(report::kAllocLiveFolded, counts); !w) return out->failed(w.error().message);
    f["live_blocks"] = live.blocks;
    f["live_estimated_bytes"] = std::llround(live.bytes);
    f["freed"] = totals.freed;
    f["dropped"] = totals.dropped;
    f["live_max"] = a.live_max;
  }
  out->ok();
  if (!ended_because.empty())
    f["message"] = "stopped early: " + ended_because;
  else if (ps.samples == 0)
    f["message"] = "no allocation sampled: a longer window or a smaller --alloc-mean samples more";
  else if (totals.lost > 0)
    f["message"] = "samples lost to a full ring buffer: the bytes undercount";
}

}  // namespace hearth::recording
