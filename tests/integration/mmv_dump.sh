#!/usr/bin/env bash
# hearth mmv against PCP's own reader: for MMV files written by libpcp_mmv (and the hand-built
# v2 file), every value mmvdump prints must be the value hearth reads (floats to mmvdump's 6
# decimals), and hearth must read no value mmvdump does not print.
# With the sample workload's binary, also its live file (real counters, doubles, strings and
# instances, none of them zero), compared while the workload is stopped (SIGSTOP) so both
# readers see the same values.
#   tests/integration/mmv_dump.sh HEARTH_BINARY [SAMPLE_WORKLOAD_BINARY]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
hearth=${1:?usage: mmv_dump.sh HEARTH_BINARY}
mmvdump=/usr/lib/pcp/pmdas/mmv/mmvdump
if [ ! -x "$mmvdump" ]; then
  echo "SKIP: $mmvdump missing (Debian's pcp package; bin/setup installs it)"
  exit 0
fi
workload=${2:-}
out=$(mktemp -d)
wpid=""
trap '[ -n "$wpid" ] && kill -CONT "$wpid" 2>/dev/null && kill "$wpid" 2>/dev/null; rm -rf "$out"' EXIT
failed=0
files=("$here"/golden/inputs/mmv/*.mmv "$here"/fuzz/corpus/mmv/pcp-*.mmv)
if [ -n "$workload" ]; then
  mkdir -p "$out/live"
  exec 3< <(exec "$workload" --ready --seconds 60 --mmv-dir "$out/live" --mmv-name sample)
  read -r -t 20 ready wpid <&3 || true
  if [ "${ready:-}" != ready ]; then
    echo "FAIL: the sample workload did not start"; exit 1
  fi
  sleep 1.5                 # let counters, averages and the phase string move
  kill -STOP "$wpid"
  sleep 0.2
  files+=("$out/live/sample")
fi
for f in "${files[@]}"; do
  # mmvdump: `  [1/832] c[0 or "a"] = 5` or `  [2/896] s = "str"` -> metric TAB instance TAB value
  "$mmvdump" "$f" | awk '
    /^TOC\[/ { invalues = ($0 ~ /values offset/) }
    invalues && /^  \[[0-9]+\/[0-9]+\] / {
      line = $0; sub(/^  \[[^]]*\] /, "", line)
      eq = index(line, " = "); lhs = substr(line, 1, eq - 1); val = substr(line, eq + 3)
      inst = ""
      if (match(lhs, /\[[-0-9]+ or ".*"\]$/)) {
        inst = substr(lhs, RSTART, RLENGTH); lhs = substr(lhs, 1, RSTART - 1)
        sub(/^\[[-0-9]+ or "/, "", inst); sub(/"\]$/, "", inst)
      }
      sub(/ \(value=.*$/, "", val)
      if (val ~ /^".*"$/) val = substr(val, 2, length(val) - 2)
      else if (val ~ /\./) val = sprintf("%.6f", val)
      print lhs "\t" inst "\t" val
    }' | sort > "$out/dump"
  "$hearth" mmv "$f" -n 1 --reproducible -o "$out/tsv" 2>"$out/err" || {
    echo "FAIL $f: hearth mmv failed: $(cat "$out/err")"; failed=1; continue; }
  awk -F'\t' '$1 == "# metric" && ($4 == "float" || $4 == "double") { real[$3] = 1 }
    !/^#/ && NR > 4 {
      v = $5; if ($3 in real) v = sprintf("%.6f", v)
      print $3 "\t" $4 "\t" v }' "$out/tsv" | sort > "$out/ours"
  if ! cmp -s "$out/dump" "$out/ours"; then
    echo "FAIL $f: hearth and mmvdump disagree (< mmvdump, > hearth):"
    diff "$out/dump" "$out/ours" | head -10
    failed=1
  elif [ ! -s "$out/ours" ]; then
    echo "FAIL $f: no values compared"; failed=1
  elif [ "$f" = "$out/live/sample" ] &&
       [ "$(awk -F'\t' '$3 != "0" && $3 != "0.000000"' "$out/ours" | wc -l)" -lt 10 ]; then
    echo "FAIL $f: fewer than 10 non-zero values: the comparison would prove little"; failed=1
  else
    echo "ok $(basename "$f"): $(wc -l < "$out/ours") values agree with mmvdump"
  fi
done
exit $failed
