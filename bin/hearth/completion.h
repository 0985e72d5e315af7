// `hearth completion bash`: a bash completion script made from hearth's own command line (its
// verbs and each verb's options, as --help lists them), so it never drifts from the binary:
//   source <(hearth completion bash)        # or: hearth completion bash >
//                                           #   /usr/share/bash-completion/completions/hearth
// It completes a verb, a verb's options, an option's fixed choices (--method auto|bpf|ptrace),
// a process id after -p/--pid (of the processes running then), and file names otherwise. (zsh
// should read it through bashcompinit; not tried.)
#pragma once

#include <string>
#include <vector>

namespace hearth::cli {

struct CompletionOption {
  std::vector<std::string> names;    // "-p", "--pid"
  std::vector<std::string> choices;  // the fixed values it takes ({auto,bpf,ptrace}); empty: any
  bool takes_value = false;          // a flag takes none
};

struct CompletionVerb {
  std::string name;
  std::vector<CompletionOption> options;
};

// The script for VERBS and the options before any verb (GLOBAL: --help, --version).
std::string bash_completion(const std::vector<CompletionVerb>& verbs,
                            const std::vector<std::string>& global);

// The choices of a CLI11 type name such as "TEXT:{wall,cpu}" or "ENUM:value in {a->0,b->1}"
// ({wall, cpu}); none when it lists none.
std::vector<std::string> completion_choices(const std::string& type_name);

}  // namespace hearth::cli
