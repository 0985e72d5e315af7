// Whether a running HotSpot JVM fires its object__alloc probe: the value of libjvm's
// DTraceAllocProbes flag (a bool global, set at startup by -XX:+ExtendedDTraceProbes or
// -XX:+DTraceAllocProbes and fixed for the JVM's life: the interpreter and the compilers build
// the probe's calls in or not), read from the process's memory at the address libjvm's symbol
// table gives it. So `hearth alloc` says at once, not after its window, that the flag is missing.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "collectors/proc/maps.h"

namespace hearth::alloc {

// The flag of process PID, whose mappings are MAPS and whose libjvm.so is mapped at LIBJVM (one
// of MAPS). nullopt when it cannot tell: a libjvm without the symbol (stripped of .symtab), a
// memory it cannot read.
std::optional<bool> jvm_alloc_probes_on(pid_t pid, const std::vector<proc::Mapping>& maps,
                                        const proc::Mapping& libjvm);

}  // namespace hearth::alloc
