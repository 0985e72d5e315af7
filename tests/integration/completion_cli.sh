#!/usr/bin/env bash
# `hearth completion bash` in a real bash: the script loads, and completing a verb, a verb's
# option, an option's fixed choices, a pid after -p and a file name gives what a user expects;
# every verb `hearth --help` lists is in it (it is made from the binary's own options, so it
# cannot drift); an unknown shell is one line, exit 2.
#   tests/integration/completion_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: completion_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"

expect_exit 0 "completion bash" -- "$hearth" completion bash
cp "$t/out" "$t/hearth.bash"
bash -n "$t/hearth.bash" && ok || bad "the script is not valid bash"

# complete WORD... : what bash's completion of the last word gives, one per line, sorted.
complete_words() {
  (cd "$t" && bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _hearth
    printf "%s\n" "${COMPREPLY[@]}"' _ "$t/hearth.bash" "$@") | sort
}
[ "$(complete_words hearth st)" = "stacks" ] && ok || bad "hearth st: $(complete_words hearth st)"
[ "$(complete_words hearth s | tr '\n' ' ')" = "sched serve stacks " ] && ok \
  || bad "hearth s: $(complete_words hearth s | tr '\n' ' ')"
[ "$(complete_words hearth stacks --form)" = "--format" ] && ok \
  || bad "hearth stacks --form: $(complete_words hearth stacks --form)"
complete_words hearth watch --al | grep -qx -- '--alloc' && ok || bad "watch --al: $(complete_words hearth watch --al)"
[ "$(complete_words hearth push URL --send-as '' | tr '\n' ' ')" = "folded pprof " ] && ok \
  || bad "push --send-as: $(complete_words hearth push URL --send-as '' | tr '\n' ' ')"
[ "$(complete_words hearth flame --format pe)" = "perf-script" ] && ok \
  || bad "flame --format pe: $(complete_words hearth flame --format pe)"
# After -p: the pids running (this shell's among them), not file names.
complete_words hearth stacks -p "$$" | grep -qx "$$" && ok || bad "-p: no pid $$ offered"
# A value that is a file: file names; an option's value is not taken for an option.
touch "$t/profile.folded"
[ "$(complete_words hearth flame prof)" = "profile.folded" ] && ok \
  || bad "hearth flame prof: $(complete_words hearth flame prof)"
[ -z "$(complete_words hearth flame --title --)" ] && ok \
  || bad "a value after --title was completed as an option: $(complete_words hearth flame --title --)"

# Every verb of --help is there.
"$hearth" --help > "$t/help" 2>&1
verbs=$(awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$t/help")
[ -n "$verbs" ] && ok || bad "no verb found in --help"
for v in $verbs; do
  complete_words hearth "$v" | grep -qx "$v" && ok || bad "verb $v is not completed"
done

expect_exit 2 "an unknown shell" -- "$hearth" completion fish
[ "$(grep -c . "$t/err")" -le 2 ] && grep -q "fish" "$t/err" && ok || bad "unknown shell: $(cat "$t/err")"
finish completion_cli
