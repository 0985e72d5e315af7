#!/usr/bin/env bash
# How long a target thread waits behind hearth for its CPU (issue 30, "never hold a CPU long"):
# the scheduler's own view, `perf sched record -a` around hearth and `perf sched timehist` after.
# A switch-in of a target thread whose CPU was last held by hearth is a delay behind hearth; the
# kernel here has no preemption, so a thread of hearth that stays in the kernel (an iterator
# read, a large munmap, faulting in pages) keeps a woken real-time thread waiting until it
# reaches a resched point. For each size (100, 1,000, 10,000 threads), same target, same run:
#   - one-shot `hearth stacks -n 1` (start-up, one pass, output, exit), --runs times;
#   - steady `hearth stacks -F 100 -d SECONDS` (start-up included), --runs times;
#   - the floor: the same measure over a no-tool window as long as each hearth run, with any
#     holder of the CPU (what the host's own noise gives).
# Printed: max and p99 of the target threads' delays behind hearth (and how many there were),
# the max and p99 with any holder during the hearth run, and the floor's max and p99; medians
# over the runs of p99, max over the runs of max. Unpinned; idle, then busy (stress-ng --cpu 0);
# the conditions (load average first) are printed. Informational only: the exit status says
# whether the script ran, not whether a goal was met.
#
# usage: tests/bench/sched_delay_bench.sh [--threads "100 1000 10000"] [--load "idle busy"]
#            [--runs 3] [--seconds 3] [--modes "oneshot steady"] [--hearth PATH] [--keep DIR]
#
# --keep DIR records call chains too and keeps each run's timehist (FILE.hist) and its delays
# behind hearth over 0.3 ms with the holder's line (FILE.long): the holder's call chain at its
# switch-out is where hearth reached a resched point, the end of its long stretch.
# Target: build/tests/integration/targets/stack_target-fp --threads N --depth 8 --spin 0 (N
# sleeping workers, plus main, holder and a SCHED_FIFO heartbeat that wakes every 100 us).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
target_bin=$root/build/tests/integration/targets/stack_target-fp
threads_list="100 1000 10000"
loads="idle busy"
modes="oneshot steady"
runs=3
seconds=3
keep=""

usage() {
  sed -n '19,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while (($#)); do
  case $1 in
    --threads) threads_list=${2:?}; shift 2 ;;
    --load) loads=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --modes) modes=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "sched_delay_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "sched_delay_bench: --runs wants a positive integer" >&2; exit 2; }
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "sched_delay_bench: --seconds wants a positive integer" >&2; exit 2; }
for n in $threads_list; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "sched_delay_bench: --threads wants positive integers" >&2; exit 2; }
done
for l in $loads; do
  [[ $l == idle || $l == busy ]] || { echo "sched_delay_bench: --load takes idle and/or busy" >&2; exit 2; }
done
for m in $modes; do
  [[ $m == oneshot || $m == steady ]] || { echo "sched_delay_bench: --modes takes oneshot and/or steady" >&2; exit 2; }
done
[[ -x $hearth ]] || { echo "sched_delay_bench: $hearth is not built (cmake --build build --target hearth)" >&2; exit 2; }
[[ -x $target_bin ]] ||
  { echo "sched_delay_bench: $target_bin is not built (cmake --build build --target stack_target-fp)" >&2; exit 2; }
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
need_pkg perf linux-perf
[[ $loads == *busy* ]] && need_pkg stress-ng stress-ng
unset DEBUGINFOD_URLS
[[ -z $keep ]] || mkdir -p "$keep"

depth=8  # the target's call depth
# shellcheck source=pass_target.sh
source "$(dirname "$0")/pass_target.sh"

# The delays of PID's threads in a `perf sched timehist` file, as "BEHIND_MAX BEHIND_P99 BEHIND_N
# ANY_MAX ANY_P99" (ms). Each timehist line is a switch-out: the task that ran, its wait, its
# scheduling delay (wakeup to switch-in) and run time; the line before it on the same CPU is the
# task that held that CPU up to the switch-in. Behind = a switch-in whose CPU was held by a thread
# of process TOOL-PID (by pid, not name: other sessions on a shared machine run hearth too),
# counting only the part of the delay it ran for (its run time up to the switch-in): a wait
# that began while the vCPU was the host's, or another task's, is not the tool's. Also writes
# the delays behind the tool over 0.3 ms, with time, to LONG.
sched_delays() { # timehist pid tool-pid long
  awk -v pid="$2" -v tool="$3" -v long="$4" -v bf="$work/behind.d" -v af="$work/any.d" '
    BEGIN { printf "" > bf; printf "" > af }
    $2 ~ /^\[[0-9]+\]$/ && NF >= 6 {
      cpu = $2; name = $3; k = 4
      while (k <= NF && $k !~ /^[0-9]+\.[0-9]+$/) name = name " " $(k++)  # a comm with spaces
      ids = name; sub(/.*\[/, "", ids); sub(/\]$/, "", ids)
      n = split(ids, id, "/"); p = (n > 1 ? id[2] : id[1])
      delay = $(k + 1) + 0; run = $(k + 2) + 0
      if (p == pid) {
        print delay > af
        if (last[cpu] == tool) {
          # Only the part of the wait in which the tool ran: the holder ran up to the switch-in,
          # for its run time; before that the CPU was someone else'"'"'s (or the host'"'"'s).
          behind = delay < last_run[cpu] ? delay : last_run[cpu]
          print behind > bf
          if (behind > 0.3) printf "%s %s %.3f (waited %.3f) %s\n    held by: %s\n", $1, cpu, behind, delay, name, held[cpu] >> long
        }
      }
      last[cpu] = p; last_run[cpu] = run; held[cpu] = $0
    }' "$1"
  echo "$(stats <"$work/behind.d") $(stats <"$work/any.d" | awk '{ print $1, $2 }')"
}
# "MAX P99 N" of the numbers on stdin.
stats() {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "0.000 0.000 0"; exit }
    k = int(NR * 0.99); if (k < NR * 0.99) k++; if (k < 1) k = 1
    printf "%.3f %.3f %d\n", v[NR], v[k], NR }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { sort -g | tail -1; }
col() { awk -v c="$1" '{ print $c }' "$2"; }

one_run() { # mode n run → appends "behind_max behind_p99 behind_n any_max any_p99 floor_max floor_p99 wall" to $rows
  local mode=$1 n=$2 r=$3 data=$work/run.sched hist=$work/run.hist long=$work/long
  local args=(-n 1)
  [[ $mode == steady ]] && args=(-F 100 -d "$seconds")
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2016  # $$ and $@ are the inner shell's: it writes its pid, then is hearth
  perf sched record -q ${keep:+-g} -o "$data" -a -- sh -c 'echo $$ >"$0"; exec "$@"' "$work/tool.pid" \
    "$hearth" stacks -p "$target_pid" "${args[@]}" -o "$work/out.folded" >/dev/null 2>"$work/hearth.err" ||
    { cat "$work/hearth.err" >&2; echo "sched_delay_bench: hearth failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  perf sched timehist -i "$data" >"$hist" 2>/dev/null
  : >"$long"
  local run_figures floor_figures wall
  run_figures=$(sched_delays "$hist" "$target_pid" "$(cat "$work/tool.pid")" "$long")
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  [[ -z $keep ]] || { cp "$hist" "$keep/$load-$n-$mode-$r.hist"; cp "$long" "$keep/$load-$n-$mode-$r.long"; }
  # The floor: no tool, a window of the same length.
  perf sched record -q -o "$work/floor.sched" -a -- sleep "$wall" >/dev/null 2>&1
  perf sched timehist -i "$work/floor.sched" >"$work/floor.hist" 2>/dev/null
  floor_figures=$(sched_delays "$work/floor.hist" "$target_pid" -1 /dev/null | awk '{ print $4, $5 }')
  echo "$run_figures $floor_figures $wall" >>"$rows"
}

conditions() { # load
  printf '== %s: %s CPUs, unpinned, %s; load average %s; kernel %s; %s\n' "$1" "$(nproc)" \
    "$([[ $1 == busy ]] && echo 'stress-ng --cpu 0 beside it' || echo 'no hog')" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(uname -r)" "$(date -u +%FT%TZ)"
}

for load in $loads; do
  [[ $load == busy ]] && start_hogs
  conditions "$load"
  printf '%-7s %-8s %-30s %-17s %-17s %s\n' threads mode "behind hearth max/p99 ms (n)" \
    "any max/p99 ms" "floor max/p99 ms" "run s"
  for n in $threads_list; do
    start_target "$n"
    for mode in $modes; do
      rows=$work/rows
      : >"$rows"
      for ((r = 0; r < runs; r++)); do one_run "$mode" "$n" "$r"; done
      # rows: bmax bp99 bn amax ap99 fmax fp99 wall
      printf '%-7s %-8s %-30s %-17s %-17s %s\n' "$n" "$mode" \
        "$(col 1 "$rows" | maxof) / $(col 2 "$rows" | median) ($(col 3 "$rows" | median))" \
        "$(col 4 "$rows" | maxof) / $(col 5 "$rows" | median)" \
        "$(col 6 "$rows" | maxof) / $(col 7 "$rows" | median)" "$(col 8 "$rows" | median)"
    done
    stop_target
  done
  stop_hogs
done
echo "goal (issue 30): behind hearth <= 0.3 ms at every size, one-shot and steady -F 100."
echo "max: the longest of $runs runs; p99 and n (delays behind hearth a run): medians of the runs;"
echo "any: every target delay during the hearth run, whoever held the CPU; floor: a no-tool window of"
echo "the same length right after each run. steady: -F 100 -d $seconds, start-up included."
