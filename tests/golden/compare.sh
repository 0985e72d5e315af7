#!/usr/bin/env bash
# Checks that hearth draws the same frames as flamegraph.pl did (recorded in flamegraph_pl/).
#   tests/golden/compare.sh HEARTH_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hearth=${1:?usage: compare.sh HEARTH_BINARY}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0 total=0
while IFS='|' read -r name input options; do
  case "$name" in ''|'#'*) continue ;; esac
  name=$(echo "$name" | xargs); input=$(echo "$input" | xargs)
  total=$((total + 1))
  eval "args=($options)"
  "$hearth" flame "${args[@]}" "$here/inputs/$input" -o "$out/$name.svg" 2>/dev/null
  "$here/frames.sh" "$out/$name.svg" > "$out/$name.frames"
  if ! diff -q "$here/flamegraph_pl/$name.frames" "$out/$name.frames" >/dev/null; then
    echo "FAIL $name: frames differ from flamegraph.pl's (< flamegraph.pl, > hearth):"
    diff "$here/flamegraph_pl/$name.frames" "$out/$name.frames" | head -6
    failed=$((failed + 1))
  fi
done < "$here/flamegraph_pl.txt"
echo "flamegraph.pl parity: $((total - failed)) of $total cases draw the same frames"
[ $failed = 0 ]
