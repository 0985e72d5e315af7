#!/usr/bin/env bash
# Headless-browser test of the flamegraph script (templates/flame.js, flame.css):
#   tests/browser/run.sh FILE.svg                          test an existing SVG
#   tests/browser/run.sh --hearth EXE OUT.svg INPUT [OPT…]  render INPUT with `EXE flame`, then test
# Needs node, npm and Debian's chromium (/usr/bin/chromium, or $HEARTH_CHROMIUM); installs
# playwright-core into node_modules/ from package-lock.json when missing. Missing tools fail
# the test: they never make it pass.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

die() { echo "browser test: $*" >&2; exit 2; }

command -v node >/dev/null || die "node not found — apt-get install nodejs npm"
chromium="${HEARTH_CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || die "$chromium not found — apt-get install chromium (or set HEARTH_CHROMIUM)"

if [ "${1:-}" = "--hearth" ]; then
  [ $# -ge 4 ] || die "usage: run.sh --hearth EXE OUT.svg INPUT [hearth flame options]"
  exe=$2 out=$3 input=$4
  shift 4
  [ -x "$exe" ] || die "no hearth binary at $exe"
  "$exe" flame "$input" "$@" -o "$out"
  svg=$out
else
  [ $# -eq 1 ] || die "usage: run.sh FILE.svg | run.sh --hearth EXE OUT.svg INPUT [options]"
  svg=$1
fi
svg="$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")"

# One install at a time when CTest runs several browser tests in parallel.
if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
  command -v npm >/dev/null || die "npm not found — apt-get install npm"
  (
    flock 9
    if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
      cd "$here" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error
    fi
  ) 9>"${TMPDIR:-/tmp}/hearth-browser-npm-$(id -u).lock"
fi

HEARTH_CHROMIUM="$chromium" exec node "$here/flame.test.mjs" "$svg"
