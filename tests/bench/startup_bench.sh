#!/usr/bin/env bash
# One-shot start-up (issue 30): wall and CPU of `hearth stacks -n 1` on the 100-thread bench
# target with a cold symbol cache (a fresh --symbol-cache directory each run: nothing of libc's
# DWARF or the kernel's symbols kept) and a warm one (a directory an earlier run filled), next to
# eu-stack and gdb (`thread apply all bt`) on the same target in the same run. Runs are
# interleaved (cold, warm, eu-stack, gdb, cold, …) so that the machine's load drifts over all
# of them alike; medians are printed, with the load average before and after.
# Unpinned, as production runs; --load "idle busy" (busy: stress-ng --cpu 0, a CPU hog per vCPU).
# --compare PATH adds another hearth binary (an older build, say), run cold and warm between the
# others with a cache of its own: old against new in the same run.
# Informational only: the exit status says whether the script ran, never whether a goal was met.
#
# usage: tests/bench/startup_bench.sh [--runs 7] [--threads 100] [--load "idle busy"]
#            [--hearth PATH] [--compare PATH] [--skip-gdb] [--skip-eu-stack]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
target=$root/build/tests/integration/targets/stack_target-fp
runs=7
threads=100
loads="idle busy"
skip_gdb=0
skip_eu=0
compare=""
while (($#)); do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --load) loads=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --compare) compare=${2:?}; shift 2 ;;
    --skip-gdb) skip_gdb=1; shift ;;
    --skip-eu-stack) skip_eu=1; shift ;;
    *) sed -n '13,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ -x $hearth && -x $target ]] || { echo "startup_bench: build hearth and stack_target-fp first" >&2; exit 2; }
[[ -z $compare || -x $compare ]] || { echo "startup_bench: $compare is not executable" >&2; exit 2; }
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
((skip_eu)) || need_pkg eu-stack elfutils
((skip_gdb)) || need_pkg gdb gdb
[[ $loads == *busy* ]] && need_pkg stress-ng stress-ng

work=$(mktemp -d)
pids=()
cleanup() {
  stop_hogs
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The target needs its stdin open: it ends when stdin does.
sleep 100000 | "$target" --threads "$threads" --depth 8 --spin 2 >/dev/null &
pids+=($!)
sleep 1
tpid=$(pgrep -n -f "stack_target-fp --threads $threads --depth 8 --spin 2")
pids+=("$tpid")
# The pipeline's sleep is ours too: it would outlive the target (it never writes).
while read -r s; do pids+=("$s"); done < <(pgrep -P $$ -x sleep)

# "WALL CPU" of one command (s), its output discarded.
timed() {
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$work/time"
}
median() { sort -n | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

printf 'startup_bench: %d threads (+3), %d runs per tool and load, unpinned, %s, kernel %s\n' \
  "$threads" "$runs" "$(nproc) vCPUs" "$(uname -r)"
[[ -n $compare ]] && echo "startup_bench: compare-cold/-warm: $compare"
printf '%-6s %-12s %10s %10s\n' load tool "wall s" "CPU s"
for load in $loads; do
  [[ $load == busy ]] && start_hogs
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  warm=$work/warm-$load
  "$hearth" stacks -p "$tpid" -n 1 -o /dev/null --symbol-cache "$warm" 2>/dev/null  # fills it
  [[ -n $compare ]] && "$compare" stacks -p "$tpid" -n 1 -o /dev/null --symbol-cache "$warm-compare" 2>/dev/null
  : >"$work/$load.tsv"
  for ((i = 0; i < runs; i++)); do
    echo "hearth-cold $(timed "$hearth" stacks -p "$tpid" -n 1 -o - --symbol-cache "$work/cold-$load-$i")" >>"$work/$load.tsv"
    echo "hearth-warm $(timed "$hearth" stacks -p "$tpid" -n 1 -o - --symbol-cache "$warm")" >>"$work/$load.tsv"
    if [[ -n $compare ]]; then
      echo "compare-cold $(timed "$compare" stacks -p "$tpid" -n 1 -o - --symbol-cache "$work/ccold-$load-$i")" >>"$work/$load.tsv"
      echo "compare-warm $(timed "$compare" stacks -p "$tpid" -n 1 -o - --symbol-cache "$warm-compare")" >>"$work/$load.tsv"
    fi
    ((skip_eu)) || echo "eu-stack $(timed eu-stack -p "$tpid")" >>"$work/$load.tsv"
    ((skip_gdb)) || echo "gdb $(timed gdb -batch -p "$tpid" -ex 'thread apply all bt')" >>"$work/$load.tsv"
  done
  after=$(cut -d' ' -f1-3 /proc/loadavg)
  for tool in hearth-cold hearth-warm compare-cold compare-warm eu-stack gdb; do
    grep -q "^$tool " "$work/$load.tsv" || continue
    printf '%-6s %-12s %10s %10s\n' "$load" "$tool" \
      "$(awk -v t=$tool '$1 == t {print $2}' "$work/$load.tsv" | median)" \
      "$(awk -v t=$tool '$1 == t {print $3}' "$work/$load.tsv" | median)"
  done
  echo "$load: load average before $before, after $after"
  stop_hogs
done
