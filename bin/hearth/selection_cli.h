// The process selection `hearth stacks`, `record` and `sched` share: several -p, --children
// (also --inherit), --comm REGEX. The verbs' argument structs derive from SelectionArgs; their
// options are declared once (main.cpp's add_selection_options), checked once (here), and turned
// into the collectors' proc::ProcessSelection once (here).
#pragma once

#include <string>
#include <vector>

#include "collectors/proc/process_select.h"

namespace hearth::cli {

struct SelectionArgs {
  std::vector<int> pids;  // -p, repeatable
  bool children = false;  // --children/--inherit: and their descendants
  std::string comm;       // --comm: and the processes whose name or title matches (RE2); "": none
};

// Whether anything is selected (-p or --comm).
bool selects_some(const SelectionArgs& a);

// The problems with the selection's options as given, each one line: a -p that is not a
// process id, a --comm that is not a pattern. Whether anything is selected at all is the verb's
// to say (sched also takes -a).
std::vector<std::string> validate_selection(const SelectionArgs& a);

// The selection for the collectors. A validated A (its pattern compiles).
proc::ProcessSelection process_selection(const SelectionArgs& a);

}  // namespace hearth::cli
