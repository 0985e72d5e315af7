#!/usr/bin/env bash
# The report's time view benchmark (when.html): a report directory holding the heatmap goal's
# recording (gen_samples: 1 h at 10 Hz x 100 threads) and the timeline goal's (gen_intervals: 60 s,
# 100 threads, 1 M switches), `hearth report` over it, then in headless Chromium
# (when_bench.mjs, medians of --runs fresh pages): the heatmap page opened alone and in the view,
# every picture linked, a range -> its flamegraph and an instant -> the moment view through the
# view, the timeline's zoom frames while linked. The two recordings' clocks are not lined up (the
# cost is what is measured). Unpinned. With --busy, again beside one CPU hog per vCPU.
# Informational only: the exit status says whether it ran.
#
# usage: tests/bench/when_bench.sh [--runs 5] [--busy] [--hearth PATH] [--data-dir DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
bench=$root/build/tests/bench
data=$root/build/bench-data/when
runs=5
busy=0
while (($#)); do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --busy) busy=1; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --data-dir) data=${2:?}; shift 2 ;;
    *) sed -n '11p' "$0" >&2; exit 2 ;;
  esac
done
[[ -x $hearth ]] || { echo "when_bench: no hearth at $hearth (cmake --build build --target hearth)" >&2; exit 2; }
for g in gen_samples gen_intervals; do
  [[ -x $bench/$g ]] || { echo "when_bench: no $bench/$g (cmake --build build --target $g)" >&2; exit 2; }
done
[[ -f $root/tests/browser/node_modules/playwright-core/package.json ]] ||
  (cd "$root/tests/browser" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error)
dir=$data/1h-10hz-100t+60s-1M
if [[ ! -f $dir/sched.intervals.tsv ]]; then
  mkdir -p "$dir"
  "$bench/gen_intervals" -o "$dir" --seconds 60 --threads 100 --switches 1000000 --hz 0 2> /dev/null
  "$bench/gen_samples" --seconds 3600 --hz 10 --threads 100 > "$dir/stacks.samples.txt"
fi
"$hearth" report "$dir" > /dev/null
run() {
  echo "== $1 ($(nproc) vCPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg), $runs fresh pages)"
  echo "when.html $(stat -c %s "$dir/when.html") bytes, heat.html $(stat -c %s "$dir/heat.html"), timeline.html $(stat -c %s "$dir/timeline.html")"
  node "$root/tests/bench/when_bench.mjs" "$dir" "$runs"
}
run "unpinned"
if ((busy)); then
  # shellcheck source=bench_lib.sh
  source "$(dirname "$0")/bench_lib.sh"
  need_pkg stress-ng stress-ng
  stress-ng --cpu 0 --timeout 1800s --quiet &
  hog=$!
  trap 'kill $hog 2>/dev/null; wait $hog 2>/dev/null || true' EXIT
  sleep 2
  run "busy: stress-ng --cpu 0 (one hog per vCPU), unpinned"
fi
