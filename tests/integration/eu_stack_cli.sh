#!/usr/bin/env bash
# `hearth flame`/`convert` on elfutils' eu-stack text of a real process (two snapshots
# concatenated, as a poor-man's profiler leaves them: a plain one and one with -s -i -m -a),
# against gdb's `thread apply all bt` of the same process read by hearth's gdb reader. The target
# stands still (its threads block forever, none spins), so both tools see the same stacks:
# - the same threads (tids), each once per snapshot;
# - per thread, the same stack once each frame is kept only where both tools name it alike (the
#   target's own extern "C" functions: main, level_N, leaf, leaf_mutex, leaf_cond), and so the
#   same count of each such stack;
# - format detected from content or forced (--format eu-stack) gives the same picture, and the
#   picture's total is the thread blocks.
#   tests/integration/eu_stack_cli.sh HEARTH_BINARY TARGETS_DIR
set -uo pipefail
hearth=${1:?usage: eu_stack_cli.sh HEARTH_BINARY TARGETS_DIR}
targets=${2:?usage: eu_stack_cli.sh HEARTH_BINARY TARGETS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"
command -v eu-stack >/dev/null || { echo "eu_stack_cli: eu-stack is not installed (elfutils; bin/setup installs it)"; exit 1; }
command -v gdb >/dev/null || { echo "eu_stack_cli: gdb is not installed (bin/setup installs it)"; exit 1; }

start_stack_target "$targets" --threads 6 --depth 3 --spin 0
# Every worker blocked in its leaf (the target says ready once they are on their way there);
# bounded, not timed: the counts below say if they never got there.
for _ in $(seq 300); do
  [ "$(eu-stack -p "$target" 2>/dev/null | grep -c ' leaf_\(mutex\|cond\)$')" -ge 6 ] && break
  sleep 0.1
done

eu-stack -p "$target" >"$t/eu.txt" 2>"$t/eu.err"
eu-stack -p "$target" -s -i -m -a >>"$t/eu.txt" 2>>"$t/eu.err"
gdb -p "$target" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' >"$t/gdb.txt" 2>/dev/null
kill -0 "$target" 2>/dev/null && ok || bad "the target did not survive eu-stack and gdb"
tids=$(ls /proc/$target/task | wc -l)
blocks=$(grep -c '^TID [0-9]*:$' "$t/eu.txt")
[ "$blocks" = $((2 * tids)) ] && ok || bad "eu-stack gave $blocks thread blocks, want 2 x $tids"

expect_exit 0 "convert eu-stack text" -- "$hearth" convert "$t/eu.txt" "$t/eu.folded"
expect_exit 0 "convert --format eu-stack" -- "$hearth" convert --format eu-stack "$t/eu.txt" "$t/forced.folded"
cmp -s "$t/eu.folded" "$t/forced.folded" && ok || bad "detected and forced eu-stack text gave different stacks"
expect_exit 0 "convert gdb text" -- "$hearth" convert "$t/gdb.txt" "$t/gdb.folded"
expect_exit 0 "flame on eu-stack text" -- "$hearth" flame "$t/eu.txt" -o "$t/eu.svg"
grep -q "<title>all ($blocks samples, 100%)</title>" "$t/eu.svg" && ok \
  || bad "the picture's total is not the $blocks thread blocks: $(grep -o '<title>all [^<]*' "$t/eu.svg")"
grep -q '<title>\[unnamed tid=[0-9]*\] ' "$t/eu.svg" && ok || bad "no thread root [unnamed tid=TID]"

# Per thread, the frames both tools name alike, root side first; then counted.
comparable() {  # FOLDED TIMES -> "TID frame;frame;… COUNT×TIMES" lines, sorted
  awk -v times="$2" '{ count = $NF * times; sub(/ [0-9]+$/, ""); n = split($0, f, ";")
         tid = f[1]; sub(/.*tid=/, "", tid); sub(/\]$/, "", tid)
         s = ""
         for (i = 2; i <= n; i++) if (f[i] ~ /^(main|level_[0-9]+|leaf|leaf_mutex|leaf_cond)$/) s = s ";" f[i]
         sum[tid " " substr(s, 2)] += count }
       END { for (k in sum) print k, sum[k] }' "$1" | sort
}
comparable "$t/eu.folded" 1 >"$t/eu.cmp"
comparable "$t/gdb.folded" 2 >"$t/gdb.cmp"  # gdb: one snapshot, eu-stack two
[ "$(wc -l <"$t/eu.cmp")" = "$tids" ] && ok || bad "not one comparable stack per thread: $(cat "$t/eu.cmp")"
diff "$t/gdb.cmp" "$t/eu.cmp" >"$t/cmp.diff" && ok || bad "eu-stack's stacks differ from gdb's: $(head -20 "$t/cmp.diff")"
grep -c ';leaf;leaf_mutex ' "$t/eu.cmp" | grep -qx 3 && ok || bad "want 3 threads in leaf_mutex: $(cat "$t/eu.cmp")"
grep -c ';leaf;leaf_cond ' "$t/eu.cmp" | grep -qx 3 && ok || bad "want 3 threads in leaf_cond: $(cat "$t/eu.cmp")"

# eu-stack's text is not folded stacks: forced folded draws nothing.
expect_exit 2 "convert --format folded on eu-stack text" -- "$hearth" convert --format folded "$t/eu.txt" "$t/x.folded"
[ ! -e "$t/x.folded" ] && ok || bad "a refused conversion left a file"
finish eu_stack_cli
