#!/usr/bin/env bash
# Benchmarks reading `perf script`'s text: `hearth convert` (perf script -> folded stacks, the job
# of FlameGraph's stackcollapse-perf.pl) and `hearth flame` (perf script -> SVG), against
# `stackcollapse-perf.pl --tid --all` on the same file in the same run, and the floor (`cat` of
# the file to /dev/null). The file is a real `perf script` of a `perf record -g` of a test target
# (stack_target-fp, 3 threads, 2 s at 999 Hz) repeated to --mb megabytes. Unpinned; idle, then
# beside one CPU hog per vCPU (bench_lib.sh start_hogs). Prints each run's median wall time, peak
# RSS, and the ratio to hearth convert's. Informational: the exit status says whether it ran.
#
# usage: tests/bench/perf_script_bench.sh [--stackcollapse PATH] [--mb 200] [--runs 3]
#            [--hearth PATH] [--targets DIR] [--data-dir DIR] [--idle-only]
#
# --stackcollapse: FlameGraph's stackcollapse-perf.pl (not in Debian, not shipped with hearth;
# left out, and said, when not given).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
targets=$root/build/tests/integration/targets
data_dir=$root/build/bench-data
stackcollapse=""
mb=200
runs=3
idle_only=0
while (($#)); do
  case $1 in
    --stackcollapse) stackcollapse=${2:?}; shift 2 ;;
    --mb) mb=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --targets) targets=${2:?}; shift 2 ;;
    --data-dir) data_dir=${2:?}; shift 2 ;;
    --idle-only) idle_only=1; shift ;;
    -h | --help) sed -n '10,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "perf_script_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
. "$(dirname "$0")/bench_lib.sh"
need_pkg perf linux-perf
[[ -x /usr/bin/time ]] || need_pkg /usr/bin/time time
((idle_only)) || need_pkg stress-ng stress-ng
[[ -x $hearth ]] || { echo "perf_script_bench: no $hearth (ninja -C build hearth)" >&2; exit 2; }
[[ -n $stackcollapse && ! -f $stackcollapse ]] && { echo "perf_script_bench: no $stackcollapse" >&2; exit 2; }

mkdir -p "$data_dir"
work=$(mktemp -d)
trap 'stop_hogs; exec 4>&- 2>/dev/null; rm -rf "$work"' EXIT
big=$data_dir/perf-script-${mb}mb.txt
if [[ ! -s $big ]]; then
  mkfifo "$work/in"
  "$targets/stack_target-fp" --threads 3 --depth 8 --spin 2 <"$work/in" >"$work/ready" &
  target=$!
  exec 4>"$work/in"
  for _ in $(seq 100); do grep -q '^ready' "$work/ready" && break; sleep 0.1; done
  perf record -g -F 999 -p "$target" -o "$work/perf.data" -- sleep 2 >/dev/null 2>&1
  exec 4>&-
  wait "$target" 2>/dev/null || true
  perf script -i "$work/perf.data" >"$work/one.txt" 2>/dev/null
  one=$(stat -c %s "$work/one.txt")
  ((one > 0)) || { echo "perf_script_bench: perf recorded nothing" >&2; exit 2; }
  : >"$big.tmp"
  while (($(stat -c %s "$big.tmp") < mb * 1000000)); do cat "$work/one.txt" >>"$big.tmp"; done
  mv "$big.tmp" "$big"
fi
size=$(stat -c %s "$big")
samples=$(grep -c '^[^#[:space:]]' "$big")

# run NAME COMMAND...: median wall time (s) and the peak RSS (MB) of RUNS runs.
run() {
  local name=$1; shift
  local times=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" \
      || { echo "  $name: failed: $(tail -1 "$work/err")"; return; }
    read -r s k <"$work/time"
    times+=("$s")
    ((k > rss)) && rss=$k
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  eval "result_${name//-/_}=$median"
  printf '  %-34s %7.2f s  %6.0f MB/s  peak RSS %5d MB\n' "$name" "$median" \
    "$(awk -v b="$size" -v s="$median" 'BEGIN { print (s > 0 ? b / 1e6 / s : 0) }')" $((rss / 1024))
}

bench() {
  local condition=$1
  echo "== $condition; $(date -u '+%Y-%m-%d %H:%M UTC'); load:$(uptime | sed 's/.*load average//')"
  echo "   $(nproc) vCPUs, unpinned; $(awk -v b="$size" 'BEGIN { printf "%.0f MB", b / 1e6 }') of perf script, $samples samples; median of $runs"
  result_floor=0 result_hearth_convert=0 result_stackcollapse=0 result_hearth_flame=0
  run floor cat "$big"
  run hearth-convert "$hearth" convert --format perf-script "$big" "$work/h.folded"
  rm -f "$work/h.folded"
  run hearth-flame "$hearth" flame "$big" -o "$work/h.svg"
  rm -f "$work/h.svg"
  if [[ -n $stackcollapse ]]; then
    run stackcollapse perl "$stackcollapse" --tid --all "$big"
    awk -v p="$result_stackcollapse" -v h="$result_hearth_convert" -v f="$result_hearth_flame" \
      'BEGIN { if (h > 0) printf "   stackcollapse-perf.pl / hearth convert: %.1fx; / hearth flame (to the SVG): %.1fx\n", p / h, p / f }'
  else
    echo "   stackcollapse-perf.pl: not given (--stackcollapse PATH), left out"
  fi
}

bench idle
if ((!idle_only)); then
  start_hogs
  sleep 1
  bench "busy: stress-ng --cpu 0 (one hog per vCPU)"
  stop_hogs
fi
