#!/usr/bin/env bash
# `hearth flame` on gdb's own `thread apply all bt` text of a real process (two snapshots, one
# after the other, as a poor-man's profiler leaves them), against the classic PMP pipeline (awk
# over the same text, each frame named by the word after "in", or the first word when gdb gives
# no address; one line per thread; `sort | uniq -c`): the same number of thread samples, and for
# every function that pipeline names, and that no stack holds twice, the same count of stacks
# holding it (frames compared by function name). Format detected from the content, or forced.
#   tests/integration/gdb_text_cli.sh HEARTH_BINARY TARGETS_DIR
set -uo pipefail
hearth=${1:?usage: gdb_text_cli.sh HEARTH_BINARY TARGETS_DIR}
targets=${2:?usage: gdb_text_cli.sh HEARTH_BINARY TARGETS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"
command -v gdb >/dev/null || { echo "gdb_text_cli: gdb is not installed (bin/setup installs it)"; exit 1; }

start_stack_target "$targets" --threads 6 --depth 3 --spin 0

for _ in 1 2; do
  gdb -p "$target" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' >>"$t/pmp.txt" 2>/dev/null
done
kill -0 "$target" 2>/dev/null && ok || bad "the target did not survive gdb"

# The classic pipeline: stacks innermost first, ","-joined, counted.
awk '/^Thread / { if (s != "") print s; s = "" }
     /^#/ { f = ($3 == "in") ? $4 : $2; s = (s == "") ? f : s "," f }
     END { if (s != "") print s }' "$t/pmp.txt" | sort | uniq -c >"$t/pmp.counts"
threads=$(awk '{ n += $1 } END { print n + 0 }' "$t/pmp.counts")
[ "$threads" -ge 14 ] && ok || bad "gdb gave $threads thread stacks over two snapshots, want 2 x 7+"

expect_exit 0 "flame on gdb text" -- "$hearth" flame "$t/pmp.txt" -o "$t/auto.svg"
expect_exit 0 "flame --format gdb" -- "$hearth" flame --format gdb "$t/pmp.txt" -o "$t/forced.svg"
cmp -s "$t/auto.svg" "$t/forced.svg" && ok || bad "detected and forced gdb text drew different pictures"
grep -q "<title>all ($threads samples, 100%)</title>" "$t/auto.svg" && ok \
  || bad "the picture's total is not the $threads thread samples: $(grep -o '<title>all [^<]*' "$t/auto.svg")"
grep -q '<title>\[[^] ]* tid=[0-9]*\] ' "$t/auto.svg" && ok || bad "no thread root [NAME tid=TID]"

# Per function: stacks holding it, by the pipeline and in the picture (a frame's count is the
# stacks through it; a name no stack holds twice sums to exactly that).
awk '{ n = $1; split($2, fs, ","); delete seen
       for (i in fs) seen[fs[i]]++
       for (f in seen) { count[f] += n; if (seen[f] > 1) bad[f] = 1 } }
     END { for (f in count) if (!(f in bad) && f ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print f, count[f] }' \
  "$t/pmp.counts" | sort >"$t/want"
"$here/../golden/frames.sh" "$t/auto.svg" |
  awk '{ $1 = $2 = $3 = ""; sub(/^ +/, ""); name = $0; sub(/ \([0-9,]+ samples?, [0-9.]+%\)$/, "", name)
         n = $0; sub(/.* \(/, "", n); sub(/ samples?.*/, "", n); gsub(/,/, "", n); sum[name] += n }
       END { for (f in sum) print f, sum[f] }' | sort >"$t/got"
compared=0
while read -r name want; do
  got=$(awk -v f="$name" '$1 == f { print $2 }' "$t/got")
  [ "$got" = "$want" ] && ok || bad "$name: $want stacks by the PMP pipeline, ${got:-none} in the picture"
  compared=$((compared + 1))
done <"$t/want"
[ "$compared" -ge 5 ] && ok || bad "only $compared functions compared"
grep -q '^leaf_mutex \|^leaf_cond ' "$t/want" && ok || bad "the target's leaf functions are not among them"

# Forced folded: gdb's lines are not folded stacks, so nothing is drawn.
expect_exit 2 "flame --format folded on gdb text" -- "$hearth" flame --format folded "$t/pmp.txt" -o "$t/folded.svg"
finish gdb_text_cli
