#!/usr/bin/env bash
# Prints the frames of a flamegraph SVG (ours or flamegraph.pl's) one per line, sorted:
#   X Y WIDTH TITLE
# Stops at hearth's thread legend, which is not a frame.
set -euo pipefail
awk '/<g id="threads">/{exit} {print}' "$1" |
  grep -o '<title>[^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*"' |
  sed -E 's|<title>(.*)</title><rect x="([^"]*)" y="([^"]*)" width="([^"]*)"|\2 \3 \4 \1|' |
  awk '{ x=$1; y=$2; w=$3; $1=$2=$3=""; printf "%.1f %.1f %.1f %s\n", x, y, w, substr($0, 4) }' |
  LC_ALL=C sort
