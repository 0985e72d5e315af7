#!/usr/bin/env bash
# `hearth flame` as a user runs it: inputs from files and stdin, outputs in every format,
# exit codes, one clear line per problem, and nothing half-written on failure.
#   tests/integration/flame_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: flame_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
expect_exit() {  # expect_exit CODE DESCRIPTION -- COMMAND...
  local want=$1 what=$2; shift 3
  "$@" >"$t/out" 2>"$t/err" </dev/null; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want; stderr: $(cat "$t/err")"; fi
}

# A file in, an SVG out.
expect_exit 0 "svg from a file" -- "$hearth" flame "$inputs/threads.folded" -o "$t/a.svg"
grep -q '<title>all (' "$t/a.svg" && ok || bad "svg has no root frame"
grep -q 'hearth flame: wrote' "$t/err" && ok || bad "no summary line on stderr"
# Several files add up: the same file twice doubles every count.
"$hearth" flame "$inputs/threads.folded" "$inputs/threads.folded" -o "$t/b.svg" 2>/dev/null
one=$(grep -o '<title>all ([0-9,]*' "$t/a.svg" | tr -dc 0-9)
two=$(grep -o '<title>all ([0-9,]*' "$t/b.svg" | tr -dc 0-9)
[ "$two" = "$((one * 2))" ] && ok || bad "two inputs: total $two, want $((one * 2))"
# Standard input, SVG on standard output when not a terminal.
"$hearth" flame < "$inputs/threads.folded" > "$t/c.svg" 2>"$t/err" && cmp -s "$t/a.svg" "$t/c.svg" \
  && ok || bad "stdin -> stdout differs from file -> file"
"$hearth" flame - -o "$t/d.svg" < "$inputs/threads.folded" 2>/dev/null && cmp -s "$t/a.svg" "$t/d.svg" \
  && ok || bad "'-' input differs"
# PNG and PDF.
expect_exit 0 "png" -- "$hearth" flame "$inputs/threads.folded" -o "$t/a.png"
[ "$(head -c 8 "$t/a.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || bad "not a PNG"
expect_exit 0 "pdf" -- "$hearth" flame "$inputs/threads.folded" -o "$t/a.pdf"
[ "$(head -c 5 "$t/a.pdf")" = "%PDF-" ] && ok || bad "not a PDF"
expect_exit 0 "png at 2x" -- "$hearth" flame "$inputs/threads.folded" --scale 2 -o "$t/b.png"
w1=$(od -An -tu1 -j16 -N4 "$t/a.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
w2=$(od -An -tu1 -j16 -N4 "$t/b.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
[ "$w2" = "$((w1 * 2))" ] && ok || bad "--scale 2 width $w2, want $((w1 * 2))"

# Bad lines are counted and reported, good ones still drawn.
expect_exit 0 "bad lines skipped" -- "$hearth" flame "$inputs/edge.folded" -o "$t/e.svg"
grep -q 'ignored 2 lines' "$t/err" && ok || bad "ignored-lines report: $(cat "$t/err")"
# Empty and all-zero input: a clear error, exit 2, no output file.
: > "$t/empty.folded"
expect_exit 2 "empty input" -- "$hearth" flame "$t/empty.folded" -o "$t/empty.svg"
grep -q 'no stack counts' "$t/err" && ok || bad "empty input message: $(cat "$t/err")"
[ ! -e "$t/empty.svg" ] && ok || bad "empty input left an output file"
printf 'a;b 0\nc 0\n' > "$t/zero.folded"
expect_exit 2 "all-zero input" -- "$hearth" flame "$t/zero.folded" -o "$t/zero.svg"
# A filter that leaves nothing says so.
expect_exit 2 "filter leaves nothing" -- "$hearth" flame "$inputs/threads.folded" --grep nosuchframe -o "$t/f.svg"
grep -q 'none left after the filters' "$t/err" && ok || bad "filter message: $(cat "$t/err")"
# Filter patterns run in linear time: `(x|y)+z` over a 20,000-character frame name neither
# crashes (std::regex recursed per character and overflowed the stack) nor misses.
long=$(printf '%*s' 20000 '' | tr ' ' x)
printf 'main;%syz;leaf 3\nmain;%s;leaf 2\nmain;other 1\n' "$long" "$long" > "$t/long.folded"
expect_exit 0 "(x|y)+z over a 20,000-character name" -- \
  "$hearth" flame "$t/long.folded" --grep '(x|y)+z' -o "$t/long.svg"
grep -q '<title>all (3 samples, 100%)</title>' "$t/long.svg" && ok \
  || bad "--grep '(x|y)+z' kept the wrong stacks: $(grep -o '<title>all ([^<]*' "$t/long.svg")"
expect_exit 0 "--only-threads over a 20,000-character root" -- \
  "$hearth" flame "$t/long.folded" --only-threads '^(m|a|i|n)+$' --grep '^(x|y)+$' -o "$t/long2.svg"
grep -q '<title>all (2 samples, 100%)</title>' "$t/long2.svg" && ok \
  || bad "--grep '^(x|y)+\$' kept the wrong stacks: $(grep -o '<title>all ([^<]*' "$t/long2.svg")"
# A pattern RE2 does not take: one line saying why, exit 2, nothing written.
expect_exit 2 "lookahead" -- "$hearth" flame "$inputs/threads.folded" --grep 'a(?=b)' -o "$t/la.svg"
[ "$(wc -l < "$t/err")" = 1 ] && grep -qF "hearth flame: --grep a(?=b): not a regular expression (invalid perl operator: (?=; RE2 syntax has no backreferences, lookahead or lookbehind" "$t/err" \
  && ok || bad "lookahead message: $(cat "$t/err")"
[ ! -e "$t/la.svg" ] && ok || bad "a bad pattern left an output"
expect_exit 2 "backreference" -- "$hearth" flame "$inputs/threads.folded" --only-threads '(a)\1' -o "$t/br.svg"
grep -qF 'hearth flame: --only-threads (a)\1: not a regular expression (invalid escape sequence: \1' "$t/err" \
  && ok || bad "backreference message: $(cat "$t/err")"
# hearth chart --metrics is the same pattern type.
expect_exit 2 "chart --metrics backreference" -- "$hearth" chart "$inputs/mmvchart/app.mmv.tsv" --metrics '(a)\1' -o "$t/br.svg"
[ "$(wc -l < "$t/err")" = 1 ] && grep -qF 'hearth chart: --metrics (a)\1: not a regular expression (invalid escape sequence: \1' "$t/err" \
  && ok || bad "chart backreference message: $(cat "$t/err")"

# Missing file: one line naming it.
expect_exit 2 "missing file" -- "$hearth" flame "$t/nope.folded" -o "$t/g.svg"
grep -q "cannot read $t/nope.folded: No such file or directory" "$t/err" && ok || bad "missing-file message: $(cat "$t/err")"
[ "$(wc -l < "$t/err")" = 1 ] && ok || bad "missing file: more than one line on stderr"
# Every bad option reported at once.
expect_exit 2 "bad options" -- "$hearth" flame "$inputs/threads.folded" --colors nope --minwidth x --grep '(' -o "$t/h.txt"
[ "$(grep -c '^hearth flame: ' "$t/err")" = 4 ] && ok || bad "want 4 problems reported: $(cat "$t/err")"
# An unwritable output: error, exit 1, no temp file left behind.
mkdir "$t/ro" && chmod 555 "$t/ro"
if [ "$(id -u)" = 0 ]; then
  # root ignores directory permissions; write into a missing directory instead
  expect_exit 1 "unwritable output" -- "$hearth" flame "$inputs/threads.folded" -o "$t/missing/dir/x.svg"
else
  expect_exit 1 "unwritable output" -- "$hearth" flame "$inputs/threads.folded" -o "$t/ro/x.svg"
fi
[ -z "$(ls -A "$t/ro")" ] && ok || bad "temp file left behind"
# An existing output is replaced whole, never truncated on failure.
cp "$t/a.svg" "$t/keep.svg"
"$hearth" flame "$t/empty.folded" -o "$t/keep.svg" 2>/dev/null
cmp -s "$t/a.svg" "$t/keep.svg" && ok || bad "failed run damaged the existing output"
ls "$t" | grep -q 'hearth-tmp' && bad "temp files left in the output directory" || ok
# A device or FIFO as output is written in place, never replaced by a file.
mkfifo "$t/fifo.svg"
timeout 20 cat "$t/fifo.svg" > "$t/from-fifo" &
reader=$!
timeout 20 "$hearth" flame "$inputs/threads.folded" -o "$t/fifo.svg" 2>/dev/null
wait $reader
[ -p "$t/fifo.svg" ] && cmp -s "$t/a.svg" "$t/from-fifo" && ok || bad "FIFO output replaced or wrong"
"$hearth" flame "$inputs/threads.folded" -o /dev/null 2>/dev/null
[ -c /dev/null ] && ok || bad "/dev/null is no longer a device"
# Version names the revision.
"$hearth" --version | grep -Eq '^hearth [0-9]+\.[0-9]+\.[0-9]+ \(' && ok || bad "--version: $("$hearth" --version)"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
