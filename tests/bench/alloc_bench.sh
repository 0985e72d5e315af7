#!/usr/bin/env bash
# Benchmarks what `hearth alloc` costs the process it samples (issue 32), against heaptrack (an
# LD_PRELOAD'ed recorder of every call, Debian's `heaptrack`) on the same workload in the same
# run, and the no-tool floor: how long alloc_target's threads take for their rounds of
# malloc/calloc/realloc/free (36 allocation calls and 36 frees a round per thread, 100 B-1.5 KB),
# as the target itself times them from "go" to its last thread's end. Rows:
#   none            no tool
#   hearth          hearth alloc (bytes, default --mean 512 KiB)
#   hearth-live     hearth alloc --live (free and a uretprobe per allocation besides)
#   heaptrack       heaptrack launching the target (every call recorded)
# Informational only: the exit status says whether the script ran, never whether a goal was met.
# bcc's memleak is the other peer the issue names; Debian's bpfcc-tools is not among this
# project's packages, so it is not run.
#
# Unpinned, as production runs; idle, then beside a CPU hog per vCPU (stress-ng) with --busy.
#
# usage: tests/bench/alloc_bench.sh [--rounds 20000] [--threads 2] [--runs 3] [--busy]
#            [--only "none hearth"] [--hearth PATH]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/bench/bench_lib.sh"
hearth=$root/build/bin/hearth/hearth
target=$root/build/tests/integration/targets/alloc_target-nofp
rounds=20000
threads=2
runs=3
busy=0
only="none hearth hearth-live heaptrack"

usage() {
  sed -n '16,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
args=("$@")
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    --only) only=$2; shift 2 ;;
    --hearth) hearth=$2; shift 2 ;;
    *) usage ;;
  esac
done
((EUID == 0)) || { echo "alloc_bench: needs root (uprobes)" >&2; exit 2; }
[[ -x $hearth && -x $target ]] || { echo "alloc_bench: build hearth and the targets first" >&2; exit 2; }
if ((busy)) && [[ -z ${ALLOC_BENCH_LOAD:-} ]]; then
  filtered=()
  for a in "${args[@]}"; do [[ $a == --busy ]] || filtered+=("$a"); done
  idle_then_busy ALLOC_BENCH_LOAD "${filtered[@]}"
  exit 0
fi
[[ $only == *heaptrack* ]] && need_pkg heaptrack heaptrack

work=$(mktemp -d /tmp/alloc_bench.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap 'cleanup; stop_hogs' EXIT

# wait_text FILE TEXT: until FILE holds TEXT (bounded: 120 s).
wait_text() {
  for _ in $(seq 1200); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "alloc_bench: never saw '$2' in $1" >&2
  return 1
}

# run_one ROW: one run; prints the seconds the target's rounds took.
run_one() {
  local row=$1 d
  d=$(mktemp -d "$work/run.XXXXXX")
  mkfifo "$d/in"
  local launch=("$target" --threads "$threads" --rounds "$rounds")
  [[ $row == heaptrack ]] && launch=(heaptrack -o "$d/heaptrack" "${launch[@]}")
  "${launch[@]}" <"$d/in" >"$d/out" 2>"$d/target.err" &
  local tpid=$!
  pids+=("$tpid")
  exec {fd}>"$d/in"
  wait_text "$d/out" "^malloc "
  local pid hpid=""
  pid=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$d/out")
  case $row in
    hearth | hearth-live)
      local extra=()
      [[ $row == hearth-live ]] && extra=(--live)
      "$hearth" alloc -p "$pid" -d 3600 -o "$d/alloc.folded" "${extra[@]}" 2>"$d/hearth.err" {fd}>&- &
      hpid=$!
      pids+=("$hpid")
      wait_text "$d/hearth.err" "hearth alloc: sampling "
      ;;
  esac
  echo go >&"$fd"
  wait_text "$d/out" "^done "
  exec {fd}>&-
  wait "$tpid" 2>/dev/null || true
  # hearth-live on this target writes nothing and exits 1: every block is freed (no leak).
  if [[ -n $hpid ]] && ! wait "$hpid" && ! grep -q "every sampled block was freed" "$d/hearth.err"; then
    echo "alloc_bench: hearth failed: $(cat "$d/hearth.err")" >&2
  fi
  sed -n 's/^done [0-9]* [0-9]* [0-9]* \([0-9.]*\)$/\1/p' "$d/out"
  rm -rf "$d"
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

calls=$((rounds * threads * 36))
echo "# alloc_bench: alloc_target-nofp, $threads threads x $rounds rounds = $calls allocation calls" \
  "(and as many frees); $runs runs per row, rows interleaved; unpinned"
echo "# load: ${ALLOC_BENCH_LOAD:-idle}; $(uptime | sed 's/^ *//'); $(nproc) vCPUs; $(date -u +%Y-%m-%dT%H:%MZ)"
declare -A results
for ((r = 1; r <= runs; r++)); do
  for row in $only; do
    results[$row]+="$(run_one "$row") "
  done
done
none=$(tr ' ' '\n' <<<"${results[none]:-}" | grep . | median || true)
printf '%-12s %10s %10s %10s %12s %8s  %s\n' row median_s min_s max_s ns_per_call vs_none runs_s
for row in $only; do
  vals=$(tr ' ' '\n' <<<"${results[$row]}" | grep .)
  med=$(median <<<"$vals")
  mn=$(sort -g <<<"$vals" | head -1)
  mx=$(sort -g <<<"$vals" | tail -1)
  extra_ns=$(awk -v m="$med" -v n="${none:-0}" -v c="$calls" 'BEGIN {printf "%.0f", (m - n) * 1e9 / c}')
  ratio=$(awk -v m="$med" -v n="${none:-0}" 'BEGIN {if (n > 0) printf "%.1fx", m / n; else print "-"}')
  printf '%-12s %10.3f %10.3f %10.3f %12s %8s  %s\n' "$row" "$med" "$mn" "$mx" "$extra_ns" "$ratio" \
    "$(tr '\n' ' ' <<<"$vals")"
done
echo "# ns_per_call: (median - none's median) / allocation calls (frees not counted)"
