// The process selection of `hearth stacks` lives in collectors/proc (process_select.h), where
// `hearth sched` and `hearth record` use it too; its names, as the stack sampler knew them.
#pragma once

#include "collectors/proc/process_select.h"

namespace hearth::stacks {

using proc::comm_of_stat;
using proc::name_matches;
using proc::ProcessInfo;
using proc::ProcessSelection;
using proc::scan_processes;
using proc::select_processes;
using proc::selection_grows;

}  // namespace hearth::stacks
