#!/usr/bin/env bash
# The render verbs' own threads under ThreadSanitizer (bin/test's thread stage): `hearth flame`
# reading a file of 4 MiB or more in two halves, `hearth diff` reading both profiles so and
# drawing its picture on a second thread while the summaries are written. With
# TSAN_OPTIONS=halt_on_error=1 a race ends hearth with a failure; the outputs must be whole.
#   render_threads_tsan.sh HEARTH GEN_FOLDED
set -euo pipefail
hearth=$1
gen=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/hearth-render-threads.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir"/*.err 2>/dev/null || true; exit 1; }

# 3,000 broad stacks: about 5.6 MB each, past the two-thread threshold.
"$gen" --stacks 3000 --shape broad --seed 1 >"$dir/a.folded"
"$gen" --stacks 3000 --shape broad --seed 2 >"$dir/b.folded"
[ "$(stat -c %s "$dir/a.folded")" -ge $((4 << 20)) ] || fail "input under 4 MiB: one thread only"

"$hearth" flame "$dir/a.folded" -o "$dir/a.svg" 2>"$dir/flame.err" || fail "hearth flame exited $?"
grep -q '</svg>' "$dir/a.svg" || fail "flame's SVG is not whole"
"$hearth" diff "$dir/a.folded" "$dir/b.folded" -o "$dir/d.svg" --summary "$dir/d.json" \
  >/dev/null 2>"$dir/diff.err" || fail "hearth diff exited $?"
grep -q '</svg>' "$dir/d.svg" || fail "diff's SVG is not whole"
grep -q '"paths"' "$dir/d.json" || fail "diff's summary is not whole"
! grep -q 'ThreadSanitizer' "$dir"/*.err || fail "ThreadSanitizer reported"
echo "ok: flame and diff on two $(stat -c %s "$dir/a.folded")-byte profiles"
