#!/usr/bin/env bash
# `hearth diff` as a pipeline runs it: exit codes (0 no regression over --fail-above, 1 at least
# one, 2 bad usage or input), one clear line per problem on stderr, every output written whole.
#   tests/integration/diff_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: diff_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
pair=$here/../golden/inputs/diffpair
. "$here/cli_lib.sh"

# Identical inputs: exit 0 whatever the threshold, no change reported.
expect_exit 0 "identical inputs" -- "$hearth" diff "$pair/base.folded" "$pair/base.folded" --fail-above 0
grep -q '^PASS: ' "$t/out" && ok || bad "identical inputs: no PASS line: $(cat "$t/out")"
grep -q '^significant decreases: 0$' "$t/out" && ok || bad "identical inputs report changes"
# A known regression (json::encode +25.7 pp): exit 1 above a lower threshold, named first.
expect_exit 1 "regression over the threshold" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded" --fail-above 5
grep -A1 '^regressions' "$t/out" | tail -1 | grep -q 'json::encode(Value const&)' && ok \
  || bad "regression not named first: $(cat "$t/out")"
grep -q '^FAIL: ' "$t/out" && ok || bad "no FAIL line"
# Above the largest change: exit 0. Without --fail-above: exit 0 and no verdict.
expect_exit 0 "threshold above every change" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded" --fail-above 30
expect_exit 0 "no threshold" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded"
grep -qE '^(PASS|FAIL)' "$t/out" && bad "verdict without --fail-above" || ok
# Every output at once, each complete.
expect_exit 1 "all outputs" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded" --fail-above 1 \
  -o "$t/d.svg" --summary "$t/s.json" --folded-out "$t/d.folded"
xmllint --noout "$t/d.svg" 2>/dev/null && ok || bad "SVG not well-formed"
grep -q '"result": "fail"' "$t/s.json" && ok || bad "JSON result is not fail"
if command -v python3 >/dev/null; then python3 -m json.tool "$t/s.json" >/dev/null && ok || bad "JSON does not parse"; fi
[ "$(awk '{print NF >= 3 && $(NF) ~ /^[0-9]+$/ && $(NF-1) ~ /^[0-9]+$/}' "$t/d.folded" | sort -u)" = 1 ] \
  && ok || bad "--folded-out lines are not 'stack BASE NEW'"
expect_exit 0 "markdown and png" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded" -o "$t/d.png" --summary "$t/s.md"
[ "$(head -c 8 "$t/d.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || bad "not a PNG"
grep -q '^### hearth diff' "$t/s.md" && ok || bad "Markdown heading missing"
# Our two-count output draws with hearth flame (and flamegraph.pl reads the same format).
expect_exit 0 "folded-out renders" -- "$hearth" flame "$t/d.folded" -o "$t/f.svg"

# A deep recursion in both: the picture keeps the top frames, stderr says what was left out.
seq 0 30000 | awk '{ printf "%sf%d", (NR > 1 ? ";" : ""), $1 } END { print " 5" }' > "$t/deep.folded"
seq 0 30000 | awk '{ printf "%sf%d", (NR > 1 ? ";" : ""), $1 } END { print " 7" }' > "$t/deep2.folded"
expect_exit 0 "deep recursion" -- "$hearth" diff "$t/deep.folded" "$t/deep2.folded" -o "$t/deep.svg"
grep -qF "hearth diff: $t/deep.svg: 30,000 frames, 2 deeper than 29,999 left out (--max-frames 30000)" "$t/err" \
  && ok || bad "deep recursion message: $(cat "$t/err")"
grep -q '<title>f29998 (7 samples' "$t/deep.svg" && ok || bad "deep recursion: f29998 not drawn"
# Exact counts in the summaries; a sum past 2^64 - 1 stops with one line.
printf 'a;b 9223372036854775807\n' > "$t/big.folded"
printf 'a;b 9223372036854775806\na;c 3\n' > "$t/big2.folded"
expect_exit 0 "counts of 2^63" -- "$hearth" diff "$t/big.folded" "$t/big2.folded" --summary "$t/big.json"
grep -q '"samples": 9223372036854775809}' "$t/big.json" && ok || bad "JSON samples not exact"
grep -qF '(9,223,372,036,854,775,807 samples) -> NEW big2.folded (9,223,372,036,854,775,809 samples)' "$t/out" \
  && ok || bad "summary samples not exact: $(head -1 "$t/out")"
printf 'a;b 18446744073709551615\na;c 1\n' > "$t/overflow.folded"
expect_exit 2 "counts past 2^64 - 1" -- "$hearth" diff "$t/big.folded" "$t/overflow.folded" -o "$t/o.svg"
[ "$(wc -l < "$t/err")" = 1 ] && grep -qF "hearth diff: line 2 of $t/overflow.folded: the counts add up to more than" "$t/err" \
  && ok || bad "overflow message: $(cat "$t/err")"
[ ! -e "$t/o.svg" ] && ok || bad "overflow left an output"
printf 'a;b 1\nnot a stack\n' > "$t/onebad.folded"
expect_exit 0 "one bad line" -- "$hearth" diff "$t/onebad.folded" "$t/big.folded"
grep -qF "hearth diff: ignored 1 line that is not \`frame;frame;... COUNT\` (line 2 of $t/onebad.folded)" "$t/err" \
  && ok || bad "one ignored line: $(cat "$t/err")"

# Bad usage and input: exit 2, one line each, nothing written.
expect_exit 2 "one input" -- "$hearth" diff "$pair/base.folded"
grep -q '^hearth diff: expected two profiles' "$t/err" && ok || bad "one input message: $(cat "$t/err")"
expect_exit 2 "missing file" -- "$hearth" diff "$pair/base.folded" "$t/nope.folded" -o "$t/x.svg"
[ "$(wc -l < "$t/err")" = 1 ] && grep -q "nope.folded" "$t/err" && ok || bad "missing file: $(cat "$t/err")"
[ ! -e "$t/x.svg" ] && ok || bad "missing input left an output"
: > "$t/empty.folded"
expect_exit 2 "empty input" -- "$hearth" diff "$t/empty.folded" "$pair/new.folded"
[ "$(wc -l < "$t/err")" = 1 ] && grep -q 'BASE .*empty.folded has no stack counts' "$t/err" && ok \
  || bad "empty input message: $(cat "$t/err")"
expect_exit 2 "bad options" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded" --fail-above x \
  --summary s.txt -o d.gif --min-samples -1
[ "$(grep -c '^hearth diff: ' "$t/err")" = 4 ] && ok || bad "want 4 problems reported: $(cat "$t/err")"
expect_exit 2 "unwritable output" -- "$hearth" diff "$pair/base.folded" "$pair/new.folded" --summary "$t/missing/dir/s.md"
ls "$t" | grep -q 'hearth-tmp' && bad "temp files left behind" || ok

finish diff_cli
