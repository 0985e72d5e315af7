#!/usr/bin/env bash
# Speed of `hearth mmv` on a 10,000-metric MMV file (issue 5, "Speed"), written by libpcp_mmv
# (gen_mmv; pmdammv refuses more than 1023 metrics). Prints, as medians of --runs:
# - the CPU cost of one snapshot (open + read + TSV to /dev/null): CPU time of `-n 201` minus
#   that of `-n 1`, over 200 (goal <= 2 ms), next to mmvdump dumping the same file once, and
#   the ratio;
# - the CPU share of 10 Hz snapshots for --seconds (20; --long: 60) (goal < 1% of a core).
# Informational only: the exit status says whether the script ran, not whether goals were met.
#   usage: tests/bench/mmv_bench.sh [--runs 5] [--seconds 20] [--long] [--metrics 10000]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
gen=$root/build/tests/bench/gen_mmv
mmvdump=/usr/lib/pcp/pmdas/mmv/mmvdump
runs=5 seconds=20 metrics=10000
while (($#)); do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --long) seconds=60; shift ;;
    --metrics) metrics=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "mmv_bench: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x $hearth && -x $gen ]] || { echo "mmv_bench: build hearth and gen_mmv first" >&2; exit 2; }
[[ -x $mmvdump ]] || { echo "mmv_bench: no $mmvdump (bin/setup installs pcp)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/mmv"
PCP_TMP_DIR=$tmp "$gen" bench "$metrics"
file=$tmp/mmv/bench
echo "mmv_bench: $metrics metrics, $(stat -c %s "$file") bytes"

cpu_s() {  # CPU seconds (user + sys) of a command
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1
  awk '{ printf "%.4f\n", $1 + $2 }' "$tmp/time"
}
wall_ms() {
  local t0 t1
  t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
  awk -v n=$((t1 - t0)) 'BEGIN { printf "%.3f\n", n / 1e6 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

snap=() dump=()
for ((r = 0; r < runs; ++r)); do
  one=$(cpu_s "$hearth" mmv "$file" -n 1 -i 0.001 -o /dev/null)
  many=$(cpu_s "$hearth" mmv "$file" -n 201 -i 0.001 -o /dev/null)
  snap+=("$(awk -v a="$one" -v b="$many" 'BEGIN { printf "%.3f", (b - a) / 200 * 1000 }')")
  dump+=("$(wall_ms "$mmvdump" "$file")")
done
s=$(printf '%s\n' "${snap[@]}" | median)
d=$(printf '%s\n' "${dump[@]}" | median)
echo "snapshot: ${s} ms CPU per snapshot (goal <= 2 ms); mmvdump: ${d} ms per dump;" \
  "mmvdump / hearth = $(awk -v s="$s" -v d="$d" 'BEGIN { printf "%.1fx", (s > 0) ? d / s : 0 }')"

c=$(cpu_s "$hearth" mmv "$file" -i 0.1 -d "$seconds" -o /dev/null)
echo "10 Hz for ${seconds} s: ${c} s CPU = $(awk -v c="$c" -v s="$seconds" 'BEGIN { printf "%.2f", 100 * c / s }')% of a core (goal < 1%)"
