#include "bin/hearth/completion.h"

#include <cctype>

namespace hearth::cli {
namespace {

// WORDS joined by blanks, for a bash word list.
std::string completion_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// A word bash may take unquoted in a `case` pattern or a word list: letters, digits, - _ . , /
bool completion_safe(const std::string& word) {
  if (word.empty()) return false;
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '-' && c != '_' && c != '.' && c != '/' && c != ',') return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> completion_choices(const std::string& type_name) {
  const size_t open = type_name.find('{');
  const size_t close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> out;
  std::string item;
  auto take = [&] {
    // "a->0": CLI11 shows a mapping's key and value; the key is what is typed.
    if (const size_t arrow = item.find("->"); arrow != std::string::npos) item.resize(arrow);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (completion_safe(item)) out.push_back(item);
    item.clear();
  };
  for (size_t i = open + 1; i < close; ++i) {
    if (type_name[i] == ',') {
      take();
    } else {
      item += type_name[i];
    }
  }
  take();
  return out;
}

std::string bash_completion(const std::vector<CompletionVerb>& verbs,
                            const std::vector<std::string>& global) {
  std::vector<std::string> verb_names;
  for (const CompletionVerb& v : verbs) verb_names.push_back(v.name);
  std::string s =
      "# bash completion for hearth, made by `hearth completion bash` from its own options.\n"
      "_hearth() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} verb= i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in -*) ;; *) verb=${COMP_WORDS[i]}; break ;; esac\n"
      "  done\n"
      "  if [[ -z $verb ]]; then\n"
      "    COMPREPLY=($(compgen -W '" +
      completion_words(verb_names) + " " + completion_words(global) +
      "' -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local options= takes= choices=\n"
      "  case $verb in\n";
  for (const CompletionVerb& v : verbs) {
    std::vector<std::string> all, valued;
    std::string choice_cases;
    for (const CompletionOption& o : v.options) {
      std::vector<std::string> names;
      for (const std::string& n : o.names) {
        if (completion_safe(n)) names.push_back(n);
      }
      if (names.empty()) continue;
      all.insert(all.end(), names.begin(), names.end());
      if (!o.takes_value) continue;
      valued.insert(valued.end(), names.begin(), names.end());
      if (!o.choices.empty()) {
        std::string pattern;
        for (const std::string& n : names) pattern += (pattern.empty() ? "" : "|") + n;
        choice_cases += "        " + pattern + ") choices='" + completion_words(o.choices) + "' ;;\n";
      }
    }
    s += "    " + v.name + ")\n      options='" + completion_words(all) + "'\n      takes=' " +
         completion_words(valued) + " '\n";
    if (!choice_cases.empty()) s += "      case $prev in\n" + choice_cases + "      esac\n";
    s += "      ;;\n";
  }
  s +=
      "    *) ;;\n"
      "  esac\n"
      "  if [[ -n $choices ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$choices\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  if [[ $prev == -p || $prev == --pid ]] && [[ $takes == *\" $prev \"* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$(cd /proc 2>/dev/null && echo [0-9]*)\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  if [[ $cur == -* && $takes != *\" $prev \"* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "}\n"
      "complete -o filenames -o bashdefault -F _hearth hearth\n";
  return s;
}

}  // namespace hearth::cli
