#!/usr/bin/env bash
# `hearth timeline` as a user runs it: a report directory, files named one by one, every output
# kind, exit codes, one clear line per problem (a damaged file names its line and the rest is
# drawn, exit 0 as `hearth flame` for skipped lines), nothing half-written.
#   tests/integration/timeline_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: timeline_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs
rec=$inputs/timeline
. "$here/cli_lib.sh"

# Every output kind from one directory.
expect_exit 0 "html" -- "$hearth" timeline "$rec" -o "$t/a.html"
grep -q 'id="tl-data"' "$t/a.html" && ok || bad "the page has no data"
grep -q 'hearth timeline: wrote .*: 5 threads over 2 s, 837 intervals, 97 sample ticks (slots of 500 ms before +1 s)' "$t/err" \
  && ok || bad "the summary says what was drawn: $(cat "$t/err")"
expect_exit 0 "svg" -- "$hearth" timeline "$rec" -o "$t/a.svg"
grep -q '<g id="lanes">' "$t/a.svg" && ok || bad "svg has no lanes"
expect_exit 0 "png" -- "$hearth" timeline "$rec" -o "$t/a.png"
[ "$(head -c 8 "$t/a.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || bad "not a PNG"
expect_exit 0 "pdf" -- "$hearth" timeline "$rec" -o "$t/a.pdf"
[ "$(head -c 5 "$t/a.pdf")" = "%PDF-" ] && ok || bad "not a PDF"
# The same files named one by one, in any order, draw the same picture.
expect_exit 0 "files" -- "$hearth" timeline "$rec/stacks.samples.txt" "$rec/sched.preemptors.tsv" \
  "$rec/sched.slots.tsv" "$rec/sched.intervals.tsv" -o "$t/b.svg"
cmp -s "$t/a.svg" "$t/b.svg" && ok || bad "files named one by one differ from the directory"
# The moment link: to heat.html when the page is written beside one, or where --heatmap says.
mkdir -p "$t/withheat" && : > "$t/withheat/heat.html"
expect_exit 0 "beside a heatmap" -- "$hearth" timeline "$rec" -o "$t/withheat/timeline.html"
grep -q '"heatmap":"heat.html"' "$t/withheat/timeline.html" && ok || bad "no moment link beside heat.html"
grep -q '"heatmap":""' "$t/a.html" && ok || bad "a moment link without a heatmap"
# A range and the thread filter.
expect_exit 0 "range" -- "$hearth" timeline "$rec" --from 1 --to 1.5 --only-threads flusher -o "$t/r.svg"
grep -q '1 thread over 500 ms; 4 scheduler intervals, 6 stack samples; 4 threads left out' "$t/r.svg" \
  && ok || bad "the range's subtitle: $(grep -o '1 thread over[^<]*' "$t/r.svg")"

# Damaged: one line naming file and line, the part before it drawn, exit 0.
expect_exit 0 "damaged" -- "$hearth" timeline "$inputs/timeline-damaged.sched.intervals.tsv" -o "$t/d.svg"
grep -c . "$t/err" | grep -qx 2 && ok || bad "damage: one line plus the summary: $(cat "$t/err")"
grep -q "timeline-damaged.sched.intervals.tsv:21: .*(drawing what comes before it)" "$t/err" && ok || bad "damage line: $(cat "$t/err")"
grep -q '12 scheduler intervals' "$t/d.svg" && ok || bad "the part before the damage is drawn"
# A cut-short file (no `# end`): said, the rest drawn.
head -c 20000 "$rec/sched.intervals.tsv" > "$t/cut.tsv"
expect_exit 0 "cut short" -- "$hearth" timeline "$t/cut.tsv" -o "$t/cut.html"
grep -q "cut.tsv:[0-9]*: " "$t/err" && ok || bad "the cut is said: $(cat "$t/err")"
# Nothing to draw: an error, nothing written.
printf '# hearth sched.intervals 1\n# window_ns\t1\n' > "$t/bad.tsv"
expect_exit 2 "bad header" -- "$hearth" timeline "$t/bad.tsv" -o "$t/bad.html"
[ ! -e "$t/bad.html" ] && ok || bad "a page was written for a file with no header"
grep -q 'bad.tsv:2' "$t/err" && ok || bad "the error names the file and line: $(cat "$t/err")"
expect_exit 2 "not a recording" -- "$hearth" timeline "$here/timeline_cli.sh" -o "$t/x.html"
grep -q "timeline_cli.sh: not a file the timeline reads" "$t/err" && ok || bad "not a recording: $(cat "$t/err")"
[ ! -e "$t/x.html" ] && ok || bad "a page was written for a bad input"
mkdir -p "$t/empty"
expect_exit 2 "no intervals" -- "$hearth" timeline "$t/empty" -o "$t/y.html"
grep -q "no sched.intervals.tsv in it" "$t/err" && ok || bad "no intervals: $(cat "$t/err")"
expect_exit 2 "missing file" -- "$hearth" timeline "$t/nope.tsv" -o "$t/y.html"
expect_exit 2 "no thread matches" -- "$hearth" timeline "$rec" --only-threads '^nobody$' -o "$t/y.svg"
[ ! -e "$t/y.svg" ] && ok || bad "a picture was written with no lanes"

# Usage: every problem at once, exit 2.
expect_exit 2 "bad options" -- "$hearth" timeline "$rec" -o "$t/z.gif" --only-threads '(' --from 3 --to 2 --width 10
[ "$(grep -c 'hearth timeline: ' "$t/err")" = 4 ] && ok || bad "all four problems reported: $(cat "$t/err")"
expect_exit 2 "range outside" -- "$hearth" timeline "$rec" --from 50 -o "$t/z.svg"
grep -q 'the recording spans 0.000 s to 2.000 s$' "$t/err" && ok || bad "range outside: $(cat "$t/err")"
cp -r "$rec" "$t/rec"
expect_exit 2 "output is the input" -- "$hearth" timeline "$t/rec" -o "$t/rec/sched.intervals.tsv"
cmp -s "$t/rec/sched.intervals.tsv" "$rec/sched.intervals.tsv" && ok || bad "the input was overwritten"
# No output into an unwritable place leaves no temp file behind.
mkdir -p "$t/ro" && chmod 500 "$t/ro"
if [ "$(id -u)" != 0 ]; then
  expect_exit 1 "unwritable output" -- "$hearth" timeline "$rec" -o "$t/ro/a.html"
  [ -z "$(ls -A "$t/ro")" ] && ok || bad "something was left in the directory"
fi
finish timeline_cli
