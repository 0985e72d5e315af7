#!/usr/bin/env bash
# What `hearth watch` costs while nothing fires (issue 31), on the sample workload
# (hearth-sample-workload, samples/README.md), in one run, next to a peer and a floor:
#   hearth watch   --rate 1 --ring 600 and a rule that cannot hold; over --seconds after it said
#                  "watching": its CPU (/proc/PID/stat utime+stime, % of one core), its peak RSS
#                  (VmHWM) and RSS growth, extrapolated to a full 10-minute ring, the bytes it
#                  wrote (/proc/PID/io write_bytes, per minute)
#   gdb-PMP 1 Hz   the poor man's profiler as cron runs it: `gdb -p PID -batch -ex 'thread apply
#                  all bt'` started once a second (the next one after the last has ended): the
#                  same measures, gdb's children included (/usr/bin/time around the loop)
#   floor          nothing attached
# For each, `hearth sched -p WORKLOAD -d SECONDS` runs beside it and the workload threads' time
# in the stopped state (a tracer's stop, 't') is read from sched.states.tsv as a share of all
# their time. Then the trigger path: a rule that holds once it has for 15 s, --ring 10 --after 3
# --max-reports 1, --trigger-runs times: report.json's watch.trigger_to_first_sample_ms and
# collectors.stacks.before_trigger_s against --ring. With --ring-run SECONDS, last (no hogs):
# one hearth watch --ring 600 for that long, its RSS each minute, so the memory of a full
# 10-minute ring is measured (--ring-run 660) rather than extrapolated from the window's growth.
# Unpinned, as production runs; --load "idle busy" (busy: stress-ng --cpu 0, a hog per vCPU).
# Informational only: the exit status says whether the script ran, never whether a goal was met.
#
# usage: tests/bench/watch_bench.sh [--seconds 60] [--load "idle busy"] [--trigger-runs 3]
#            [--ring-run SECONDS] [--skip-gdb] [--hearth PATH] [--workload PATH]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
workload=$root/build/samples/workload/hearth-sample-workload
seconds=60
loads="idle busy"
trigger_runs=3
ring_run=0
skip_gdb=0
while (($#)); do
  case $1 in
    --seconds) seconds=${2:?}; shift 2 ;;
    --load) loads=${2:?}; shift 2 ;;
    --trigger-runs) trigger_runs=${2:?}; shift 2 ;;
    --ring-run) ring_run=${2:?}; shift 2 ;;
    --skip-gdb) skip_gdb=1; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --workload) workload=${2:?}; shift 2 ;;
    *) sed -n '22,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ && $trigger_runs =~ ^[0-9]+$ && $ring_run =~ ^[0-9]+$ ]] ||
  { echo "watch_bench: --seconds wants a positive integer, --trigger-runs and --ring-run 0 or more" >&2; exit 2; }
for l in $loads; do
  [[ $l == idle || $l == busy ]] || { echo "watch_bench: --load takes idle and busy" >&2; exit 2; }
done
[[ -x $hearth && -x $workload ]] ||
  { echo "watch_bench: build hearth and hearth-sample-workload first (cmake --build build)" >&2; exit 2; }
(($(id -u) == 0)) || { echo "watch_bench: run as root (hearth watch's bpf capture, tracefs)" >&2; exit 2; }
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
[[ -x /usr/bin/time ]] || need_pkg /usr/bin/time time
need_pkg jq jq
((skip_gdb)) || need_pkg gdb gdb
[[ $loads == *busy* ]] && need_pkg stress-ng stress-ng
unset DEBUGINFOD_URLS # no tool fetches debug info over the network

work=$(mktemp -d)
pids=()
cleanup() {
  stop_hogs
  touch "$work/pmp.stop" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The workload ends when its stdin does (a fifo held open here), or on SIGTERM.
mkfifo "$work/stdin"
"$workload" --ready <"$work/stdin" >"$work/workload.out" 2>&1 &
wpid=$!
pids+=("$wpid")
# shellcheck disable=SC2034  # held open, never written
exec {hold}>"$work/stdin"
for ((i = 0; i < 3000; i++)); do
  grep -q '^ready' "$work/workload.out" 2>/dev/null && break
  kill -0 "$wpid" 2>/dev/null || { cat "$work/workload.out" >&2; exit 1; }
  sleep 0.01
done
grep -q '^ready' "$work/workload.out" || { echo "watch_bench: the workload did not get ready" >&2; exit 1; }
threads=("/proc/$wpid/task"/*)
nthreads=${#threads[@]}

hz_ticks=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
written() { awk '$1 == "write_bytes:" {print $2}' "/proc/$1/io"; }

# wait_for_line FILE REGEX SECONDS PID: until FILE has a line matching REGEX (0), PID ends or
# the time is up (1).
wait_for_line() {
  local i
  for ((i = 0; i < $3 * 20; i++)); do
    grep -qE "$2" "$1" 2>/dev/null && return 0
    kill -0 "$4" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# sched_beside NAME: hearth sched over the workload for SECONDS (in the background; its pid in
# sched_pid, its directory $work/NAME.sched).
sched_beside() {
  "$hearth" sched -p "$wpid" -d "$seconds" -o "$work/$1.sched" >"$work/$1.sched.log" 2>&1 &
  sched_pid=$!
  pids+=("$sched_pid")
}

# stopped_share DIR: "SHARE_% STOPPED_MS SWITCHES" over the workload's threads in
# DIR/sched.states.tsv (columns found by name; stopped / all six state columns).
stopped_share() {
  local f=$1/sched.states.tsv
  [[ -s $f ]] || { echo "- - -"; return; }
  awk -F'\t' -v pid="$wpid" '
    /^#/ {next}
    !cols {for (i = 1; i <= NF; i++) c[$i] = i; cols = 1; next}
    $c["pid"] == pid {
      stopped += $c["stopped_ns"]; sw += $c["switches_stopped"]
      all += $c["on_cpu_ns"] + $c["runnable_ns"] + $c["sleeping_ns"] + $c["blocked_ns"] + $c["other_ns"] + $c["stopped_ns"]
    }
    END {if (all == 0) print "- - -"; else printf "%.5f %.3f %d\n", 100 * stopped / all, stopped / 1e6, sw}' "$f"
}

# One hearth watch window: fills $work/LOAD.hearth ("cpu% hwm_mb written_kb_per_min rss0_mb rss1_mb
# watched_s") and the sched directory beside it.
run_hearth() {
  local load=$1 out="$work/$1.watch" name="watchbench$$$1"
  "$hearth" watch -p "$wpid" -o "$out" --rule "quiet = stack:'no_such_frame_anywhere' > 50%" \
    --rate 1 --ring 600 --publish "$name" 2>"$work/$load.watch.err" &
  local h=$!
  pids+=("$h")
  local t_start=$EPOCHREALTIME
  wait_for_line "$work/$load.watch.err" 'hearth watch: watching' 120 "$h" ||
    { echo "watch_bench: hearth watch did not start:" >&2; cat "$work/$load.watch.err" >&2; return 1; }
  sleep 2 # past its first sample and evaluation
  local a w0 rss0 t0 b w1 rss1 hwm t1
  a=$(ticks "$h"); w0=$(written "$h"); rss0=$(status_kb "$h" VmRSS); t0=$EPOCHREALTIME
  sched_beside "$load.hearth"
  wait "$sched_pid" || true
  b=$(ticks "$h"); w1=$(written "$h"); rss1=$(status_kb "$h" VmRSS); hwm=$(status_kb "$h" VmHWM)
  t1=$EPOCHREALTIME
  echo "$(($(status_kb "$h" RssAnon) / 1024)) $(($(status_kb "$h" RssFile) / 1024))" >"$work/$load.rss_split"
  "$hearth" mmv "$name" -n 1 >"$work/$load.watch.mmv" 2>&1 || true
  kill -TERM "$h"
  wait "$h" || true
  awk -v a="$a" -v b="$b" -v t="$hz_ticks" -v t0="$t0" -v t1="$t1" -v w0="$w0" -v w1="$w1" \
    -v r0="$rss0" -v r1="$rss1" -v hwm="$hwm" -v ts="$t_start" 'BEGIN {
      s = t1 - t0
      printf "%.3f %.1f %.1f %.1f %.1f %.1f\n", 100 * (b - a) / t / s, hwm / 1024,
        (w1 - w0) / 1024 / (s / 60), r0 / 1024, r1 / 1024, t1 - ts }' >"$work/$load.hearth"
}

# The poor man's profiler at 1 Hz until DIR/pmp.stop exists: a gdb started each second, or when
# the last one has ended if it took longer; at the end the snapshots taken and the bytes written
# by the loop and its gdbs (a process's io counts its reaped children).
cat >"$work/pmp.sh" <<'EOF_PMP'
# usage: pmp.sh DIR PID
n=0
while [[ ! -e $1/pmp.stop ]]; do
  sleep 1 &
  s=$!
  gdb -p "$2" -batch -ex 'thread apply all bt' >/dev/null 2>&1 && n=$((n + 1))
  wait "$s"
done
echo "$n" >"$1/pmp.count"
while read -r k v; do [[ $k == write_bytes: ]] && echo "$v"; done <"/proc/$BASHPID/io" >"$1/pmp.io"
exit 0
EOF_PMP

# One gdb-PMP window: the loop under /usr/bin/time (elapsed, user, system, largest RSS of a gdb),
# its write_bytes with its children's, the snapshots it took.
run_gdb() {
  local load=$1
  rm -f "$work/pmp.stop"
  /usr/bin/time -f '%e %U %S %M' -o "$work/$load.pmp.time" bash "$work/pmp.sh" "$work" "$wpid" &
  local g=$!
  pids+=("$g")
  sleep 3 # past the first gdb
  sched_beside "$load.gdb"
  wait "$sched_pid" || true
  touch "$work/pmp.stop"
  wait "$g" || true
  read -r e u s m < <(tail -1 "$work/$load.pmp.time") # after any "Command exited with …" line
  awk -v e="$e" -v u="$u" -v s="$s" -v m="$m" -v w="$(cat "$work/pmp.io")" -v n="$(cat "$work/pmp.count")" 'BEGIN {
    printf "%.3f %.1f %.1f %d %.2f\n", 100 * (u + s) / e, m / 1024, w / 1024 / (e / 60), n, n / e }' >"$work/$load.gdb"
}

# One trigger run: "trigger_to_first_sample_ms before_trigger_s watched_s" from its report.json.
run_trigger() {
  local load=$1 i=$2 out="$work/$1.trigger$2"
  "$hearth" watch -p "$wpid" -o "$out" --rule "held = stack:'main' >= 0% for 15s" --rate 1 \
    --ring 10 --after 3 --max-reports 1 --publish "watchbenchtrig$$" 2>"$out.err" &
  local h=$!
  pids+=("$h")
  local j
  for ((j = 0; j < 1200; j++)); do # it ends after its report (--max-reports 1); 2 minutes at most
    kill -0 "$h" 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM "$h" 2>/dev/null || true
  wait "$h" || true
  local r
  r=$(find "$out" -mindepth 2 -maxdepth 2 -name report.json | head -1)
  if [[ -z $r ]]; then
    echo "watch_bench: trigger run $i wrote no report:" >&2
    cat "$out.err" >&2
    echo "- - -"
    return
  fi
  jq -r '[(.watch.trigger_to_first_sample_ms // "-"), (.collectors.stacks.before_trigger_s // "-"),
          (.trigger.at_s // "-")] | @tsv' "$r" | tr '\t' ' '
}

# The long run: hearth watch --ring 600 for RING_RUN seconds, its RSS each minute.
run_ring() {
  local name="watchbenchring$$"
  "$hearth" watch -p "$wpid" -o "$work/ring" --rule "quiet = stack:'no_such_frame_anywhere' > 50%" \
    --rate 1 --ring 600 --publish "$name" 2>"$work/ring.err" &
  local h=$!
  pids+=("$h")
  wait_for_line "$work/ring.err" 'hearth watch: watching' 120 "$h" ||
    { echo "watch_bench: hearth watch did not start:" >&2; cat "$work/ring.err" >&2; return 1; }
  local a w0 t0 i curve=""
  a=$(ticks "$h"); w0=$(written "$h"); t0=$EPOCHREALTIME
  for ((i = 1; i <= ring_run; i++)); do
    sleep 1
    ((i % 60 == 0 || i == ring_run)) && curve+=" ${i}s:$(($(status_kb "$h" VmRSS) / 1024))"
  done
  local b w1 hwm t1
  b=$(ticks "$h"); w1=$(written "$h"); hwm=$(status_kb "$h" VmHWM); t1=$EPOCHREALTIME
  local anon file
  anon=$(($(status_kb "$h" RssAnon) / 1024)); file=$(($(status_kb "$h" RssFile) / 1024))
  "$hearth" mmv "$name" -n 1 >"$work/ring.mmv" 2>&1 || true
  kill -TERM "$h"
  wait "$h" || true
  echo "RSS MB after${curve}; at the end ${anon} MB anonymous, ${file} MB file-backed"
  awk -v a="$a" -v b="$b" -v t="$hz_ticks" -v t0="$t0" -v t1="$t1" -v w0="$w0" -v w1="$w1" -v hwm="$hwm" 'BEGIN {
    s = t1 - t0
    printf "peak RSS (VmHWM) %.1f MB; CPU %.3f%% of one core and %.1f KB/min written over %.0f s\n",
      hwm / 1024, 100 * (b - a) / t / s, (w1 - w0) / 1024 / (s / 60), s }'
  awk -F'\t' '!/^#/ && $3 ~ /^watch\.(sampling\.stopped|ring)/ {printf "its MMV file: %s %s\n", $3, $NF}' "$work/ring.mmv"
}

median() { sort -n | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

printf 'watch_bench: hearth-sample-workload (pid %d, %d threads), --seconds %d, %s vCPUs, unpinned, kernel %s, %s\n' \
  "$wpid" "$nthreads" "$seconds" "$(nproc)" "$(uname -r)" "$(date -u +%Y-%m-%dT%H:%MZ)"
for load in $loads; do
  [[ $load == busy ]] && start_hogs
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  sched_beside "$load.floor"
  wait "$sched_pid" || true
  run_hearth "$load"
  ((skip_gdb)) || run_gdb "$load"
  : >"$work/$load.triggers"
  for ((i = 1; i <= trigger_runs; i++)); do run_trigger "$load" "$i" >>"$work/$load.triggers"; done
  after=$(cut -d' ' -f1-3 /proc/loadavg)
  stop_hogs

  echo
  echo "== $load$([[ $load == busy ]] && echo ': stress-ng --cpu 0 (a hog per vCPU)'): load average before $before, after $after"
  printf '%-14s %9s %9s %11s %11s %10s %9s  %s\n' tool "CPU %" "peak MB" "written" "stopped %" "stopped ms" "stops" "notes"
  read -r fs fms fsw <<<"$(stopped_share "$work/$load.floor.sched")"
  printf '%-14s %9s %9s %11s %11s %10s %9s  %s\n' floor - - - "$fs" "$fms" "$fsw" "nothing attached"
  read -r hc hm hw r0 r1 hsecs <"$work/$load.hearth"
  read -r hs hms hsw <<<"$(stopped_share "$work/$load.hearth.sched")"
  printf '%-14s %9s %9s %11s %11s %10s %9s  %s\n' "hearth watch" "$hc" "$hm" "${hw} KB/min" "$hs" "$hms" "$hsw" \
    "--rate 1 --ring 600, nothing fires"
  if ((!skip_gdb)); then
    read -r gc gm gw gn grate <"$work/$load.gdb"
    read -r gs gms gsw <<<"$(stopped_share "$work/$load.gdb.sched")"
    printf '%-14s %9s %9s %11s %11s %10s %9s  %s\n' "gdb-PMP 1 Hz" "$gc" "$gm" "${gw} KB/min" "$gs" "$gms" "$gsw" \
      "$gn snapshots, $grate/s achieved; peak MB: the largest gdb"
  fi
  awk -v r0="$r0" -v r1="$r1" -v hm="$hm" -v s="$seconds" -v ws="$hsecs" 'BEGIN {
    g = (r1 - r0) / s * 60; if (g < 0) g = 0
    left = (600 - ws) / 60; if (left < 0) left = 0
    printf "hearth memory: RSS %.1f -> %.1f MB over the %d s window (%+.2f MB/min), watched %.0f s in all;\n", r0, r1, s, (r1 - r0) / s * 60, ws
    printf "  a full 10-minute ring (--ring 600 at 1 Hz), extrapolated from that growth: %.1f MB\n", hm + g * left
    printf "  (a one-off step inside the window inflates this: --ring-run 660 measures it)\n" }'
  read -r anon file <"$work/$load.rss_split"
  echo "  RSS at the end: ${anon} MB anonymous, ${file} MB file-backed (mapped binaries and debug info)"
  echo "hearth watch's own figures (its MMV file, at the window's end):"
  awk -F'\t' '!/^#/ && $3 ~ /^watch\.(sampling|ring)\./ {printf "  %s %s\n", $3, $NF}' "$work/$load.watch.mmv"
  if ((trigger_runs)); then
    printf 'trigger path (--ring 10, a rule holding after 15 s, --after 3), %d runs:\n' "$trigger_runs"
    awk '{printf "  run %d: trigger_to_first_sample_ms %s, before_trigger_s %s (trigger at_s %s)\n", NR, $1, $2, $3}' "$work/$load.triggers"
    echo "  median trigger_to_first_sample_ms $(awk '$1 != "-" {print $1}' "$work/$load.triggers" | median)," \
      "least before_trigger_s $(awk '$2 != "-" {print $2}' "$work/$load.triggers" | sort -n | head -1) (--ring 10)"
  fi
done
if ((ring_run)); then
  echo
  echo "== a full ring, measured: hearth watch --rate 1 --ring 600 for ${ring_run} s, idle (no hogs):" \
    "load average before $(cut -d' ' -f1-3 /proc/loadavg)"
  run_ring
  echo "load average after $(cut -d' ' -f1-3 /proc/loadavg)"
fi
echo
echo "goals (issue 31): hearth CPU <= 0.5% of one core; stopped <= 0.01% of the threads' time;"
echo "  <= 50 MB for a 10-minute ring; <= 1 MB/min written while nothing fires;"
echo "  trigger to first full-rate sample <= 100 ms; before_trigger_s >= --ring"
