#!/usr/bin/env bash
# `hearth heatmap FILE --moment TIME` as a user runs it: the moment view (render/moment) as text
# (-o FILE.txt, -o -), SVG, PNG and PDF; TIME in seconds since time 0 or as a wall time (Z, an
# offset, or local time through TZ) picks the nearest sample; a report directory; a file without
# a wall clock refuses a wall time; bad TIME and outputs: one line each, exit 2, nothing written.
#   tests/integration/moment_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: moment_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs/heat
. "$here/cli_lib.sh"
m=$inputs/moment.samples.txt

expect_exit 0 "text" -- "$hearth" heatmap "$m" --moment 1.06250125 -o "$t/a.txt"
head -1 "$t/a.txt" | grep -qx 'Moment: 1.063 s (2026-11-27T06:51:10.062Z), pid 500' && ok || bad "title: $(head -1 "$t/a.txt")"
grep -qx 'Sample 4 of 5: 12 threads in 7 groups' "$t/a.txt" && ok || bad "counts: $(sed -n 2p "$t/a.txt")"
grep -q 'hearth heatmap: wrote .*a.txt: Sample 4 of 5: 12 threads in 7 groups' "$t/err" && ok || bad "summary: $(cat "$t/err")"
# Waits first: D, then the lock wait of two threads, then I/O.
grep -v '^ ' "$t/a.txt" | grep . | sed -n '3p;4p;5p' | awk -F' · ' '{ print $1 " · " $2 }' > "$t/heads"
printf '%s\n' '1 thread blocked here · blocked (D)' '3 threads waiting here · lock wait, S' \
  '2 threads waiting here · I/O wait, S' | cmp -s - "$t/heads" && ok || bad "order: $(cat "$t/heads")"
grep -qx '  \[io-1 tid=504\] (tid 504): S since this sample (the one before differs)' "$t/a.txt" && ok || bad "a change at this sample"
grep -qx '  \[worker-3 tid=503\] (tid 503): S for 1.3 µs' "$t/a.txt" && ok || bad "1.25 us as the page rounds it"
grep -q 'leaver' "$t/a.txt" && bad "a thread that left is shown" || ok
# Standard output, the same text.
"$hearth" heatmap "$m" --moment 1.06250125 -o - > "$t/b.txt" 2>/dev/null
cmp -s "$t/a.txt" "$t/b.txt" && ok || bad "-o - differs from -o FILE"
# The nearest sample: 1.25 s is nearer 1.06250125 than 1.5; a tie takes the earlier; past the end,
# the last.
"$hearth" heatmap "$m" --moment 1.25 -o - 2>/dev/null | sed -n 2p | grep -q '^Sample 4 of 5' && ok || bad "1.25 s: nearest"
"$hearth" heatmap "$m" --moment 1.3 -o - 2>/dev/null | sed -n 2p | grep -q '^Sample 5 of 5' && ok || bad "1.3 s: nearest"
"$hearth" heatmap "$m" --moment 1.281250625 -o - 2>/dev/null | sed -n 2p | grep -q '^Sample 4 of 5' && ok || bad "a tie: the earlier"
"$hearth" heatmap "$m" --moment 99 -o - 2>/dev/null | sed -n 2p | grep -q '^Sample 5 of 5' && ok || bad "past the end: the last"
# Wall times: UTC, an offset, and local time (TZ).
for w in 2026-11-27T06:51:10.0625Z 2026-11-27T08:51:10.0625+02:00 "2026-11-27 06:51:10.0625Z"; do
  "$hearth" heatmap "$m" --moment "$w" -o - 2>/dev/null | head -1 | grep -q '^Moment: 1.063 s' && ok || bad "wall time $w"
done
TZ=America/New_York "$hearth" heatmap "$m" --moment 2026-11-27T01:51:10.0625 -o - 2>/dev/null | head -1 |
  grep -q '^Moment: 1.063 s' && ok || bad "local wall time"
# Pictures.
expect_exit 0 "svg" -- "$hearth" heatmap "$m" --moment 1.5 -o "$t/a.svg"
grep -q 'class="hearth moment"' "$t/a.svg" && grep -q 'lock wait, S' "$t/a.svg" && ok || bad "svg content"
expect_exit 0 "png" -- "$hearth" heatmap "$m" --moment 1.5 -o "$t/a.png" --scale 2
[ "$(head -c 8 "$t/a.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || bad "not a PNG"
expect_exit 0 "pdf" -- "$hearth" heatmap "$m" --moment 1.5 -o "$t/a.pdf"
[ "$(head -c 5 "$t/a.pdf")" = "%PDF-" ] && ok || bad "not a PDF"
# A report directory; the thread filter.
mkdir -p "$t/rec" && cp "$m" "$t/rec/stacks.samples.txt"
expect_exit 0 "report dir" -- "$hearth" heatmap "$t/rec" --moment 1.06250125 -o "$t/rec.txt"
cmp -s "$t/rec.txt" "$t/a.txt" && ok || bad "DIR reads DIR/stacks.samples.txt"
"$hearth" heatmap "$m" --moment 1.5 --only-threads worker -o - 2>/dev/null | sed -n 2p |
  grep -qx 'Sample 5 of 5: 3 threads in 2 groups' && ok || bad "--only-threads"

# No wall clock in the file: a wall time is refused, nothing written.
sed 's/real_ns=[0-9]*/real_ns=0/' "$m" > "$t/nowall.samples.txt"
expect_exit 2 "no wall clock" -- "$hearth" heatmap "$t/nowall.samples.txt" --moment 2026-11-27T06:51:10Z -o "$t/n.txt"
[ ! -e "$t/n.txt" ] && grep -q 'nowall.samples.txt: the samples carry no wall clock' "$t/err" && ok || bad "no wall clock: $(cat "$t/err")"
# Usage: every problem at once, exit 2, nothing written.
expect_exit 2 "bad options" -- "$hearth" heatmap "$m" --moment yesterday -o "$t/z.html" --from 1
[ "$(grep -c 'hearth heatmap: ' "$t/err")" = 3 ] && ok || bad "three problems: $(cat "$t/err")"
[ ! -e "$t/z.html" ] && ok || bad "written despite bad options"
expect_exit 2 "bad date" -- "$hearth" heatmap "$m" --moment 2026-13-01T00:00:00Z -o "$t/z.txt"
# Damaged: the part before the damage.
expect_exit 0 "damaged" -- "$hearth" heatmap "$inputs/damaged.samples.txt" --moment 0.5 -o "$t/d.txt"
grep -q 'damaged.samples.txt:61: ' "$t/err" && [ -s "$t/d.txt" ] && ok || bad "damaged: $(cat "$t/err")"

finish moment_cli
