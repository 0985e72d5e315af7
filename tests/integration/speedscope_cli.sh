#!/usr/bin/env bash
# speedscope JSON in and out, through the command line:
#  - every folded file of the shared test data (and the repository's sample) goes folded ->
#    speedscope -> folded with identical stacks and counts (each stack's counts summed, as
#    written), and the JSON holds one sampled profile per root whose weights add up to the total;
#  - hearth flame draws a .speedscope.json (by content, forced, or piped) as it draws the folded
#    file; flame -o OUT.speedscope.json writes what convert writes;
#  - timed samples (stacks.samples.txt) -> speedscope: one timed profile per thread;
#  - bad speedscope (a dangling frame index, JSON cut short): one line, exit 2, nothing written.
# The real speedscope app reading hearth's JSON is tests/browser/speedscope.test.mjs.
#   tests/integration/speedscope_cli.sh HEARTH_BINARY SOURCE_DIR [FOLDED_TESTDATA_DIR]
set -uo pipefail
hearth=${1:?usage: speedscope_cli.sh HEARTH_BINARY SOURCE_DIR [FOLDED_TESTDATA_DIR]}
src=${2:?usage: speedscope_cli.sh HEARTH_BINARY SOURCE_DIR [FOLDED_TESTDATA_DIR]}
testdata=${3:-$src/../shared/testdata/folded}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"

inputs=("$src/samples/synthetic-server.folded")
if [ -d "$testdata" ]; then
  inputs+=("$testdata"/*.folded)
else
  echo "speedscope_cli: no shared test data at $testdata: the repository's sample only"
fi

# Each distinct stack and its summed count, as written (a folded file may repeat a stack).
sums() { awk '{ c = $NF; $NF = ""; sub(/ $/, ""); s[$0] += c } END { for (k in s) print k " " s[k] }' "$1" | LC_ALL=C sort; }

n=0
for f in "${inputs[@]}"; do
  n=$((n + 1))
  b=$(basename "$f" .folded)
  expect_exit 0 "$b: convert to speedscope" -- "$hearth" convert "$f" "$t/$n.speedscope.json"
  expect_exit 0 "$b: convert back" -- "$hearth" convert "$t/$n.speedscope.json" "$t/$n.back.folded"
  sums "$f" >"$t/$n.want"
  sums "$t/$n.back.folded" >"$t/$n.got"
  cmp -s "$t/$n.want" "$t/$n.got" && ok || bad "$b: folded -> speedscope -> folded changed stacks or counts: $(diff "$t/$n.want" "$t/$n.got" | head -4)"
  # The JSON itself (read by python's json, not hearth): profiles per root, weights' sum.
  total=$(awk '{ n += $NF } END { print n }' "$f")
  roots=$(awk '{ $NF = ""; split($0, fs, ";"); sub(/ $/, "", fs[1]); print fs[1] }' "$f" | LC_ALL=C sort -u | wc -l)
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
ps = d["profiles"]
assert all(p["type"] == "sampled" and len(p["samples"]) == len(p["weights"]) and p["endValue"] == sum(p["weights"]) for p in ps)
assert all(0 <= i < len(d["shared"]["frames"]) for p in ps for s in p["samples"] for i in s)
print(len(ps), sum(sum(p["weights"]) for p in ps))' "$t/$n.speedscope.json" 2>&1)
  [ "$got" = "$roots $total" ] && ok || bad "$b: the JSON's profiles and weights are '$got', want '$roots $total'"
  expect_exit 0 "$b: flame of the speedscope file" -- "$hearth" flame "$t/$n.speedscope.json" -o "$t/$n.ss.svg"
  expect_exit 0 "$b: flame of the folded file" -- "$hearth" flame "$f" -o "$t/$n.folded.svg"
  cmp -s "$t/$n.ss.svg" "$t/$n.folded.svg" && ok || bad "$b: the speedscope file and the folded file drew different pictures"
done
[ "$n" -ge 1 ] && ok || bad "no folded input"

# Forced, and piped (the format told from the first bytes of a pipe).
f=${inputs[0]}
expect_exit 0 "flame --format speedscope" -- "$hearth" flame --format speedscope "$t/1.speedscope.json" -o "$t/forced.svg"
cmp -s "$t/forced.svg" "$t/1.folded.svg" && ok || bad "--format speedscope drew another picture"
cat "$t/1.speedscope.json" | "$hearth" flame -o "$t/piped.svg" 2>"$t/err" && ok || bad "piped speedscope: $(cat "$t/err")"
cmp -s "$t/piped.svg" "$t/1.folded.svg" && ok || bad "piped speedscope drew another picture"
# flame -o OUT.speedscope.json writes the (filtered) stacks, not a picture.
expect_exit 0 "flame -o .speedscope.json" -- "$hearth" flame "$f" --grep . -o "$t/flame.speedscope.json"
cmp -s "$t/flame.speedscope.json" "$t/1.speedscope.json" && ok || bad "flame -o .speedscope.json is not convert's file"
# Fractional counts go through; a differential profile cannot.
printf 'a;b 0.5\na 1.25\n' >"$t/frac.folded"
expect_exit 0 "fractional counts to speedscope" -- "$hearth" convert "$t/frac.folded" "$t/frac.speedscope.json"
[ "$("$hearth" convert "$t/frac.speedscope.json" -)" = "$(printf 'a 1.25\na;b 0.5')" ] && ok || bad "fractional counts changed"
printf 'a;b 1 2\n' >"$t/diff.folded"
expect_exit 2 "a differential profile to speedscope" -- "$hearth" convert "$t/diff.folded" "$t/diff.speedscope.json"
[ ! -e "$t/diff.speedscope.json" ] && ok || bad "differential: an output was written"

# Timed samples (a recording's stacks.samples.txt) keep their times: one profile per thread in
# nanoseconds, its samples in time order, each weighted by the 100 ms to the next sample.
timed=$src/tests/golden/inputs/heat/small.samples.txt
expect_exit 0 "timed samples to speedscope" -- "$hearth" convert "$timed" "$t/timed.speedscope.json"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ps = d["profiles"]
assert all(p["unit"] == "nanoseconds" and len(p["samples"]) == len(p["weights"]) for p in ps)
assert all(p["endValue"] - p["startValue"] >= sum(p["weights"]) for p in ps)  # a thread may leave
assert all(p["endValue"] - p["startValue"] == sum(p["weights"]) for p in ps if p["name"] == "[app tid=4242]")
assert all(w == 100000000 for p in ps for w in p["weights"])
print(" ".join(sorted(p["name"] for p in ps)), {p["name"]: len(p["samples"]) for p in ps}["[app tid=4242]"])' "$t/timed.speedscope.json" 2>&1)
[ "$got" = "[app tid=4242] [io-1 tid=4245] [worker-1 tid=4243] [worker-2 tid=4244] 30" ] && ok \
  || bad "timed samples: the profiles are '$got'"
expect_exit 0 "timed speedscope back to folded" -- "$hearth" convert "$t/timed.speedscope.json" "$t/timed.folded"
grep -q '^\[app tid=4242\];_start;main;app::Server::tick() ' "$t/timed.folded" && ok \
  || bad "timed speedscope read back without the app thread's stack: $(head -3 "$t/timed.folded")"

# Bad input: one line on stderr, exit 2, no output.
printf '%s' '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":2,"samples":[[0],[0,5]],"weights":[1,1]}]}' >"$t/dangling.speedscope.json"
expect_exit 2 "dangling frame index" -- "$hearth" flame "$t/dangling.speedscope.json" -o "$t/dangling.svg"
grep -q "frame index 5" "$t/err" && [ "$(wc -l <"$t/err")" = 1 ] && ok || bad "dangling frame index: not one line naming it: $(cat "$t/err")"
[ ! -e "$t/dangling.svg" ] && ok || bad "dangling frame index: an output was written"
expect_exit 2 "dangling frame index, convert" -- "$hearth" convert "$t/dangling.speedscope.json" "$t/dangling.folded"
[ ! -e "$t/dangling.folded" ] && ok || bad "dangling frame index: convert wrote an output"
head -c $(($(stat -c %s "$t/1.speedscope.json") / 2)) "$t/1.speedscope.json" >"$t/cut.json"
expect_exit 2 "JSON cut short" -- "$hearth" convert "$t/cut.json" "$t/cut.folded"
grep -q "not valid JSON" "$t/err" && [ "$(wc -l <"$t/err")" = 1 ] && ok || bad "JSON cut short: $(cat "$t/err")"
[ ! -e "$t/cut.folded" ] && ok || bad "JSON cut short: an output was written"

finish speedscope_cli
