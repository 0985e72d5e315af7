#!/usr/bin/env bash
# `hearth heatmap` as a user runs it: a samples file, a report directory (timed samples, else raw
# samples), every output kind, exit codes, one clear line per problem (a damaged file names its
# line and the rest is drawn, exit 0 as `hearth flame` for skipped lines), nothing half-written.
#   tests/integration/heatmap_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: heatmap_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs/heat
. "$here/cli_lib.sh"

# Every output kind from one file.
expect_exit 0 "html" -- "$hearth" heatmap "$inputs/small.samples.txt" -o "$t/a.html"
grep -q 'id="heat-data"' "$t/a.html" && ok || bad "the page has no data"
grep -q 'hearth heatmap: wrote .*: 30 samples of 4 threads over 3 s; 3 columns of 1 s, rows of 100 ms (for samples every 100 ms' "$t/err" \
  && ok || bad "the summary says what was chosen: $(cat "$t/err")"
expect_exit 0 "svg" -- "$hearth" heatmap "$inputs/small.samples.txt" -o "$t/a.svg"
grep -q '<g id="cells">' "$t/a.svg" && ok || bad "svg has no cells"
expect_exit 0 "png" -- "$hearth" heatmap "$inputs/small.samples.txt" -o "$t/a.png"
[ "$(head -c 8 "$t/a.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || bad "not a PNG"
expect_exit 0 "pdf" -- "$hearth" heatmap "$inputs/small.samples.txt" -o "$t/a.pdf"
[ "$(head -c 5 "$t/a.pdf")" = "%PDF-" ] && ok || bad "not a PDF"
# Folded stacks of a range, to a file and to standard output; they feed `hearth flame`.
expect_exit 0 "folded" -- "$hearth" heatmap "$inputs/small.samples.txt" --from 1.2 --to 1.5 -o "$t/a.folded"
"$hearth" heatmap "$inputs/small.samples.txt" --from 1.2 --to 1.5 -o - > "$t/b.folded" 2>/dev/null
cmp -s "$t/a.folded" "$t/b.folded" && ok || bad "-o - differs from -o FILE"
[ "$(awk '{ n += $NF } END { print n }' "$t/a.folded")" = 12 ] && ok || bad "1.2..1.5 s: 3 samples of 4 threads"
expect_exit 0 "folded into flame" -- "$hearth" flame "$t/a.folded" -o "$t/range.svg"

# Standard input (-): the same picture as from the file; perf script's text piped in; a damage or
# a bad input named <stdin>, not the memory file that holds it.
"$hearth" heatmap - -o "$t/stdin.svg" < "$inputs/small.samples.txt" 2>"$t/err"
cmp -s "$t/stdin.svg" "$t/a.svg" && ok || bad "- gives the file's picture: $(cat "$t/err")"
"$hearth" heatmap - -o "$t/perf.html" < "$inputs/perf-small.txt" 2>"$t/err" \
  && grep -q 'wrote .*: 60 samples of 3 threads' "$t/err" && ok || bad "perf script on stdin: $(cat "$t/err")"
"$hearth" heatmap - -o "$t/sd.svg" < "$inputs/damaged.samples.txt" 2>"$t/err" \
  && grep -q '^hearth heatmap: <stdin>:61: ' "$t/err" && ok || bad "a damage on stdin: $(cat "$t/err")"
echo garbage | "$hearth" heatmap - -o "$t/sg.html" 2>"$t/err"
[ $? = 2 ] && [ ! -e "$t/sg.html" ] && grep -q '<stdin>:1: not a hearth timed samples file' "$t/err" \
  && ok || bad "bad stdin: $(cat "$t/err")"

# A report directory: its stacks.samples.txt, else its stacks.raw.txt.
mkdir -p "$t/rec"
cp "$inputs/small.samples.txt" "$t/rec/stacks.samples.txt"
expect_exit 0 "report dir" -- "$hearth" heatmap "$t/rec" -o "$t/rec.svg"
cmp -s "$t/rec.svg" "$t/a.svg" && ok || bad "DIR reads DIR/stacks.samples.txt"
mkdir -p "$t/raw"
printf '# hearth stacks raw 1\tpid=7\tname=x\n# time_ns\ttid\tstate\tstack\n# round 0\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n0\t7\tR\t[x tid=7];main\n' \
  > "$t/raw/stacks.raw.txt"
expect_exit 0 "raw samples dir" -- "$hearth" heatmap "$t/raw" -o "$t/raw.folded"
[ "$(cat "$t/raw.folded")" = "[x tid=7];main 1" ] && ok || bad "raw samples: $(cat "$t/raw.folded")"

# Damaged: one line naming file and line, the part before it drawn, exit 0.
expect_exit 0 "damaged" -- "$hearth" heatmap "$inputs/damaged.samples.txt" -o "$t/d.svg"
grep -c . "$t/err" | grep -qx 2 && ok || bad "damage: one line plus the summary: $(cat "$t/err")"
grep -q "damaged.samples.txt:61: .*(drawing the 15 samples before it)" "$t/err" && ok || bad "damage line: $(cat "$t/err")"
grep -q '<g id="cells">' "$t/d.svg" && ok || bad "the part before the damage is drawn"
# Nothing before the damage: an error, nothing written.
printf '# hearth samples 1\tpid=7\tname=x\tmono_ns=0\treal_ns=0\nr\tx\n' > "$t/bad.samples.txt"
expect_exit 2 "no samples" -- "$hearth" heatmap "$t/bad.samples.txt" -o "$t/bad.html"
[ ! -e "$t/bad.html" ] && ok || bad "a page was written for a file with no samples"
grep -q 'bad.samples.txt' "$t/err" && ok || bad "the error names the file: $(cat "$t/err")"
expect_exit 2 "not a samples file" -- "$hearth" heatmap "$here/heatmap_cli.sh" -o "$t/x.html"
[ ! -e "$t/x.html" ] && ok || bad "a page was written for a bad input"
expect_exit 2 "missing file" -- "$hearth" heatmap "$t/nope.txt" -o "$t/y.html"

# Usage: every problem at once, exit 2.
expect_exit 2 "bad options" -- "$hearth" heatmap "$inputs/small.samples.txt" -o "$t/z.gif" --bucket 5parsecs --state Q --only-threads '('
[ "$(grep -c 'hearth heatmap: ' "$t/err")" = 4 ] && ok || bad "all four problems reported: $(cat "$t/err")"
expect_exit 2 "--from with a picture" -- "$hearth" heatmap "$inputs/small.samples.txt" --from 1 -o "$t/z.svg"
expect_exit 2 "too many cells" -- "$hearth" heatmap "$inputs/small.samples.txt" --bucket 1ns -o "$t/z.svg"
grep -q 'choose a larger --bucket' "$t/err" && ok || bad "too many cells: $(cat "$t/err")"
expect_exit 2 "output is the input" -- "$hearth" heatmap "$t/rec/stacks.samples.txt" -o "$t/rec/stacks.samples.txt"
cmp -s "$t/rec/stacks.samples.txt" "$inputs/small.samples.txt" && ok || bad "the input was overwritten"
# No output into an unwritable place leaves no temp file behind.
mkdir -p "$t/ro" && chmod 500 "$t/ro"
if [ "$(id -u)" != 0 ]; then
  expect_exit 1 "unwritable output" -- "$hearth" heatmap "$inputs/small.samples.txt" -o "$t/ro/a.html"
  [ -z "$(ls -A "$t/ro")" ] && ok || bad "something was left in the directory"
fi
finish heatmap_cli
