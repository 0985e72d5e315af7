#!/usr/bin/env bash
# The stop-free capture pass at 100, 1,000 and 10,000 threads (issue 30): for each size, one
# fresh `hearth stacks -n 2 -v` per run on a target of sleeping threads, and from its verbose
# lines and the scheduler's own view:
#   - the first pass (every thread copied): wall and CPU, unwinding left out, and unwinding;
#   - the second, warm pass (nothing ran: nothing copied): CPU and hearth's page faults in it;
#   - hearth's peak RSS and whole-run CPU (GNU time);
#   - threads stopped (a sleeping target: 0 expected);
#   - the longest scheduling delay of any target thread while hearth held its CPU
#     (`perf sched record -a` around the run, then `perf sched timehist`: a switch-in of a target
#     thread whose CPU was last held by hearth), and the same figure with any holder;
#   - the floor: the same perf sched measure over a window of no tool, of the same length, in
#     the same run; and a peer, eu-stack (it stops every thread), where it makes sense (<= 1,000).
# Unpinned; idle, then busy (stress-ng --cpu 0 beside it); the conditions are printed first.
# Informational only: the exit status says whether the script ran, not whether a goal was met.
#
# usage: tests/bench/capture_pass_bench.sh [--threads "100 1000 10000"] [--load "idle busy"]
#            [--runs 3] [--depth 8] [--no-peer] [--hearth PATH]
#
# Target: build/tests/integration/targets/stack_target-fp --threads N --depth D --spin 0 (N
# sleeping workers, plus main, holder and a SCHED_FIFO heartbeat that wakes every 100 us: the
# thread that shows a delay first when hearth keeps a CPU in the kernel).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
target_bin=$root/build/tests/integration/targets/stack_target-fp
threads_list="100 1000 10000"
loads="idle busy"
runs=3
depth=8
peer=1

usage() {
  sed -n '18,19p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while (($#)); do
  case $1 in
    --threads) threads_list=${2:?}; shift 2 ;;
    --load) loads=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --depth) depth=${2:?}; shift 2 ;;
    --no-peer) peer=0; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "capture_pass_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "capture_pass_bench: --runs wants a positive integer" >&2; exit 2; }
for n in $threads_list; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "capture_pass_bench: --threads wants positive integers" >&2; exit 2; }
done
for l in $loads; do
  [[ $l == idle || $l == busy ]] || { echo "capture_pass_bench: --load takes idle and/or busy" >&2; exit 2; }
done
[[ -x $hearth ]] || { echo "capture_pass_bench: $hearth is not built (cmake --build build --target hearth)" >&2; exit 2; }
[[ -x $target_bin ]] ||
  { echo "capture_pass_bench: $target_bin is not built (cmake --build build --target stack_target-fp)" >&2; exit 2; }
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
[[ -x /usr/bin/time ]] || need_pkg /usr/bin/time time
need_pkg perf linux-perf
((peer == 0)) || need_pkg eu-stack elfutils
[[ $loads == *busy* ]] && need_pkg stress-ng stress-ng
unset DEBUGINFOD_URLS

# shellcheck source=pass_target.sh
source "$(dirname "$0")/pass_target.sh"

# perf sched timehist → "worst_behind_tool_ms worst_any_ms" for switch-ins of PID's threads; the
# holder of a delay is whoever switched out last on that CPU.
sched_worst() { # data pid tool-comm
  perf sched timehist -i "$1" 2>/dev/null | awk -v pid="$2" -v tool="$3" '
    NR > 3 && $2 ~ /^\[/ {
      cpu = $2; name = $3; ids = name; sub(/.*\[/, "", ids); sub(/\]$/, "", ids)
      n = split(ids, id, "/"); p = (n > 1 ? id[2] : id[1])
      comm = name; sub(/\[[^[]*$/, "", comm)
      delay = $(NF - 1) + 0
      if (p == pid) {
        if (delay > any) any = delay
        if (last[cpu] == tool && delay > behind) behind = delay
      }
      last[cpu] = comm
    }
    END { printf "%.3f %.3f\n", behind, any }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { sort -g | tail -1; }

one_hearth() { # n → appends a row to $rows
  local out=$work/hearth.err data=$work/hearth.sched
  perf sched record -q -o "$data" -a -- /usr/bin/time -o "$work/time" -f "%e %U %S %M" \
    "$hearth" stacks -p "$target_pid" -n 2 -v -o "$work/out.folded" 2>"$out" >/dev/null
  local first later unwind stopped
  first=$(sed -nE 's/.*first ([0-9.]+) ms, CPU ([0-9.]+) ms, ([0-9]+) page faults.*/\1 \2 \3/p' "$out" | tail -1)
  later=$(sed -nE 's/.*later ones: median ([0-9.]+) ms, CPU ([0-9.]+) ms, ([0-9.]+) page faults.*/\1 \2 \3/p' "$out" | tail -1)
  unwind=$(sed -nE 's/.*capture passes [0-9.]+, unwinding ([0-9.]+);.*/\1/p' "$out" | tail -1)
  stopped=$(sed -nE 's/.*, ([0-9]+) taken in a ptrace stop.*/\1/p' "$out" | tail -1)
  [[ -n $first && -n $later ]] || { cat "$out" >&2; echo "capture_pass_bench: no pass figures from hearth -v" >&2; exit 1; }
  read -r wall user sys rss <"$work/time"
  local cpu_s
  cpu_s=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  printf '%s %s %s %s %s %s %s %s %s\n' "$first" "$later" "${unwind:-0}" "${stopped:--}" "$wall" "$cpu_s" \
    "$((rss / 1024))" "$(sched_worst "$data" "$target_pid" hearth)" >>"$rows"
  echo "$wall"
}
floor_window() { # seconds → "behind(any) any"
  local data=$work/floor.sched
  perf sched record -q -o "$data" -a -- sleep "$1" >/dev/null 2>&1
  sched_worst "$data" "$target_pid" sleep | awk '{ print $2 }'
}
one_peer() {
  local data=$work/peer.sched
  perf sched record -q -o "$data" -a -- /usr/bin/time -o "$work/ptime" -f "%e %U %S" \
    eu-stack -p "$target_pid" >/dev/null 2>&1 || true
  read -r wall user sys <"$work/ptime"
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $(sched_worst "$data" "$target_pid" eu-stack | awk '{ print $1 }')"
}

conditions() { # load
  printf '== %s: %s CPUs, unpinned, %s; load average %s; kernel %s; %s\n' "$1" "$(nproc)" \
    "$([[ $1 == busy ]] && echo 'stress-ng --cpu 0 beside it' || echo 'no hog')" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(uname -r)" "$(date -u +%FT%TZ)"
}

col() { awk -v c="$1" '{ print $c }' "$2"; }
for load in $loads; do
  [[ $load == busy ]] && start_hogs
  conditions "$load"
  printf '%-7s %-26s %-22s %-9s %-7s %-7s %-8s %-21s %-9s %s\n' threads \
    "first pass wall/CPU ms" "warm pass CPU/faults" "unwind ms" "stopped" "RSS MB" "run CPU" \
    "behind hearth/any ms" "floor ms" "eu-stack wall/CPU s, behind ms"
  for n in $threads_list; do
    start_target "$n"
    rows=$work/rows
    : >"$rows"
    floors=$work/floors
    : >"$floors"
    for ((r = 0; r < runs; r++)); do
      w=$(one_hearth "$n")
      floor_window "$w" >>"$floors"
    done
    peer_text="-"
    if ((peer)) && ((n <= 1000)); then peer_text=$(one_peer); fi
    # rows: fwall fcpu ffaults lwall lcpu lfaults unwind stopped wall cpu rss behind any
    printf '%-7s %-26s %-22s %-9s %-7s %-7s %-8s %-21s %-9s %s\n' "$n" \
      "$(col 1 "$rows" | median) / $(col 2 "$rows" | median)" \
      "$(col 5 "$rows" | median) / $(col 6 "$rows" | median)" \
      "$(col 7 "$rows" | median)" "$(col 8 "$rows" | maxof)" "$(col 11 "$rows" | median)" \
      "$(col 10 "$rows" | median)" \
      "$(col 12 "$rows" | maxof) / $(col 13 "$rows" | maxof)" "$(maxof <"$floors")" "$peer_text"
    stop_target
  done
  stop_hogs
done
echo "goals (issue 30): 10,000 threads: first pass <= 100 ms CPU, warm-pass faults near 0; 100 threads:"
echo "first pass <= 2 ms CPU; behind hearth <= 0.3 ms at every size; 0 sleepers stopped."
echo "medians of $runs runs (worst delays: max of runs); floor: worst delay of any target thread over a"
echo "no-tool window as long as one hearth run. CPU excludes unwinding (its own column, wall ms)."
