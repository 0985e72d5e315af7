#!/usr/bin/env bash
# Records flamegraph.pl's frames for every case in flamegraph_pl.txt (run by hand, once, when a
# case is added; flamegraph.pl is not shipped with hearth).
#   tests/golden/record-flamegraph-pl.sh PATH/TO/flamegraph.pl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fg=${1:?usage: record-flamegraph-pl.sh PATH/TO/flamegraph.pl}
while IFS='|' read -r name input options; do
  case "$name" in ''|'#'*) continue ;; esac
  name=$(echo "$name" | xargs); input=$(echo "$input" | xargs)
  eval "args=($options)"
  perl "$fg" "${args[@]}" "$here/inputs/$input" 2>/dev/null > "$here/flamegraph_pl/$name.svg.tmp"
  "$here/frames.sh" "$here/flamegraph_pl/$name.svg.tmp" > "$here/flamegraph_pl/$name.frames"
  rm "$here/flamegraph_pl/$name.svg.tmp"
  echo "$name: $(wc -l < "$here/flamegraph_pl/$name.frames") frames"
done < "$here/flamegraph_pl.txt"
