// What `hearth stacks` and `hearth record` share about the stack sampler: the --method names and
// the summary a run ends with on stderr (samples, stalls, how the stacks were taken).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "collectors/stacks/sampler.h"

namespace hearth::cli {

// --method's help text, and its values: "auto", "bpf", "ptrace"; nullopt for anything else.
extern const char* const kMethodHelp;
std::optional<stacks::CaptureMethod> method_of(const std::string& name);

// The summary lines of a run of SAMPLER on PID, each starting "hearth VERB: " and ending in a
// line end: samples and stalls (per sample and per thread), how the stacks were taken, execs,
// skipped threads.
std::string sampler_summary(std::string_view verb, const stacks::Sampler& sampler, pid_t pid);

}  // namespace hearth::cli
