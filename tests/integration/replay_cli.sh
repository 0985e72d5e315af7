#!/usr/bin/env bash
# `hearth replay` as a user runs it off a terminal: the view printed once, to stdout or -o, from
# a report directory, a timed samples file or raw samples; exit codes and one clear line per
# problem; a damaged file replayed up to the damage with a warning. (The keys: terminal_itest.)
#   tests/integration/replay_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: replay_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs
. "$here/cli_lib.sh"
export TZ=UTC

# A directory, its file, and -o: the same view.
expect_exit 0 "a report directory" -- "$hearth" replay "$inputs/replay"
cp "$t/out" "$t/dir.txt"
grep -q '^hearth replay  pid 4242 (app)  +1.100 s  2026-11-27 06:51:10.100 UTC  ' "$t/dir.txt" \
  && ok || bad "header: $(head -1 "$t/dir.txt")"
grep -q '^STATE       FOR  THREAD' "$t/dir.txt" && ok || bad "no thread states: $(cat "$t/dir.txt")"
[ -s "$t/err" ] && bad "stderr not empty: $(cat "$t/err")" || ok
expect_exit 0 "the file" -- "$hearth" replay "$inputs/replay/stacks.samples.txt"
cmp -s "$t/out" "$t/dir.txt" && ok || bad "the file and its directory differ"
expect_exit 0 "-o" -- "$hearth" replay "$inputs/replay" -o "$t/o.txt"
cmp -s "$t/o.txt" "$t/dir.txt" && ok || bad "-o differs from stdout"
[ -s "$t/out" ] && bad "-o also printed: $(head -2 "$t/out")" || ok
# Raw samples read the same: the same view.
expect_exit 0 "raw samples" -- "$hearth" replay "$inputs/replay-raw" --at 1.1
sed 1d "$t/out" > "$t/raw.txt"
# (no wall clock in raw samples: the header differs, the rest is the same)
sed 1d "$t/dir.txt" | cmp -s - "$t/raw.txt" && ok || bad "raw samples replay differently: $(diff <(sed 1d "$t/dir.txt") "$t/raw.txt" | head -5)"

# A damaged file: the part before the damage, and one warning line naming file and line.
expect_exit 0 "a damaged file" -- "$hearth" replay "$inputs/replay-damaged.samples.txt"
[ "$(wc -l < "$t/err")" = 1 ] && ok || bad "warning is not one line: $(cat "$t/err")"
grep -q '^hearth replay: warning: .*replay-damaged.samples.txt:[0-9]*: .*; replaying the [0-9]* samples before it' "$t/err" \
  && ok || bad "warning: $(cat "$t/err")"
head -1 "$t/out" | grep -q ' +0.800 s ' && ok || bad "not replayed to the damage: $(head -1 "$t/out")"

# Bad input and usage: one line, exit 2, nothing written.
expect_exit 2 "no such file" -- "$hearth" replay "$t/none.txt"
grep -q "^hearth replay: .*none.txt" "$t/err" && ok || bad "missing file: $(cat "$t/err")"
mkdir "$t/empty"
expect_exit 2 "a directory without samples" -- "$hearth" replay "$t/empty"
grep -q "no stacks.samples.txt or stacks.raw.txt in it" "$t/err" && ok || bad "$(cat "$t/err")"
printf 'not samples\n' > "$t/bad.txt"
expect_exit 2 "not a samples file" -- "$hearth" replay "$t/bad.txt" -o "$t/bad-out.txt"
[ "$(wc -l < "$t/err")" = 1 ] && grep -q "bad.txt:1" "$t/err" && ok || bad "bad file: $(cat "$t/err")"
[ -e "$t/bad-out.txt" ] && bad "an output was written for bad input" || ok
expect_exit 2 "a range with no sample" -- "$hearth" replay "$inputs/replay" --from 5
grep -q "stacks.samples.txt: no sample from 5.000 s to the end: the recording spans 0.000 to 1.100 s" "$t/err" \
  && ok || bad "$(cat "$t/err")"
expect_exit 2 "--at after the end" -- "$hearth" replay "$inputs/replay" --at 1.5
grep -q "stacks.samples.txt: --at 1.500 s is after the last sample replayed (1.100 s)" "$t/err" \
  && ok || bad "$(cat "$t/err")"
expect_exit 2 "every problem said" -- "$hearth" replay "$inputs/replay" --speed 100 --from 3 --to 2 --window -1
[ "$(wc -l < "$t/err")" = 3 ] && ok || bad "want 3 lines: $(cat "$t/err")"
expect_exit 2 "output onto the input" -- "$hearth" replay "$inputs/replay/stacks.samples.txt" -o "$inputs/replay/stacks.samples.txt"
grep -q "is also an input" "$t/err" && ok || bad "$(cat "$t/err")"

finish replay_cli
