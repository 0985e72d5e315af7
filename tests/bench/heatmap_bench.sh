#!/usr/bin/env bash
# Heatmap benchmark (#29's goals): a synthetic recording of 1 h at 10 Hz x 100 threads (3.6 M
# thread-samples, gen_samples), its timed samples file's size, `hearth heatmap`'s time and page
# size, then in headless Chromium the page's open time, range -> flamegraph and instant -> moment
# view (heatmap_bench.mjs, medians of --runs fresh pages, two ranges each; a line in words
# after the JSON). Also a 24 h recording (1 Hz x 100
# threads) to show it works. With --busy, everything runs again beside one CPU hog per vCPU
# (stress-ng --cpu 0). Informational only: the exit status says whether it ran.
#
# usage: tests/bench/heatmap_bench.sh [--runs 5] [--busy] [--hearth PATH] [--data-dir DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
gen=$root/build/tests/bench/gen_samples
data=$root/build/bench-data/heatmap
runs=5
busy=0
while (($#)); do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --busy) busy=1; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --data-dir) data=${2:?}; shift 2 ;;
    *) sed -n '10p' "$0" >&2; exit 2 ;;
  esac
done
[[ -x $hearth ]] || { echo "heatmap_bench: no hearth at $hearth (cmake --build build --target hearth)" >&2; exit 2; }
[[ -x $gen ]] || { echo "heatmap_bench: no $gen (cmake --build build --target gen_samples)" >&2; exit 2; }
[[ -f $root/tests/browser/node_modules/playwright-core/package.json ]] ||
  (cd "$root/tests/browser" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error)
mkdir -p "$data"

ms() { date +%s%N | awk '{ printf "%d", $1 / 1000000 }'; }
one() {  # NAME GEN-ARGS...
  local name=$1; shift
  local samples=$data/$name.samples.txt page=$data/$name.html
  [[ -f $samples ]] || "$gen" "$@" > "$samples"
  local t0; t0=$(ms)
  "$hearth" heatmap "$samples" -o "$page" 2> "$data/$name.err"
  local t1; t1=$(ms)
  local browser; browser=$(node "$root/tests/bench/heatmap_bench.mjs" "$page" "$runs")
  printf '%s: samples file %s bytes, hearth heatmap %d ms (%s), browser %s\n' "$name" \
    "$(stat -c %s "$samples")" $((t1 - t0)) "$(sed 's/^hearth heatmap: //' "$data/$name.err")" "$browser"
  # The two goals, in words (medians over the runs; conditions: the section's heading).
  node -e '
    const b = JSON.parse(process.argv[1]), p = b.range_third_parts_ms;
    console.log(`  ${process.argv[2]}: range -> flamegraph (middle third, ${b.range_frames} frames, mouse up to painted): ` +
      `${b.range_third_ms} ms median, ${b.range_third_max_ms} ms worst of ${2 * b.runs} (script ${b.range_third_script_ms} ms: ` +
      `totals ${p.totals}, layout ${p.layout}, draw ${p.draw}); one column ${b.range_column_ms} ms, all ${b.range_whole_ms} ms; ` +
      `instant -> moment view: ${b.moment_click_ms} ms click to painted (the view ${b.moment_ms} ms)`);
  ' "$browser" "$name"
}
run_all() {
  echo "== $1 (load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) vCPUs; headless $("${HEARTH_CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null | head -1))"
  one 1h-10hz-100t --seconds 3600 --hz 10 --threads 100
  one 24h-1hz-100t --seconds 86400 --hz 1 --threads 100
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
