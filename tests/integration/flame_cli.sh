#!/usr/bin/env bash
# `hearth flame` as a user runs it: inputs from files and stdin, outputs in every format,
# exit codes, one clear line per problem, and nothing half-written on failure.
#   tests/integration/flame_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: flame_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs
. "$here/cli_lib.sh"

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
# One bad line: "1 line that is", not "that are".
printf 'a;b 1\nno count here\n' > "$t/onebad.folded"
expect_exit 0 "one bad line" -- "$hearth" flame "$t/onebad.folded" -o "$t/onebad.svg"
grep -qF "hearth flame: ignored 1 line that is not \`frame;frame;... COUNT\` (line 2 of $t/onebad.folded)" "$t/err" \
  && ok || bad "one ignored line: $(cat "$t/err")"
grep -qF 'ignored 2 lines that are not' <("$hearth" flame "$inputs/edge.folded" -o "$t/e2.svg" 2>&1) \
  && ok || bad "two ignored lines"
# A deep recursion (one stack of 30,001 frames): the top 29,999 frames are drawn under "all",
# and stderr says what was left out in plain numbers.
seq 0 30000 | awk '{ printf "%sf%d", (NR > 1 ? ";" : ""), $1 } END { print " 5" }' > "$t/deep.folded"
expect_exit 0 "deep recursion" -- "$hearth" flame "$t/deep.folded" -o "$t/deep.svg"
grep -qF "hearth flame: wrote $t/deep.svg: 30,000 frames, 2 deeper than 29,999 left out (--max-frames 30000)" "$t/err" \
  && ok || bad "deep recursion message: $(cat "$t/err")"
grep -q '<title>f29998 (5 samples' "$t/deep.svg" && ok || bad "deep recursion: f29998 not drawn"
grep -q '<title>f29999 (' "$t/deep.svg" && bad "deep recursion: more than --max-frames drawn" || ok
expect_exit 0 "--max-frames 1" -- "$hearth" flame "$t/deep.folded" --max-frames 1 -o "$t/deep1.svg"
grep -qF "wrote $t/deep1.svg: 1 frame, the 30,001 below \"all\" left out (--max-frames 1)" "$t/err" \
  && ok || bad "--max-frames 1 message: $(cat "$t/err")"
# A 5 MB line (600,000 frames) is read, not ignored.
seq 0 599999 | awk '{ printf "%sfunc%d", (NR > 1 ? ";" : ""), $1 % 9973 } END { print " 3" }' > "$t/long.folded"
expect_exit 0 "600,000 frames in one line" -- "$hearth" flame "$t/long.folded" -o "$t/longline.svg"
grep -q 'ignored' "$t/err" && bad "long line ignored: $(cat "$t/err")" || ok
grep -q '<title>all (3 samples' "$t/longline.svg" && ok || bad "long line: no samples drawn"
# Whole counts are exact (a double showed ...808), and so are sums.
printf 'a;b 9223372036854775807\n' > "$t/big.folded"
expect_exit 0 "count of 2^63 - 1" -- "$hearth" flame "$t/big.folded" -o "$t/big.svg"
grep -q '<title>b (9,223,372,036,854,775,807 samples, 100.00%)' "$t/big.svg" && ok \
  || bad "2^63 - 1 not exact: $(grep -o '<title>b ([^<]*' "$t/big.svg")"
printf 'a;b 9007199254740993\na;c 1\n' > "$t/sum.folded"
"$hearth" flame "$t/sum.folded" -o "$t/sum.svg" 2>/dev/null
grep -q '<title>a (9,007,199,254,740,994 samples' "$t/sum.svg" && ok || bad "sum past 2^53 not exact"
# Counts that add up past 2^64 - 1: one line saying where, exit 2, nothing written.
printf 'a;b 18446744073709551615\na;c 1\n' > "$t/overflow.folded"
expect_exit 2 "counts past 2^64 - 1" -- "$hearth" flame "$t/overflow.folded" -o "$t/overflow.svg"
[ "$(wc -l < "$t/err")" = 1 ] && grep -qF "hearth flame: line 2 of $t/overflow.folded: the counts add up to more than 18,446,744,073,709,551,615" "$t/err" \
  && ok || bad "overflow message: $(cat "$t/err")"
[ ! -e "$t/overflow.svg" ] && ok || bad "overflow left an output"
# Fractional counts still work.
printf 'a;b 0.5\na;c 1.25\n' > "$t/frac.folded"
expect_exit 0 "fractional counts" -- "$hearth" flame "$t/frac.folded" -o "$t/frac.svg"
grep -q 'data-total="1.75"' "$t/frac.svg" && ok || bad "fractional total: $(grep -o 'data-total="[^"]*"' "$t/frac.svg")"
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

finish flame_cli
