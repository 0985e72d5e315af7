#!/usr/bin/env bash
# Timeline benchmark (#29's goal: 60 s x 100 threads with 1 M switches draws in <= 2 s; zoom and
# pan frames <= 50 ms, no long task over 200 ms): a synthetic recording (gen_intervals: 60 s,
# 100 threads, 1 M switch-outs, so about 2 M intervals, and stack samples at 100 Hz), `hearth
# timeline`'s time and page size, then in headless Chromium the first complete draw, the longest
# task while loading, zoom and pan frames and the longest task during them (timeline_bench.mjs,
# medians of --runs fresh pages). Unpinned. With --busy, everything runs again beside one CPU
# hog per vCPU (stress-ng --cpu 0). Informational only: the exit status says whether it ran.
#
# usage: tests/bench/timeline_bench.sh [--runs 5] [--busy] [--hearth PATH] [--data-dir DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
gen=$root/build/tests/bench/gen_intervals
data=$root/build/bench-data/timeline
runs=5
busy=0
while (($#)); do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --busy) busy=1; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --data-dir) data=${2:?}; shift 2 ;;
    *) sed -n '9p' "$0" >&2; exit 2 ;;
  esac
done
[[ -x $hearth ]] || { echo "timeline_bench: no hearth at $hearth (cmake --build build --target hearth)" >&2; exit 2; }
[[ -x $gen ]] || { echo "timeline_bench: no $gen (cmake --build build --target gen_intervals)" >&2; exit 2; }
[[ -f $root/tests/browser/node_modules/playwright-core/package.json ]] ||
  (cd "$root/tests/browser" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error)

ms() { date +%s%N | awk '{ printf "%d", $1 / 1000000 }'; }
one() {  # NAME GEN-ARGS...
  local name=$1; shift
  local dir=$data/$name page=$data/$name.html
  if [[ ! -f $dir/sched.intervals.tsv ]]; then
    mkdir -p "$dir"
    "$gen" -o "$dir" "$@" 2> /dev/null
  fi
  local t0; t0=$(ms)
  "$hearth" timeline "$dir" -o "$page" 2> "$data/$name.err"
  local t1; t1=$(ms)
  local browser; browser=$(node "$root/tests/bench/timeline_bench.mjs" "$page" "$runs")
  printf '%s: intervals file %s bytes, hearth timeline %d ms (%s), browser %s\n' "$name" \
    "$(stat -c %s "$dir/sched.intervals.tsv")" $((t1 - t0)) \
    "$(sed 's/^hearth timeline: //' "$data/$name.err")" "$browser"
  # The goals' figures in words: medians over the runs, and the worst of all runs in brackets.
  node -e '
    const j = JSON.parse(process.argv[1]), w = j.worst_of_all_runs;
    console.log(`  first draw ${j.first_draw_ms} ms (goal <= 2000); zoom frame median ${j.zoom_draw_ms} ms, ` +
      `worst ${j.zoom_draw_max_ms} ms [${w.zoom_draw_ms}]; pan frame median ${j.pan_draw_ms} ms, worst ` +
      `${j.pan_draw_max_ms} ms [${w.pan_draw_ms}] (goal <= 50); longest task loading ${j.load_longest_task_ms} ms ` +
      `[${w.load_longest_task_ms}], zooming and panning ${j.interaction_longest_task_ms} ms ` +
      `[${w.interaction_longest_task_ms}] (goal <= 200)`);' "$browser"
}
run_all() {
  echo "== $1 ($(nproc) vCPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg), $runs fresh pages)"
  one 60s-100t-1M --seconds 60 --threads 100 --switches 1000000 --hz 100
}
run_all "idle, unpinned"
if ((busy)); then
  # shellcheck source=bench_lib.sh
  source "$(dirname "$0")/bench_lib.sh"
  need_pkg stress-ng stress-ng
  stress-ng --cpu 0 --timeout 1800s --quiet &
  hog=$!
  trap 'kill $hog 2>/dev/null; wait $hog 2>/dev/null || true' EXIT
  sleep 2
  run_all "busy: stress-ng --cpu 0 (one hog per vCPU), unpinned"
fi
