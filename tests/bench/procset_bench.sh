#!/usr/bin/env bash
# Process sets that scale (issue 30): `hearth stacks --children -p PARENT` over a parent that
# forked N single-threaded children (fanout_target: each asleep in a read, two frames deep), in
# one run, next to a peer and a floor on the same processes:
#   hearth one-shot   hearth stacks --children -p PARENT -n 1: wall and CPU (attaching to every
#                     process, one snapshot, symbolizing, writing)
#   hearth steady     hearth stacks --children -p PARENT -F HZ: hearth's CPU over a window of
#                     --seconds after it has attached (its /proc/PID/stat, before and after), as
#                     % of one core
#   eu-stack          eu-stack -p PID for every process, one after another (the peer: a tool run
#                     per process, as a script over a process list does): wall and CPU
#   floor             one cat of every process's /proc/PID/maps and /proc/PID/stack (what any
#                     tool that names frames reads at least): wall and CPU
# Unpinned, as production runs; --load "idle busy" (busy: stress-ng --cpu 0, a hog per vCPU).
# One-shots and peers are interleaved (hearth, eu-stack, floor, hearth, …) so the machine's drift
# falls on all alike; medians of --runs are printed, with the load average before and after.
# Informational only: the exit status says whether the script ran, never whether a goal was met.
#
# usage: tests/bench/procset_bench.sh [--children 200] [--runs 5] [--seconds 10] [--hz 10]
#            [--load "idle busy"] [--method auto|bpf|ptrace] [--skip-eu-stack] [--hearth PATH]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
target=$root/build/tests/integration/targets/fanout_target-fp
children=200
runs=5
seconds=10
hz=10
loads="idle busy"
method=auto
skip_eu=0
while (($#)); do
  case $1 in
    --children) children=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --hz) hz=${2:?}; shift 2 ;;
    --load) loads=${2:?}; shift 2 ;;
    --method) method=${2:?}; shift 2 ;;
    --skip-eu-stack) skip_eu=1; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    *) sed -n '19,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ $children =~ ^[1-9][0-9]*$ && $runs =~ ^[1-9][0-9]*$ && $seconds =~ ^[1-9][0-9]*$ ]] ||
  { echo "procset_bench: --children, --runs and --seconds want positive integers" >&2; exit 2; }
[[ -x $hearth && -x $target ]] ||
  { echo "procset_bench: build hearth and fanout_target-fp first (cmake --build build)" >&2; exit 2; }
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
[[ -x /usr/bin/time ]] || need_pkg /usr/bin/time time
((skip_eu)) || need_pkg eu-stack elfutils
[[ $loads == *busy* ]] && need_pkg stress-ng stress-ng
unset DEBUGINFOD_URLS # no tool fetches debug info over the network

work=$(mktemp -d)
pids=()
cleanup() {
  stop_hogs
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The target ends when its stdin does (a fifo held open here).
mkfifo "$work/stdin"
"$target" --children "$children" <"$work/stdin" >"$work/target.out" 2>&1 &
parent=$!
pids+=("$parent")
exec {hold}>"$work/stdin"
for ((i = 0; i < 6000; i++)); do
  grep -q '^end$' "$work/target.out" 2>/dev/null && break
  kill -0 "$parent" 2>/dev/null || { cat "$work/target.out" >&2; exit 1; }
  sleep 0.01
done
grep -q '^end$' "$work/target.out" || { echo "procset_bench: target not ready" >&2; exit 1; }
mapfile -t kids < <(awk '$1 == "child" {print $2}' "$work/target.out")
all=("$parent" "${kids[@]}")

# "WALL CPU" (s) of one command, its output discarded.
timed() {
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/last.err" || true
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$work/time"
}
median() { sort -n | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }
eu_all() { for p in "${all[@]}"; do eu-stack -p "$p" >/dev/null 2>&1 || true; done; }
floor_files=()
for p in "${all[@]}"; do floor_files+=("/proc/$p/maps" "/proc/$p/stack"); done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks
hz_ticks=$(getconf CLK_TCK)

# One steady run: hearth's CPU % of one core over SECONDS, from 3 s after it started.
steady() {
  "$hearth" stacks --children -p "$parent" --method "$method" -F "$hz" -d $((seconds + 5)) \
    -o "$work/steady.folded" 2>"$work/steady.err" &
  local h=$! a b
  sleep 3
  a=$(ticks "$h")
  sleep "$seconds"
  b=$(ticks "$h")
  wait "$h" || true
  awk -v a="$a" -v b="$b" -v t="$hz_ticks" -v s="$seconds" 'BEGIN {printf "%.2f\n", 100 * (b - a) / t / s}'
}

printf 'procset_bench: %d processes (a parent and %d single-threaded children), %d runs, %s vCPUs, unpinned, --method %s\n' \
  "${#all[@]}" "$children" "$runs" "$(nproc)" "$method"
printf '%-6s %-16s %10s %10s %10s\n' load tool "wall s" "CPU s" "CPU %"
for load in $loads; do
  [[ $load == busy ]] && start_hogs
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  : >"$work/$load.tsv"
  for ((i = 0; i < runs; i++)); do
    echo "hearth-one-shot $(timed "$hearth" stacks --children -p "$parent" --method "$method" -n 1 -o -)" >>"$work/$load.tsv"
    grep -E '^hearth stacks: [0-9]+ process' "$work/last.err" | head -1 >"$work/oneshot.line" || true
    ((skip_eu)) || echo "eu-stack-each $(timed bash -c "$(declare -p all); $(declare -f eu_all); eu_all")" >>"$work/$load.tsv"
    echo "floor $(timed cat "${floor_files[@]}")" >>"$work/$load.tsv"
  done
  for ((i = 0; i < (runs < 3 ? runs : 3); i++)); do
    echo "hearth-steady-F$hz - - $(steady)" >>"$work/$load.tsv"
  done
  after=$(cut -d' ' -f1-3 /proc/loadavg)
  for tool in hearth-one-shot eu-stack-each floor "hearth-steady-F$hz"; do
    grep -q "^$tool " "$work/$load.tsv" || continue
    col() { awk -v t="$tool" -v c="$1" '$1 == t && $c != "-" {print $c}' "$work/$load.tsv" | median; }
    printf '%-6s %-16s %10s %10s %10s\n' "$load" "$tool" "$(col 2)" "$(col 3)" "$(col 4)"
  done
  echo "$load: one-shot said: $(cat "$work/oneshot.line")"
  echo "$load: load average before $before, after $after"
  stop_hogs
done
