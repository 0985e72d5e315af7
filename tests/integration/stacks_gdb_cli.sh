#!/usr/bin/env bash
# `hearth stacks --format gdb`: each sample as gdb's `thread apply all bt` prints it, so the
# classic poor-man's-profiler pipeline reads it unchanged. On a real target, one run writes the
# gdb text and the raw samples (--raw) of the same samples; then:
#   - the PMP pipeline (awk: "Thread" starts a thread, each "#" line a frame named by the word
#     after "in"; `sort | uniq -c`) over the gdb text gives exactly the per-stack counts of the
#     raw samples, frames compared by function name (the raw stacks read innermost first, kernel
#     frames left out, as gdb shows none; a name nothing gave is gdb's "??");
#   - the thread headers are gdb's (`Thread N (LWP TID "NAME"):`), numbered from 1 (the main
#     thread) and listed highest first; the frames are `#N  0x… in NAME () [from LIB]`;
#   - hearth reads its own gdb text back (the gdb reader): the same thread samples, and for each
#     thread the same stacks as the raw samples';
#   - real gdb's output of the same target, through the same pipeline, names the target's own
#     functions in the same per-function counts (sleeping threads do not move between the two).
#   tests/integration/stacks_gdb_cli.sh HEARTH_BINARY TARGETS_DIR
set -uo pipefail
hearth=${1:?usage: stacks_gdb_cli.sh HEARTH_BINARY TARGETS_DIR}
targets=${2:?usage: stacks_gdb_cli.sh HEARTH_BINARY TARGETS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"

start_stack_target "$targets" --threads 6 --depth 3 --spin 0
# Every worker blocked in its leaf (the target says ready once they are on their way there), so
# that real gdb, later, finds them where hearth did; bounded, not timed: the comparison below
# says if they never got there.
for _ in $(seq 300); do
  [ "$("$hearth" stacks -p "$target" -n 1 2>/dev/null | grep -c ';leaf_\(mutex\|cond\);')" -ge 6 ] && break
  sleep 0.1
done

expect_exit 0 "stacks --format gdb" -- "$hearth" stacks -p "$target" -n 3 -F 20 --format gdb \
  -o "$t/gdb.txt" --raw "$t/raw.txt"
rounds=$(grep -c '^# round' "$t/raw.txt")
[ "$rounds" = 3 ] && ok || bad "the raw samples hold $rounds rounds, want 3"
samples=$(grep -vc '^#' "$t/raw.txt")
headers=$(grep -c '^Thread ' "$t/gdb.txt")
[ "$headers" = "$samples" ] && ok || bad "$headers thread headers for $samples thread samples"
[ "$samples" -ge 21 ] && ok || bad "only $samples thread samples (3 rounds of 7+ threads)"

# gdb's shapes: every header and frame line as gdb writes them, the main thread as Thread 1,
# the first listed the highest number.
bad_lines=$(grep -Ev '^$|^Thread [0-9]+ \(LWP [0-9]+ ".*"\):$|^#[0-9]+ +0x[0-9a-f]{16} in .+ \(\)( from /.+)?$|^Backtrace stopped: ' "$t/gdb.txt" | head -3)
[ -z "$bad_lines" ] && ok || bad "lines not in gdb's form: $bad_lines"
grep -q "^Thread 1 (LWP $target \"stack_target-fp\"):$" "$t/gdb.txt" && ok \
  || bad "the main thread is not Thread 1: $(grep -m1 "LWP $target " "$t/gdb.txt")"
first=$(grep -m1 '^Thread ' "$t/gdb.txt" | awk '{ print $2 }')
most=$(grep '^Thread ' "$t/gdb.txt" | awk '{ print $2 }' | sort -n | tail -1)
[ "$first" = "$most" ] && ok || bad "the first thread listed is $first, not the highest ($most)"
grep -q ' in leaf_cond () *$' "$t/gdb.txt" && ok || bad "no frame of the executable's leaf_cond without a library"
grep -q ' in [^ ]* () from /.*libc\.so\.6$' "$t/gdb.txt" && ok || bad "no libc frame with 'from' its path"

# The PMP pipeline over hearth's text.
pmp() {
  awk '/^Thread / { if (s != "") print s; s = "" }
       /^#/ { f = ($3 == "in") ? $4 : $2; s = (s == "") ? f : s "," f }
       END { if (s != "") print s }' "$1" | sort | uniq -c
}
pmp "$t/gdb.txt" >"$t/pmp.counts"
# The raw samples' stacks the same way: the thread root and kernel frames dropped, inlined
# marks taken off, innermost first, each name's first word (what awk's $4 takes), hearth's
# "[module+0x…]" and "[unknown]" as "??".
awk -F'\t' '!/^#/ { n = split($4, fs, ";"); s = ""
    for (i = n; i >= 2; i--) {
      f = fs[i]
      if (f ~ /_\[k\]$/ || f == "[truncated]") continue
      sub(/_\[[ij]\]$/, "", f)
      if (f ~ /^\[/) f = "??"
      sub(/ .*/, "", f)
      s = (s == "") ? f : s "," f
    }
    print s }' "$t/raw.txt" | sort | uniq -c >"$t/raw.counts"
if cmp -s "$t/pmp.counts" "$t/raw.counts"; then ok; else
  bad "the PMP pipeline's stacks differ from the raw samples': $(diff "$t/raw.counts" "$t/pmp.counts" | head -6)"
fi
[ "$(wc -l <"$t/pmp.counts")" -ge 4 ] && ok || bad "fewer than 4 distinct stacks"

# hearth reads it back: per thread root, the same stacks as the raw samples'.
expect_exit 0 "convert gdb text to folded" -- "$hearth" convert "$t/gdb.txt" "$t/back.folded"
awk '{ n = $NF; $NF = ""; sub(/ $/, ""); split($0, fs, ";"); s = fs[1]
       for (i = 2; i <= length(fs); i++) { f = fs[i]; sub(/ .*/, "", f); s = s ";" f }
       count[s] += n }
     END { for (s in count) print count[s], s }' "$t/back.folded" | sort >"$t/back.counts"
awk -F'\t' '!/^#/ { n = split($4, fs, ";"); s = fs[1]
    for (i = 2; i <= n; i++) {
      f = fs[i]
      if (f ~ /_\[k\]$/ || f == "[truncated]") continue
      sub(/_\[[ij]\]$/, "", f)
      if (f ~ /^\[.*\+0x[0-9a-f]+\]$/) { sub(/\+0x[0-9a-f]+\]$/, "]", f) }
      sub(/ .*/, "", f)
      s = s ";" f
    }
    count[s]++ }
    END { for (s in count) print count[s], s }' "$t/raw.txt" | sort >"$t/raw.folded.counts"
if cmp -s "$t/back.counts" "$t/raw.folded.counts"; then ok; else
  bad "read back, the stacks differ: $(diff "$t/raw.folded.counts" "$t/back.counts" | head -6)"
fi

# Real gdb, the same pipeline: the target's own functions in as many stacks per snapshot.
if command -v gdb >/dev/null; then
  gdb -p "$target" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' >"$t/real.txt" 2>/dev/null
  per_function() {  # stacks holding each of the target's functions, per snapshot
    awk -v snapshots="$2" '{ n = $1; split($2, fs, ","); delete seen
         for (i in fs) if (fs[i] ~ /^(leaf_mutex|leaf_cond|leaf|level_[0-9]+)$/) seen[fs[i]] = 1
         for (f in seen) count[f] += n }
       END { for (f in count) print f, count[f] / snapshots }' "$1" | sort
  }
  pmp "$t/real.txt" >"$t/real.counts"
  per_function "$t/real.counts" 1 >"$t/real.functions"
  per_function "$t/pmp.counts" 3 >"$t/hearth.functions"
  if cmp -s "$t/real.functions" "$t/hearth.functions" && [ -s "$t/real.functions" ]; then ok; else
    bad "the target's functions by gdb and by hearth: $(paste "$t/real.functions" "$t/hearth.functions" | head -6)"
  fi
else
  bad "gdb is not installed (bin/setup installs it)"
fi

# Bad use: one line, exit 2, nothing written.
expect_exit 2 "--format gdb with a pprof output" -- "$hearth" stacks -p "$target" --format gdb -o "$t/x.pb.gz"
[ ! -e "$t/x.pb.gz" ] && ok || bad "a file was written for a refused command"
expect_exit 2 "--format nonsense" -- "$hearth" stacks -p "$target" --format nonsense -o "$t/y.txt"
[ "$(wc -l <"$t/err")" = 1 ] && ok || bad "the error is not one line: $(cat "$t/err")"
finish stacks_gdb_cli
