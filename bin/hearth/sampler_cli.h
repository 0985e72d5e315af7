// What `hearth stacks` and `hearth record` share about the stack sampler: the --method names and
// the summary a run ends with on stderr (samples, stalls, how the stacks were taken).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "collectors/stacks/process_set.h"
#include "collectors/stacks/sampler.h"

namespace hearth::cli {

// --method's help text, and its values: "auto", "bpf", "ptrace"; nullopt for anything else.
extern const char* const kMethodHelp;
std::optional<stacks::CaptureMethod> method_of(const std::string& name);

// The summary lines of a run of SAMPLER on PID, each starting "hearth VERB: " and ending in a
// line end: samples and stalls (per sample and per thread), how the stacks were taken, execs,
// skipped threads, and a hint when many frames have no name.
std::string sampler_summary(std::string_view verb, stacks::Sampler& sampler, pid_t pid);
// The same for the processes of SET: one process as above; several counted ("14 processes (3
// joined, 2 exited)"), their stalls per process per sample.
std::string sampler_summary(std::string_view verb, stacks::ProcessSet& set);

// When a run's stages ended, for time_summary().
struct RunTimes {
  std::chrono::steady_clock::time_point began, attached, sampled, written;
};

// `--verbose`: where hearth's own time went, one line each starting "hearth VERB: ": attaching
// (SUMMARY's attach steps), the rounds (capture passes, unwinding), then symbolization and
// writing, in wall ms.
std::string time_summary(std::string_view verb, const stacks::SamplerSummary& summary,
                         const RunTimes& times);

// --symbol-cache's help text, and the directory it names: "off" -> "" (no cache), "" -> the
// default ($XDG_CACHE_HOME/hearth or ~/.cache/hearth), else the value.
extern const char* const kSymbolCacheHelp;
std::string symbol_cache_dir(const std::string& option);
// `--verbose`: what the symbol cache did, one line starting "hearth VERB: ".
std::string symbol_cache_summary(std::string_view verb, const std::string& dir);
// The symbol cache's warnings (a planted or unusable file), each a line "hearth VERB: …".
std::string symbol_cache_warnings(std::string_view verb);

// A share of unnamed frames at or above which the summary says how to get names.
constexpr double kUnnamedHintShare = 0.10;

// The hint line (without "hearth VERB: ") for FRAMES, or "" below kUnnamedHintShare: e.g.
// "23% of the frames have no name, most in libfoo.so.1 and app: no symbols for them and no
// debug file found; install their debug symbols (hearth finds them by build-id under
// /usr/lib/debug/.build-id/, or through .gnu_debuglink)".
std::string unnamed_hint(const stacks::UnnamedFrames& frames);

// The hint line for stacks through code outside every file ("[unknown]": JIT-compiled code) when
// the target wrote no perf map and they are kUnnamedHintShare of the samples or more: which
// runtime flag writes one. With a map, when kUnnamedHintShare of the samples or more were cut
// short in JIT code (compiled without frame pointers): the flag that keeps them.
std::string jit_hint(const stacks::UnnamedFrames& frames);

}  // namespace hearth::cli
