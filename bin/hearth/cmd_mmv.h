// `hearth mmv`: snapshots of PCP MMV files (no pmcd): one table on a terminal with -n 1,
// otherwise the series as TSV (README, "MMV series").
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

struct MmvArgs {
  std::vector<std::string> inputs;  // FILE, NAME or DIR; none: $PCP_TMP_DIR/mmv
  double interval = 1;              // -i, s
  int count = 0;                    // -n, snapshots; 0: until -d, or until interrupted
  double duration = 0;              // -d, s; 0: no limit
  std::string output;               // -o FILE; "-" or empty: standard output
  bool reproducible = false;        // --reproducible
  bool help_text = false;           // --help-text: the table shows short help
};

// Checks everything that needs no file; returns every problem found (empty: fine).
std::vector<std::string> validate_mmv(const MmvArgs& args);
// Runs the verb; returns the exit code (0 done; 1 no file could be read or the output could
// not be written; 2 bad usage).
int run_mmv(const MmvArgs& args);

}  // namespace hearth::cli
