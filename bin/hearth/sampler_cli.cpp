#include "bin/hearth/sampler_cli.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "bin/hearth/figures.h"
#include "collectors/stacks/symbol_cache.h"

namespace hearth::cli {
namespace {

// Appends "hearth VERB: " and the printf-formatted rest to *OUT.
[[gnu::format(printf, 3, 4)]] void line(std::string* out, std::string_view verb, const char* fmt,
                                        ...) {
  out->append("hearth ").append(verb).append(": ");
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  out->append(buf);
}

// What a summary is made of, from one Sampler or from a ProcessSet.
struct SummaryInput {
  std::string subject;  // "pid 4242", or "14 processes (3 joined, 2 exited)"
  bool several = false;
  const stacks::SamplerSummary* summary = nullptr;
  std::string method;
  stacks::UnnamedFrames unnamed;
};

std::string summary_of(std::string_view verb, const SummaryInput& in);

}  // namespace

const char* const kMethodHelp =
    "auto: copy sleeping threads without stopping them (BPF), stop only those on a CPU; falls "
    "back to ptrace where BPF is unavailable. bpf: that or fail. ptrace: stop every thread each "
    "sample";

std::optional<stacks::CaptureMethod> method_of(const std::string& name) {
  if (name == "auto") return stacks::CaptureMethod::kAuto;
  if (name == "bpf") return stacks::CaptureMethod::kBpf;
  if (name == "ptrace") return stacks::CaptureMethod::kPtrace;
  return std::nullopt;
}

std::string unnamed_hint(const stacks::UnnamedFrames& frames) {
  if (frames.frames == 0) return "";
  const double share = static_cast<double>(frames.unnamed) / static_cast<double>(frames.frames);
  if (share < kUnnamedHintShare) return "";
  std::string modules;
  const size_t shown = std::min<size_t>(frames.by_module.size(), 3);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) modules += i + 1 == shown ? " and " : ", ";
    modules += frames.by_module[i].first;
  }
  if (frames.by_module.size() > shown)
    modules += " (and " + std::to_string(frames.by_module.size() - shown) + " more)";
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * share);
  return std::string(pct) + " of the frames have no name, most in " + modules +
         ": no symbols for them and no debug file found; install their debug symbols (hearth "
         "finds them by build-id under /usr/lib/debug/.build-id/, or through .gnu_debuglink)";
}

std::string jit_hint(const stacks::UnnamedFrames& frames) {
  if (frames.samples == 0) return "";
  if (frames.perf_map) {
    // Of the stacks through JIT code: a busy JIT thread among many idle native ones counts.
    if (frames.jit == 0) return "";
    const double lost = static_cast<double>(frames.lost_in_jit) / static_cast<double>(frames.jit);
    if (lost < kUnnamedHintShare) return "";
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * lost);
    return std::string(pct) + " of the stacks through JIT-compiled code stop in it (compiled " +
           "without frame pointers): start Java with -XX:+PreserveFramePointer (Node keeps them)";
  }
  const double share = static_cast<double>(frames.unknown) / static_cast<double>(frames.samples);
  if (share < kUnnamedHintShare) return "";
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * share);
  return std::string(pct) + " of the stacks run through code outside any file (JIT-compiled, " +
         "most likely) and the target wrote no perf map (" + frames.perf_map_path +
         "): start Node with --perf-basic-prof, Java with -XX:+PreserveFramePointer and run "
         "jcmd PID Compiler.perfmap, .NET with DOTNET_PerfMapEnabled=1, Python 3.12+ with -X perf";
}

std::string sampler_summary(std::string_view verb, stacks::Sampler& sampler, pid_t pid) {
  return summary_of(verb, {.subject = "pid " + std::to_string(pid),
                           .several = false,
                           .summary = &sampler.summary(),
                           .method = std::string(sampler.method()),
                           .unnamed = sampler.unnamed_frames()});
}

std::string sampler_summary(std::string_view verb, stacks::ProcessSet& set) {
  const stacks::SamplerSummary all = set.summary();
  std::string subject = "pid " + std::to_string(set.first_pid());
  if (set.several()) {
    subject = std::to_string(set.processes()) + " process" + (set.processes() == 1 ? "" : "es");
    if (set.joined() + set.exited() > 0) {
      subject += " (" + std::to_string(set.joined()) + " joined, " + std::to_string(set.exited()) +
                 " exited during the run)";
    }
  }
  return summary_of(verb, {.subject = subject,
                           .several = set.several(),
                           .summary = &all,
                           .method = set.method(),
                           .unnamed = set.unnamed_frames()});
}

const char* const kSymbolCacheHelp =
    "Where names found in earlier runs are kept, per build-id, and the kernel's symbols of "
    "this boot (default: $XDG_CACHE_HOME/hearth or ~/.cache/hearth); 'off': no cache";

std::string symbol_cache_dir(const std::string& option) {
  if (option == "off") return "";
  if (option.empty()) return stacks::default_symbol_cache_dir();
  return option;
}

std::string symbol_cache_summary(std::string_view verb, const std::string& dir) {
  const stacks::SymbolCacheStats s = stacks::symbol_cache_stats();
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::string out;
  line(&out, verb,
       "time: symbols: cache %s: %llu entries read, %llu absent, %llu refused (%.1f ms), %llu "
       "written (%.1f ms); names: %llu from the cache, %llu resolved from ELF/DWARF\n",
       dir.empty() ? "off" : dir.c_str(), u(s.entries_loaded), u(s.entries_absent),
       u(s.entries_refused), s.load_ms, u(s.entries_written), s.write_ms, u(s.names_cached),
       u(s.names_resolved));
  if (!s.kernel.empty())
    line(&out, verb, "time: kernel symbols: %s (%.1f ms)\n", s.kernel.c_str(), s.kernel_ms);
  return out;
}

std::string symbol_cache_warnings(std::string_view verb) {
  std::string out;
  for (const std::string& w : stacks::take_symbol_cache_warnings())
    out += "hearth " + std::string(verb) + ": " + w + "\n";
  return out;
}

std::string time_summary(std::string_view verb, const stacks::SamplerSummary& s,
                         const RunTimes& t) {
  auto ms = [](auto from, auto to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  std::string out;
  std::string steps;
  for (const stacks::SamplerSummary::Phase& p : s.attach_ms) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s%s %.1f", steps.empty() ? "" : ", ", p.what.c_str(), p.ms);
    steps += buf;
  }
  double passes = 0;
  for (double p : s.capture_ms) passes += p;
  line(&out, verb, "time: attaching %.1f ms (%s)\n", ms(t.began, t.attached), steps.c_str());
  line(&out, verb,
       "time: %llu round%s %.1f ms (capture passes %.1f, unwinding %.1f; the rest waits between "
       "rounds and ptrace stops)\n",
       static_cast<unsigned long long>(s.rounds), s.rounds == 1 ? "" : "s",
       ms(t.attached, t.sampled), passes, s.unwind_ms);
  if (!s.capture_ms.empty()) {
    // The first pass copies every thread; later ones only those that ran since (and page
    // faults there mean buffers made anew each round).
    std::string later;
    if (s.capture_ms.size() > 1) {
      auto rest = [](const auto& v) {
        return std::vector<double>(v.begin() + 1, v.end());
      };
      std::vector<double> faults(s.capture_faults.begin() + (s.capture_faults.empty() ? 0 : 1),
                                 s.capture_faults.end());
      char buf[192];
      std::snprintf(buf, sizeof buf, "; later ones: median %.1f ms, CPU %.1f ms, %.0f page faults",
                    median_of(rest(s.capture_ms)), median_of(rest(s.capture_cpu_ms)),
                    median_of(faults));
      later = buf;
    }
    line(&out, verb,
         "time: capture passes, unwinding left out: first %.1f ms, CPU %.1f ms, %llu page "
         "faults%s\n",
         s.capture_ms.front(), s.capture_cpu_ms.front(),
         static_cast<unsigned long long>(s.capture_faults.empty() ? 0 : s.capture_faults.front()),
         later.c_str());
  }
  line(&out, verb,
       "time: output %.1f ms (symbolizing %zu distinct stack%s: %.1f ms of it); %.1f ms in all\n",
       ms(t.sampled, t.written), s.stacks_symbolized, s.stacks_symbolized == 1 ? "" : "s",
       s.symbolize_ms, ms(t.began, t.written));
  return out;
}

namespace {

std::string summary_of(std::string_view verb, const SummaryInput& in) {
  const stacks::SamplerSummary& s = *in.summary;
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::string out;
  line(&out, verb,
       "%s: %llu sample%s of %s%zu threads%s (%llu stacks, %llu truncated, %llu threads "
       "skipped) in %.1f s; stall per %ssample: median %.3f ms, max %.3f ms; per thread: median "
       "%.0f us, max %.0f us\n",
       in.subject.c_str(), u(s.rounds), s.rounds == 1 ? "" : "s", in.several ? "" : "up to ",
       s.threads_seen, in.several ? " in all" : "", u(s.thread_samples), u(s.truncated),
       u(s.skipped), s.elapsed_s, in.several ? "process per " : "", median_of(s.round_stall_ms),
       max_of(s.round_stall_ms), median_of(s.thread_stall_us), max_of(s.thread_stall_us));
  std::string pass;
  if (!s.capture_ms.empty()) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "; capture pass: median %.3f ms, max %.3f ms (CPU %.3f ms)",
                  median_of(s.capture_ms), max_of(s.capture_ms), median_of(s.capture_cpu_ms));
    pass = buf;
  }
  line(&out, verb,
       "capture %.*s: %llu stacks copied without a stop, %llu unchanged since their last copy, "
       "%llu taken in a ptrace stop%s\n",
       static_cast<int>(in.method.size()), in.method.data(), u(s.copied), u(s.reused), u(s.stopped),
       pass.c_str());
  if (s.execs > 0) {
    line(&out, verb,
         "the target called execve %llu time%s during the run; its new maps and symbols were "
         "loaded, and the raw samples mark where (# exec)\n",
         u(s.execs), s.execs == 1 ? "" : "s");
  }
  for (const std::string& t : s.skipped_threads) line(&out, verb, "skipped thread %s\n", t.c_str());
  if (s.taken_alone > 0) {
    line(&out, verb,
         "%llu thread sample%s taken alone, after the others were released (not stopped within "
         "the snapshot's bound; see --method ptrace in the README):\n",
         u(s.taken_alone), s.taken_alone == 1 ? "" : "s");
  }
  for (const std::string& t : s.alone_threads) line(&out, verb, "taken alone %s\n", t.c_str());
  for (const std::string& hint : {unnamed_hint(in.unnamed), jit_hint(in.unnamed)}) {
    if (!hint.empty()) out.append("hearth ").append(verb).append(": ").append(hint).append("\n");
  }
  return out;
}

}  // namespace
}  // namespace hearth::cli
