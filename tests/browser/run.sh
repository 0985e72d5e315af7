#!/usr/bin/env bash
# Headless-browser tests of the SVG scripts and styles (templates/flame.js, flame.css, chart.js,
# chart.css):
#   tests/browser/run.sh FILE.svg                          test an existing flamegraph SVG
#   tests/browser/run.sh --hearth EXE OUT.svg INPUT [OPT…]  render INPUT with `EXE flame`, then test
#   tests/browser/run.sh --diff EXE OUT.svg BASE NEW [OPT…] render with `EXE diff`, test (diff.test.mjs)
#   tests/browser/run.sh --report EXE OUTDIR CAPTURE      copy CAPTURE, `EXE report` it, test the page
#                                                          served by `EXE serve` and from file://
#   tests/browser/run.sh --heatmap EXE OUTDIR                the heatmap page (heatmap.test.mjs) on a
#                                                          recording the test writes into OUTDIR
#   tests/browser/run.sh --speedscope EXE OUTDIR INPUT    `EXE convert` INPUT (folded) to speedscope,
#                                                          open it in the speedscope app (npm's
#                                                          speedscope; speedscope.test.mjs)
#   tests/browser/run.sh --trace EXE OUTDIR RECORDING     `EXE convert` RECORDING (a directory) to a
#                                                          Chrome trace, open it in the speedscope
#                                                          app as Trace Event JSON (trace.test.mjs)
#   tests/browser/run.sh --token EXE                       `EXE serve --token`: the ?token= redirect
#                                                          and its cookie (token.test.mjs)
#   tests/browser/run.sh --listing EXE                     `EXE serve`'s listing of reports: order,
#                                                          summaries, filter (listing.test.mjs)
#   tests/browser/run.sh --chart EXE OUT.svg INPUT [OPT…]   render with `EXE chart`, test (chart.test.mjs;
#                                                          with --group-threads it expects pools)
#   tests/browser/run.sh --moment EXE OUTDIR INPUT...       the heatmap page's moment view equals
#                                                          `EXE heatmap --moment` (moment.test.mjs)
#   tests/browser/run.sh --timeline EXE OUTDIR INPUT_DIR [UNTRACED_DIR]   `EXE timeline` a
#                                                          recording, test the page (timeline.test.mjs,
#                                                          also over `EXE serve`; UNTRACED_DIR: the
#                                                          same with slots from /proc before the trace)
#   tests/browser/run.sh --when EXE OUTDIR INPUT_DIR...     `EXE report` the input directories' files
#                                                          together, test the time view (when.test.mjs)
# Needs node, npm and Debian's chromium (/usr/bin/chromium, or $HEARTH_CHROMIUM); installs
# playwright-core, speedscope and axe-core into node_modules/ from package-lock.json when
# missing. Missing tools fail the test: they never make it pass.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

die() { echo "browser test: $*" >&2; exit 2; }

command -v node >/dev/null || die "node not found — apt-get install nodejs npm"
chromium="${HEARTH_CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || die "$chromium not found — apt-get install chromium (or set HEARTH_CHROMIUM)"

test=flame.test.mjs
extra=()
case "${1:-}" in
  --hearth)
    [ $# -ge 4 ] || die "usage: run.sh --hearth EXE OUT.svg INPUT [hearth flame options]"
    exe=$2 out=$3 input=$4
    shift 4
    [ -x "$exe" ] || die "no hearth binary at $exe"
    "$exe" flame "$input" "$@" -o "$out"
    svg=$out
    ;;
  --diff)
    [ $# -ge 5 ] || die "usage: run.sh --diff EXE OUT.svg BASE NEW [hearth diff options]"
    exe=$2 out=$3 base=$4 new=$5
    shift 5
    [ -x "$exe" ] || die "no hearth binary at $exe"
    "$exe" diff "$base" "$new" "$@" -o "$out" >/dev/null
    svg=$out test=diff.test.mjs
    extra=("$(cd "$(dirname "$base")" && pwd)/$(basename "$base")" "$(cd "$(dirname "$new")" && pwd)/$(basename "$new")")
    ;;
  --chart)
    [ $# -ge 4 ] || die "usage: run.sh --chart EXE OUT.svg INPUT [hearth chart options]"
    exe=$2 out=$3 input=$4
    shift 4
    [ -x "$exe" ] || die "no hearth binary at $exe"
    "$exe" chart "$input" "$@" -o "$out"
    svg=$out test=chart.test.mjs
    for a in "$@"; do if [ "$a" = --group-threads ]; then extra=(--grouped); fi; done
    ;;
  --report)
    [ $# -eq 4 ] || die "usage: run.sh --report EXE OUTDIR CAPTURE_DIR"
    exe=$2 out=$3 capture=$4
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && cp -r "$capture" "$out"
    "$exe" report "$out"
    svg=$out/index.html test=report.test.mjs
    extra=()
    ;;
  --heatmap)
    [ $# -eq 3 ] || die "usage: run.sh --heatmap EXE OUTDIR"
    exe=$2 out=$3
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && mkdir -p "$out"
    svg=$out/heat.html test=heatmap.test.mjs  # the test writes its recording and page there
    extra=()
    ;;
  --timeline)
    [ $# -eq 4 ] || [ $# -eq 5 ] || die "usage: run.sh --timeline EXE OUTDIR INPUT_DIR [UNTRACED_DIR]"
    exe=$2 out=$3 input=$4 untraced=${5:-}
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && mkdir -p "$out"
    svg=$here/timeline.test.mjs test=timeline.test.mjs  # no SVG: the test writes its page
    extra=()
    ;;
  --when)
    [ $# -ge 4 ] || die "usage: run.sh --when EXE OUTDIR INPUT_DIR..."
    exe=$2 out=$3
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && mkdir -p "$out"
    svg=$here/when.test.mjs test=when.test.mjs  # no SVG: the test writes its report
    extra=("${@:4}")
    ;;
  --moment)
    [ $# -ge 4 ] || die "usage: run.sh --moment EXE OUTDIR INPUT..."
    exe=$2 out=$3
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && mkdir -p "$out"
    svg=$here/moment.test.mjs test=moment.test.mjs  # no SVG: the test writes its pages
    extra=("${@:4}")
    ;;
  --speedscope)
    [ $# -eq 4 ] || die "usage: run.sh --speedscope EXE OUTDIR INPUT.folded"
    exe=$2 out=$3 input=$4
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && mkdir -p "$out"
    "$exe" convert "$input" "$out/profile.speedscope.json"
    svg=$out/profile.speedscope.json test=speedscope.test.mjs
    extra=("$(cd "$(dirname "$input")" && pwd)/$(basename "$input")")
    ;;
  --trace)
    [ $# -eq 4 ] || die "usage: run.sh --trace EXE OUTDIR RECORDING"
    exe=$2 out=$3 input=$4
    [ -x "$exe" ] || die "no hearth binary at $exe"
    rm -rf "$out" && mkdir -p "$out"
    "$exe" convert "$input" "$out/rec.trace.json" || die "hearth convert failed"
    svg=$out/rec.trace.json test=trace.test.mjs
    extra=("$(cd "$out" && pwd)")
    ;;
  --token)
    [ $# -eq 2 ] || die "usage: run.sh --token EXE"
    exe=$2
    [ -x "$exe" ] || die "no hearth binary at $exe"
    svg=$here/token.test.mjs test=token.test.mjs  # no SVG: the test makes its own files
    extra=()
    ;;
  --listing)
    [ $# -eq 2 ] || die "usage: run.sh --listing EXE"
    exe=$2
    [ -x "$exe" ] || die "no hearth binary at $exe"
    svg=$here/listing.test.mjs test=listing.test.mjs  # no SVG: the test makes its own files
    extra=()
    ;;
  *)
    [ $# -eq 1 ] || die "usage: run.sh FILE.svg | run.sh --hearth|--diff|--chart EXE OUT.svg INPUT… [options]"
    svg=$1
    ;;
esac
svg="$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")"

# One install at a time when CTest runs several browser tests in parallel.
installed() {
  [ -f "$here/node_modules/playwright-core/package.json" ] && [ -f "$here/node_modules/speedscope/package.json" ] &&
    [ -f "$here/node_modules/axe-core/package.json" ]
}
if ! installed; then
  command -v npm >/dev/null || die "npm not found — apt-get install npm"
  (
    flock 9
    if ! installed; then
      cd "$here" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error
    fi
  ) 9>"$here/.npm-install.lock"  # in the checkout, not /tmp: nothing left behind there
fi

if [ "$test" = report.test.mjs ]; then
  HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$exe" "$(dirname "$svg")"
fi
if [ "$test" = heatmap.test.mjs ]; then
  HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$exe" "$out"
fi
if [ "$test" = timeline.test.mjs ]; then
  HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$exe" "$out" "$input" ${untraced:+"$untraced"}
fi
if [ "$test" = when.test.mjs ]; then
  HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$exe" "$out" "${extra[@]}"
fi
if [ "$test" = moment.test.mjs ]; then
  HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$exe" "$out" "${extra[@]}"
fi
if [ "$test" = token.test.mjs ] || [ "$test" = listing.test.mjs ]; then
  HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$exe"
fi
HEARTH_CHROMIUM="$chromium" exec node "$here/$test" "$svg" ${extra[@]+"${extra[@]}"}
