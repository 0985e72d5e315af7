#!/usr/bin/env bash
# hearth mmv against PCP's own reader: for MMV files written by libpcp_mmv (and the hand-built
# v2 file), every value mmvdump prints must be the value hearth reads (floats to mmvdump's 6
# decimals), and hearth must read no value mmvdump does not print.
#   tests/integration/mmv_dump.sh HEARTH_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
hearth=${1:?usage: mmv_dump.sh HEARTH_BINARY}
mmvdump=/usr/lib/pcp/pmdas/mmv/mmvdump
if [ ! -x "$mmvdump" ]; then
  echo "SKIP: $mmvdump missing (Debian's pcp package; bin/setup installs it)"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for f in "$here"/golden/inputs/mmv/*.mmv "$here"/fuzz/corpus/mmv/pcp-*.mmv; do
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
  else
    echo "ok $(basename "$f"): $(wc -l < "$out/ours") values agree with mmvdump"
  fi
done
exit $failed
