#!/usr/bin/env bash
# Golden tests for hearth's pictures: renders every case in cases.txt (with `hearth flame`, or
# the verb the case names) and compares with expected/ byte for byte, after checking every SVG
# is well-formed XML (xmllint) and every JSON parses. OPTIONS may name other inputs as
# "$inputs/FILE" (e.g. the second profile of `hearth diff`).
# `--update` rewrites expected/ instead (review the diff after).
#   tests/golden/run.sh [--update] HEARTH_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
hearth=${1:?usage: run.sh [--update] HEARTH_BINARY}
# hearth replay prints wall-clock times in local time: the same everywhere in UTC.
export TZ=UTC
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0 total=0
inputs=$here/inputs
while IFS='|' read -r name input options verb; do
  case "$name" in ''|'#'*) continue ;; esac
  name=$(echo "$name" | xargs); input=$(echo "$input" | xargs); verb=$(echo "$verb" | xargs)
  total=$((total + 1))
  eval "args=($options)"
  # hearth convert takes its output as its second argument, not -o.
  if [ "$verb" = convert ]; then
    cmd=("$hearth" convert "$here/inputs/$input" "$out/$name" "${args[@]}")
  else
    cmd=("$hearth" "${verb:-flame}" "$here/inputs/$input" "${args[@]}" -o "$out/$name")
  fi
  if ! "${cmd[@]}" >"$out/$name.stdout" 2>"$out/$name.err"; then
    echo "FAIL $name: hearth exited non-zero: $(cat "$out/$name.err")"
    failed=$((failed + 1)); continue
  fi
  if [[ $name == *.svg ]] && ! xmllint --noout "$out/$name" 2>"$out/$name.xml"; then
    echo "FAIL $name: not well-formed XML: $(head -3 "$out/$name.xml")"
    failed=$((failed + 1)); continue
  fi
  if [[ $name == *.json ]] && command -v python3 >/dev/null &&
     ! python3 -m json.tool "$out/$name" >/dev/null 2>"$out/$name.json-err"; then
    echo "FAIL $name: not valid JSON: $(head -3 "$out/$name.json-err")"
    failed=$((failed + 1)); continue
  fi
  if [ $update = 1 ]; then
    cp "$out/$name" "$here/expected/$name"
  elif ! cmp -s "$out/$name" "$here/expected/$name"; then
    echo "FAIL $name: differs from expected/$name"
    diff <(tr '>' '\n' < "$here/expected/$name" 2>/dev/null) <(tr '>' '\n' < "$out/$name") | head -10
    failed=$((failed + 1))
  fi
done < "$here/cases.txt"
echo "golden: $((total - failed)) of $total cases match"
[ $failed = 0 ]
