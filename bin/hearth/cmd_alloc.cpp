#include "bin/hearth/cmd_alloc.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "bin/hearth/figures.h"
#include "bin/hearth/input_checks.h"
#include "bin/hearth/pictures.h"
#include "bin/hearth/sampler_cli.h"
#include "collectors/alloc/alloc_probe.h"
#include "collectors/alloc/alloc_profile.h"
#include "collectors/alloc/allocator_symbols.h"
#include "collectors/alloc/alloc_window.h"
#include "collectors/alloc/jvm_class_name.h"
#include "collectors/alloc/jvm_flags.h"
#include "collectors/proc/maps.h"
#include "collectors/stacks/perf_map.h"
#include "common/atomic_file.h"
#include "common/pattern.h"
#include "common/shutdown.h"
#include "common/unique_fd.h"
#include "render/flame/layout.h"
#include "render/profile/folded_reader.h"
#include "render/profile/frame_tree.h"

namespace hearth::cli {
namespace {

using AllocClock = std::chrono::steady_clock;

bool is_picture(const std::string& path) {
  return path.ends_with(".svg") || path.ends_with(".png") || path.ends_with(".pdf");
}


std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char s[32];
  std::snprintf(s, sizeof s, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return s;
}

int write_alloc_picture(const AllocArgs& a, bool jvm, const std::string& folded,
                        const std::string& title, const std::string& subtitle) {
  profile::FrameTree tree(profile::Merge::kAll);
  profile::FoldedReader reader(tree, {});
  reader.read_text(folded);
  tree.finalize();
  flame::FlameOptions fo;
  fo.title = title;
  fo.subtitle = subtitle;
  fo.count_name = a.count ? (a.live ? "blocks" : jvm ? "objects" : "calls") : "bytes";
  fo.palette = scene::Palette::kMem;
  flame::FlameStats st;
  scene::Scene s = flame::layout_flame(tree, fo, &st);
  if (auto w = write_picture(s, a.output, format_of(a.output), 1); !w) {
    std::fprintf(stderr, "hearth alloc: %s\n", w.error().message.c_str());
    return 1;
  }
  return 0;
}

// What was sampled and dropped, short enough for one line under a picture's title (stderr's
// last line says it at length).
std::string picture_subtitle(const AllocArgs& a, bool jvm, const alloc::AllocProbeTotals& t,
                             const alloc::AllocProfileStats& ps,
                             const alloc::AllocLiveStats& live) {
  std::string s = thousands(ps.samples) + " samples of " + thousands(t.calls) +
                  (jvm ? " objects (" : " calls (") + thousands(t.lost) + " lost), one per " +
                  bytes_text(static_cast<double>(a.mean)) + " on average";
  if (a.live) {
    s += "; live: " + thousands(live.blocks) + " sampled blocks (" + thousands(t.freed) +
         " freed, " + thousands(t.dropped) + " dropped: map full)";
  }
  return s;
}

// The mapping of HotSpot's libjvm.so in MAPS, or null: a JVM.
const proc::Mapping* libjvm_mapping(const std::vector<proc::Mapping>& maps) {
  for (const proc::Mapping& m : maps) {
    if (m.path.ends_with("/libjvm.so") && m.exec) return &m;
  }
  return nullptr;
}

// A path to the file of mapping M of process PID from here (its map_files link).
std::string map_files_path(pid_t pid, const proc::Mapping& m) {
  char range[64];
  std::snprintf(range, sizeof range, "%llx-%llx", static_cast<unsigned long long>(m.start),
                static_cast<unsigned long long>(m.end));
  return "/proc/" + std::to_string(pid) + "/map_files/" + range;
}

}  // namespace

std::vector<std::string> validate_alloc(const AllocArgs& a) {
  std::vector<std::string> problems;
  if (a.pid <= 0) problems.push_back("give -p PID (a running process)");
  if (a.output.empty()) problems.push_back("give -o OUT.folded (folded stacks) or OUT.svg");
  if (!(a.duration > 0 && a.duration <= 7 * 24 * 3600))
    problems.push_back("-d must be above 0 and at most a week");
  if (a.mean < 1 || a.mean > (uint64_t{1} << 34))
    problems.push_back("--mean must be between 1 and 17179869184 bytes");
  if (a.max_frames < 1 || a.max_frames > 4096)
    problems.push_back("--max-frames must be between 1 and 4096");
  if (a.live_max < 1 || a.live_max > (1u << 24))
    problems.push_back("--live-max must be between 1 and 16777216 blocks");
  if (a.jvm && a.native) problems.push_back("--jvm and --native exclude each other");
  if (a.jvm && a.live)
    problems.push_back(
        "--live is native only (malloc and free): a JVM's objects are freed by its garbage "
        "collector, which no probe follows");
  if (a.native && (!a.class_regex.empty() || !a.exclude_class.empty()))
    problems.push_back("--class and --exclude-class are for a JVM's objects, not with --native");
  if (auto p = Pattern::compile(a.class_regex); !p)
    problems.push_back("--class: " + p.error().message);
  if (auto p = Pattern::compile(a.exclude_class); !p)
    problems.push_back("--exclude-class: " + p.error().message);
  return problems;
}

int run_alloc(const AllocArgs& a) {
  std::vector<std::string> problems = validate_alloc(a);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "hearth alloc: %s\n", p.c_str());
    return 2;
  }
  if (!outputs_are_new("alloc", {}, {a.output})) return 2;
  install_shutdown_handlers();
  unsetenv("DEBUGINFOD_URLS");  // names from the host's files only, never a download

  // The pidfd first: the process it names is the one we attach to, even if the pid is reused.
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, a.pid, 0)));
  if (pidfd.get() < 0) {
    std::fprintf(stderr, "hearth alloc: no process %d\n", a.pid);
    return 2;
  }
  auto maps = proc::read_maps(a.pid);
  if (!maps) {
    std::fprintf(stderr, "hearth alloc: %s\n", maps.error().message.c_str());
    return 1;
  }
  // A JVM is profiled by Java object unless --native: its malloc is the JVM's own business.
  const proc::Mapping* libjvm = a.native ? nullptr : libjvm_mapping(*maps);
  if (a.jvm && libjvm == nullptr) {
    std::fprintf(stderr, "hearth alloc: process %d maps no libjvm.so: not a HotSpot JVM\n", a.pid);
    return 2;
  }
  const bool jvm = libjvm != nullptr;
  if (jvm && a.live) {
    std::fprintf(stderr,
                 "hearth alloc: process %d is a JVM, and --live is native only (malloc and free: "
                 "the garbage collector frees Java objects unseen); --native --live follows the "
                 "JVM's own malloc\n",
                 a.pid);
    return 2;
  }
  if (!jvm && (!a.class_regex.empty() || !a.exclude_class.empty())) {
    std::fprintf(stderr,
                 "hearth alloc: --class and --exclude-class are for a JVM, and process %d maps "
                 "no libjvm.so\n",
                 a.pid);
    return 2;
  }
  // The JVM's flag, when its libjvm has the symbol: said at once rather than after the window.
  if (jvm && alloc::jvm_alloc_probes_on(a.pid, *maps, *libjvm) == false) {
    std::fprintf(stderr,
                 "hearth alloc: process %d is a JVM started without -XX:+ExtendedDTraceProbes (its "
                 "DTraceAllocProbes flag is off, for its whole life): object__alloc never fires; "
                 "start the JVM with -XX:+ExtendedDTraceProbes, or --native samples its malloc "
                 "calls\n",
                 a.pid);
    return 1;
  }
  Result<alloc::Allocator> allocator = alloc::Allocator{};
  if (jvm) {
    allocator->path = libjvm->path;
    allocator->attach_path = map_files_path(a.pid, *libjvm);
  } else {
    allocator = alloc::find_allocator(a.pid, *maps);
  }
  if (!allocator) {
    std::fprintf(stderr, "hearth alloc: %s\n", allocator.error().message.c_str());
    return 1;
  }
  const alloc::AllocProbeOptions probe_options{
      .pid = a.pid, .mean_bytes = a.mean, .live = a.live, .live_entries = a.live_max};
  auto probe = jvm ? alloc::AllocProbe::open_jvm(probe_options, allocator->attach_path)
                   : alloc::AllocProbe::open(probe_options, *allocator);
  if (!probe) {
    std::fprintf(stderr, "hearth alloc: %s\n", probe.error().message.c_str());
    return 1;
  }
  auto profile = alloc::AllocProfile::open({.pid = a.pid,
                                            .mean_bytes = probe->mean_bytes(),
                                            .max_frames = a.max_frames,
                                            .merge_threads = a.merge_threads,
                                            .symbol_cache = symbol_cache_dir(a.symbol_cache)});
  if (!profile) {
    std::fprintf(stderr, "hearth alloc: %s\n", profile.error().message.c_str());
    return 1;
  }
  std::string names;
  bool has_free = false;
  for (const alloc::AllocatorEntry& e : allocator->entries) {
    if (e.kind == HEARTH_ALLOC_FREE) {
      has_free = true;
      continue;
    }
    names += (names.empty() ? "" : ", ") + e.name;
  }
  // Said before the sampling line (the tests read them in this order).
  const std::string perf_map = stacks::PerfMap::path_for(a.pid);
  if (jvm && access(perf_map.c_str(), F_OK) != 0) {
    std::fprintf(stderr,
                 "hearth alloc: process %d wrote no perf map (%s) yet: its compiled Java methods "
                 "are [unknown] without one; `jcmd %d Compiler.perfmap` writes it (read again as "
                 "it changes)\n",
                 a.pid, perf_map.c_str(), a.pid);
  }
  if (jvm) names = "Java objects (object__alloc; needs -XX:+ExtendedDTraceProbes)";
  std::fprintf(stderr,
               "hearth alloc: sampling %s of %s in process %d, one sample per %s allocated on "
               "average, for %g s (Ctrl-C ends sooner)%s\n",
               names.c_str(), allocator->path.c_str(), a.pid,
               bytes_text(static_cast<double>(a.mean)).c_str(), a.duration,
               !a.live    ? ""
               : has_free ? "; live view: the sampled blocks are followed until free"
                          : "; live view: no free in this allocator, every sampled block counts "
                            "as live");

  const Pattern only_class = *Pattern::compile(a.class_regex);
  const Pattern skip_class = *Pattern::compile(a.exclude_class);
  const bool class_filter = !a.class_regex.empty() || !a.exclude_class.empty();
  uint64_t filtered = 0;  // samples whose class --class / --exclude-class left out
  auto on_sample = [&](const hearth_alloc_event& e) {
    if (class_filter && e.kind == HEARTH_ALLOC_JVM_OBJECT) {
      const std::string name = alloc::java_class_name(
          std::string_view(e.class_name, std::min<size_t>(e.class_len, sizeof e.class_name)));
      if ((!a.class_regex.empty() && !only_class.search(name)) ||
          (!a.exclude_class.empty() && skip_class.search(name))) {
        ++filtered;
        return;
      }
    }
    profile->add(e);
  };
  const auto start = AllocClock::now();
  const auto end = start + std::chrono::duration_cast<AllocClock::duration>(
                               std::chrono::duration<double>(a.duration));
  const alloc::AllocWindowEnd window = alloc::run_alloc_window(
      {.pidfd = pidfd.get(),
       .ended = [&] { return AllocClock::now() >= end || shutdown_requested(); }},
      *probe, *profile, on_sample);
  const std::string ended_because = window.exited ? "the process exited" : window.error;
  const double seconds = std::chrono::duration<double>(AllocClock::now() - start).count();
  const alloc::AllocProbeTotals totals = probe->totals();

  const alloc::AllocWeight weight =
      a.count ? alloc::AllocWeight::kCalls : alloc::AllocWeight::kBytes;
  alloc::AllocLiveStats live{};
  stacks::StackCounts counts;
  if (a.live) {
    const std::vector<hearth_alloc_live> blocks = probe->live_blocks();
    counts = profile->live_counts(blocks, weight, &live);
  } else {
    counts = profile->counts(weight);
  }
  probe = std::unexpected(Error{});  // nothing of ours left in the kernel
  if (!ended_because.empty())
    std::fprintf(stderr, "hearth alloc: window ended: %s\n", ended_because.c_str());

  const alloc::AllocProfileStats& ps = profile->stats();
  // What was sampled, and what of it the output stands on: said on stderr and in the picture.
  char sampled[512];
  std::snprintf(sampled, sizeof sampled,
                "%s %s, %s in %.1f s; %s sampled (%s lost to a full ring buffer%s), "
                "%s stacks (%s truncated)",
                thousands(totals.calls).c_str(), jvm ? "Java objects" : "allocator calls",
                bytes_text(static_cast<double>(totals.bytes)).c_str(), seconds,
                thousands(ps.samples).c_str(), thousands(totals.lost).c_str(),
                class_filter ? (", " + thousands(filtered) + " left out by class").c_str() : "",
                thousands(ps.stacks).c_str(), thousands(ps.truncated).c_str());
  char view[512];
  if (a.live) {
    std::snprintf(view, sizeof view,
                  "live at the end: %s sampled blocks (%s freed in the window, %s dropped for "
                  "want of room in the live map of %s, %s without a sample), standing for %s in "
                  "%s blocks; blocks allocated before the window are not seen",
                  thousands(live.blocks).c_str(), thousands(totals.freed).c_str(),
                  thousands(totals.dropped).c_str(), thousands(a.live_max).c_str(),
                  thousands(live.unknown).c_str(), bytes_text(live.bytes).c_str(),
                  thousands(static_cast<uint64_t>(std::llround(live.calls))).c_str());
  } else {
    std::snprintf(view, sizeof view, "estimated from the samples: %s in %s %s",
                  bytes_text(ps.bytes).c_str(),
                  thousands(static_cast<uint64_t>(std::llround(ps.calls))).c_str(),
                  jvm ? "objects" : "calls");
  }
  if (counts.total() == 0 && jvm && totals.calls == 0) {
    std::fprintf(stderr,
                 "hearth alloc: no object__alloc probe fired in process %d in %.1f s: start the "
                 "JVM with -XX:+ExtendedDTraceProbes (HotSpot's allocation probes are off without "
                 "it); nothing written\n",
                 a.pid, seconds);
    return 1;
  }
  if (counts.total() == 0) {
    std::fprintf(stderr,
                 "hearth alloc: %s in %.1f s (%s calls, %s allocated; %s): nothing written; %s\n",
                 a.live ? "no sampled block still live" : "no allocation sampled", seconds,
                 thousands(totals.calls).c_str(),
                 bytes_text(static_cast<double>(totals.bytes)).c_str(), view,
                 a.live && ps.samples > 0 ? "every sampled block was freed"
                                          : "a longer -d or a smaller --mean samples more");
    return 1;
  }
  const std::string folded = counts.to_folded();
  int status = 0;
  if (is_picture(a.output)) {
    const std::string what =
        a.live ? (a.count ? "live blocks" : "live bytes") : (a.count ? "calls" : "bytes");
    status = write_alloc_picture(a, jvm, folded,
                                 std::string(a.live ? "Live heap"
                                             : jvm  ? "Java allocations"
                                                    : "Allocations") +
                                     ": process " + std::to_string(a.pid) + ", " + what +
                                     (a.live ? " at the end of " : " over ") +
                                     plain_number(seconds) + " s",
                                 picture_subtitle(a, jvm, totals, ps, live));
  } else if (auto w = write_file_atomically(a.output, folded); !w) {
    std::fprintf(stderr, "hearth alloc: %s\n", w.error().message.c_str());
    status = 1;
  }
  if (status != 0) return status;
  std::fprintf(stderr, "hearth alloc: wrote %s (%s%s): %s; %s\n", a.output.c_str(),
               a.live ? "live " : "", a.count ? (a.live ? "blocks" : "calls") : "bytes", sampled,
               view);
  return 0;
}

}  // namespace hearth::cli
