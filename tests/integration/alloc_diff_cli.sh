#!/usr/bin/env bash
# `hearth diff` on two `hearth alloc` profiles (folded stacks weighted by bytes, hundreds of
# millions in all) as a CI gate would run it: the same workload twice passes with --per-sample at
# alloc's --mean (the tests are on the samples the bytes stand for); a site whose bytes grew fails
# with exit 1 and is named; the summaries and the picture say bytes; `hearth flame --colors mem`
# draws the profile. Needs root (hearth alloc's uprobes); exits 77 (skipped) without.
#   tests/integration/alloc_diff_cli.sh HEARTH_BINARY TARGETS_DIR
set -uo pipefail
hearth=${1:?usage: alloc_diff_cli.sh HEARTH_BINARY TARGETS_DIR}
targets=${2:?usage: alloc_diff_cli.sh HEARTH_BINARY TARGETS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then echo "alloc_diff_cli: needs root (uprobes): skipped"; exit 77; fi
. "$here/cli_lib.sh"
mean=16384

# alloc_profile OUT: hearth alloc over one run of alloc_target (2 threads x 5,000 rounds: 100 MB
# at 60/30/10 between its three sites), the window ended by the target's exit.
alloc_profile() {
  local out=$1 line pid
  coproc TARGET { exec "$targets/alloc_target-nofp" --threads 2 --rounds 5000; }
  local tpid=$TARGET_PID tin=${TARGET[1]}  # bash unsets TARGET* once the target has exited
  read -r -t 10 line <&"${TARGET[0]}"; pid=${line#ready }
  read -r -t 10 line <&"${TARGET[0]}"  # malloc 0x...
  "$hearth" alloc -p "$pid" -d 300 --mean $mean -o "$out" 2>"$out.err" &
  local h=$!
  # Until hearth says it is sampling (or has ended): the probes are on before the rounds start.
  for _ in $(seq 3000); do
    grep -q 'hearth alloc: sampling ' "$out.err" && break
    kill -0 $h 2>/dev/null || break
    sleep 0.01
  done
  echo go >&"$tin"
  read -r -t 300 line <&"${TARGET[0]}"  # done A B C SECONDS
  eval "exec $tin>&-"                    # the target exits, and hearth's window with it
  wait $h; local code=$?
  wait "$tpid" 2>/dev/null
  [ $code = 0 ] && ok || bad "hearth alloc exit $code: $(cat "$out.err")"
}

alloc_profile "$t/base.folded"
alloc_profile "$t/same.folded"
total=$(awk '{ s += $NF } END { printf "%.0f", s }' "$t/base.folded")
[ "$total" -gt 50000000 ] && ok || bad "base profile holds $total bytes, expected ~100 MB"

# The same workload twice: no regression over 1 pp, and nothing significant at all beyond the
# sampling noise the per-sample tests allow for.
expect_exit 0 "same workload" -- "$hearth" diff "$t/base.folded" "$t/same.folded" \
  --per-sample $mean --countname bytes --fail-above 1 --summary "$t/same.json"
grep -q '^PASS: ' "$t/out" && ok || bad "same workload: no PASS line: $(cat "$t/out")"
grep -qE '^hearth diff: BASE base.folded \([0-9,]+ bytes\) -> NEW same.folded \([0-9,]+ bytes\)' "$t/out" \
  && ok || bad "summary does not count bytes: $(head -1 "$t/out")"
grep -qF "on samples of $mean bytes" "$t/out" && ok || bad "summary does not say the tests' unit: $(cat "$t/out")"
grep -q '"count_name": "bytes"' "$t/same.json" && grep -q "\"per_sample\": $mean" "$t/same.json" \
  && ok || bad "JSON lacks count_name/per_sample: $(head -12 "$t/same.json")"

# A regression: alloc_site_c's bytes tripled (10% -> 25% of the total): exit 1, named.
awk '/;alloc_site_c;/ { $NF = $NF * 3 } { print }' "$t/same.folded" > "$t/grew.folded"
expect_exit 1 "a site grew" -- "$hearth" diff "$t/base.folded" "$t/grew.folded" \
  --per-sample $mean --countname bytes --fail-above 5 -o "$t/d.svg" --summary "$t/grew.md"
grep -A3 '^regressions' "$t/out" | grep -q 'alloc_site_c' && ok || bad "alloc_site_c not a regression: $(cat "$t/out")"
grep -A3 '^regressions' "$t/out" | grep -q 'alloc_site_a\b' && bad "alloc_site_a called a regression" || ok
grep -q '^FAIL: ' "$t/out" && ok || bad "no FAIL line"
xmllint --noout "$t/d.svg" 2>/dev/null && ok || bad "SVG not well-formed"
grep -q '<title>alloc_site_c ([0-9,]* bytes, ' "$t/d.svg" && ok || bad "picture's tooltips don't say bytes"
grep -qE 'BASE `base.folded`: [0-9,]+ bytes' "$t/grew.md" && ok || bad "Markdown does not count bytes"

# The allocation profile in the mem palette, widths in bytes.
expect_exit 0 "flame --colors mem" -- "$hearth" flame "$t/base.folded" --colors mem --countname bytes -o "$t/f.svg"
grep -q '<title>alloc_site_b ([0-9,]* bytes' "$t/f.svg" && ok || bad "flame's tooltips don't say bytes"

# --per-sample's bounds: one line, exit 2.
expect_exit 2 "per-sample 0" -- "$hearth" diff "$t/base.folded" "$t/same.folded" --per-sample 0
[ "$(cat "$t/err")" = "hearth diff: --per-sample must be between 1 and 1e12" ] && ok || bad "per-sample 0: $(cat "$t/err")"
finish alloc_diff_cli
