#!/usr/bin/env bash
# `hearth flame` on `perf script`'s text of a real `perf record -g` of a test target, against an
# independent reading of the same text (awk: each sample's header period, and the function of each
# frame line, its offset dropped): the same total (the periods' sum, as stackcollapse-perf.pl
# counts), and for every plain function name that no stack holds twice, the same total of the
# stacks holding it. Thread roots "[COMM tid=TID]", one per sampled thread. Format detected from
# the content, or forced; `hearth convert` to folded gives the same stacks.
# With STACKCOLLAPSE_PERF=PATH/TO/stackcollapse-perf.pl (FlameGraph's; not shipped, not in
# Debian): hearth's folded stacks are exactly `stackcollapse-perf.pl --tid --all`'s, its
# "COMM-PID/TID" roots written as hearth's; and with FLAMEGRAPH_PL=PATH/TO/flamegraph.pl too,
# flamegraph.pl draws the same frames from them as hearth from perf script's text.
#   tests/integration/perf_script_cli.sh HEARTH_BINARY TARGETS_DIR
set -uo pipefail
hearth=${1:?usage: perf_script_cli.sh HEARTH_BINARY TARGETS_DIR}
targets=${2:?usage: perf_script_cli.sh HEARTH_BINARY TARGETS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"
command -v perf >/dev/null || { echo "perf_script_cli: perf is not installed (bin/setup installs it)"; exit 1; }

start_stack_target "$targets" --threads 3 --depth 4 --spin 2

perf record -g -F 499 -p "$target" -o "$t/perf.data" -- sleep 2 >/dev/null 2>"$t/record.err" \
  || { echo "FAIL: perf record: $(tail -1 "$t/record.err")"; exit 1; }
kill -0 "$target" 2>/dev/null && ok || bad "the target did not survive perf record"
perf script -i "$t/perf.data" >"$t/perf.txt" 2>/dev/null
samples=$(grep -c '^[^#[:space:]]' "$t/perf.txt")
[ "$samples" -ge 50 ] && ok || bad "perf recorded $samples samples, want 50+"

# The independent reading: per sample, its period (1 without one) and its frames' functions.
awk 'function end() { if (in_s) { s = f[1]; for (i = 2; i <= n; i++) s = s "," f[i]; print p, s } n = 0; in_s = 0; f[1] = "" }
     /^#/ { next }
     /^$/ { end(); next }
     /^[^ \t]/ { end(); in_s = 1; p = 1
                 if (match($0, /: +[0-9]+ [^ ]+: *$/)) { q = substr($0, RSTART + 1); sub(/^ +/, "", q); split(q, w, " "); p = w[1] }
                 next }
     in_s { sym = $0; sub(/^[ \t]*[0-9a-f]+ /, "", sym); sub(/ \([^()]*\)$/, "", sym); sub(/\+0x[0-9a-f]+$/, "", sym); f[++n] = sym }
     END { end() }' "$t/perf.txt" >"$t/stacks"
total=$(awk '{ n += $1 } END { print n + 0 }' "$t/stacks")

expect_exit 0 "flame on perf script text" -- "$hearth" flame "$t/perf.txt" -o "$t/auto.svg"
expect_exit 0 "flame --format perf-script" -- "$hearth" flame --format perf-script "$t/perf.txt" -o "$t/forced.svg"
cmp -s "$t/auto.svg" "$t/forced.svg" && ok || bad "detected and forced perf script drew different pictures"
"$hearth" flame -o "$t/piped.svg" <"$t/perf.txt" 2>"$t/err" && cmp -s "$t/auto.svg" "$t/piped.svg" && ok \
  || bad "perf script | hearth flame drew another picture: $(cat "$t/err")"
total_text=$(echo "$total" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta')
grep -q "<title>all ($total_text samples, 100%)</title>" "$t/auto.svg" && ok \
  || bad "the picture's total is not the periods' sum $total_text: $(grep -o '<title>all [^<]*' "$t/auto.svg")"
roots=$(grep -o '<title>\[spin-[0-9] tid=[0-9]*\] ' "$t/auto.svg" | sort -u | wc -l)
[ "$roots" -ge 2 ] && ok || bad "$roots thread roots [spin-N tid=TID], want the 2+ spinning threads"

# Per function: the periods of the stacks holding it, by awk and in the picture.
awk '{ n = $1; split($2, fs, ","); delete seen
       for (i in fs) seen[fs[i]]++
       for (f in seen) { count[f] += n; if (seen[f] > 1) bad[f] = 1 } }
     END { for (f in count) if (!(f in bad) && f ~ /^[A-Za-z_][A-Za-z0-9_.]*$/) print f, count[f] }' \
  "$t/stacks" | sort >"$t/want"
"$here/../golden/frames.sh" "$t/auto.svg" |
  awk '{ $1 = $2 = $3 = ""; sub(/^ +/, ""); name = $0; sub(/ \([0-9,]+ samples?, [0-9.]+%\)$/, "", name)
         sub(/_\[k\]$/, "", name)
         n = $0; sub(/.* \(/, "", n); sub(/ samples?.*/, "", n); gsub(/,/, "", n); sum[name] += n }
       END { for (f in sum) print f, sum[f] }' | sort >"$t/got"
compared=0
while read -r name want; do
  got=$(awk -v f="$name" '$1 == f { print $2 }' "$t/got")
  [ "$got" = "$want" ] && ok || bad "$name: $want by awk, ${got:-none} in the picture"
  compared=$((compared + 1))
done <"$t/want"
[ "$compared" -ge 5 ] && ok || bad "only $compared functions compared"
grep -q '^leaf_spin ' "$t/want" && ok || bad "the target's leaf_spin is not among them"

# Folded out: the same stacks.
expect_exit 0 "convert perf script to folded" -- "$hearth" convert "$t/perf.txt" "$t/hearth.folded"
awk '{ n += $NF } END { print n + 0 }' "$t/hearth.folded" | grep -qx "$total" && ok \
  || bad "the folded stacks do not add up to $total"

if [ -n "${STACKCOLLAPSE_PERF:-}" ]; then
  perl "$STACKCOLLAPSE_PERF" --tid --all "$t/perf.txt" 2>/dev/null |
    sed -E 's|^([^;]*)-[0-9?]+/([0-9]+);|[\1 tid=\2];|; s|^([^;]*)-[0-9?]+/([0-9]+) ([0-9]+)$|[\1 tid=\2] \3|' |
    LC_ALL=C sort >"$t/pl.folded"
  LC_ALL=C sort "$t/hearth.folded" | diff -q "$t/pl.folded" - >/dev/null && ok \
    || bad "folded stacks differ from stackcollapse-perf.pl's: $(LC_ALL=C sort "$t/hearth.folded" | diff "$t/pl.folded" - | head -4)"
  echo "perf_script_cli: compared with stackcollapse-perf.pl: $(wc -l <"$t/pl.folded") stacks"
  if [ -n "${FLAMEGRAPH_PL:-}" ]; then
    perl "$FLAMEGRAPH_PL" "$t/pl.folded" >"$t/pl.svg" 2>/dev/null
    "$hearth" flame "$t/perf.txt" -o "$t/plain.svg" 2>/dev/null
    "$here/../golden/frames.sh" "$t/pl.svg" >"$t/pl.frames"
    "$here/../golden/frames.sh" "$t/plain.svg" >"$t/hearth.frames"
    diff -q "$t/pl.frames" "$t/hearth.frames" >/dev/null && ok \
      || bad "frames differ from flamegraph.pl's: $(diff "$t/pl.frames" "$t/hearth.frames" | head -4)"
    echo "perf_script_cli: compared with flamegraph.pl: $(wc -l <"$t/pl.frames") frames"
  fi
fi

# In time: `hearth heatmap` on the same text (render/profile/perf_script_timed.h). As many
# samples as perf script's headers, over the span from its first time to its last (perf prints
# µs): --to half a µs after the span keeps every sample, half a µs before it drops the last ones;
# --from half a µs in drops the first ones. Each thread's samples, by awk and in the heatmap.
awk '/^[^#[:space:]]/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); print $i; break } }' \
  "$t/perf.txt" | sort -n >"$t/times"
[ "$(wc -l <"$t/times")" = "$samples" ] && ok || bad "awk found $(wc -l <"$t/times") sample times, want $samples"
first=$(head -1 "$t/times"); last=$(tail -1 "$t/times")
span_us=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%d", (b - a) * 1e6 + 0.5 }')
n_first=$(grep -cx "$first" "$t/times"); n_last=$(grep -cx "$last" "$t/times")
samples_text=$(echo "$samples" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta')
expect_exit 0 "heatmap of perf script" -- "$hearth" heatmap "$t/perf.txt" -o "$t/heat.svg"
grep -q "wrote $t/heat.svg: $samples_text samples of " "$t/err" && ok \
  || bad "the heatmap does not say $samples_text samples: $(cat "$t/err")"
grep -q '<svg' "$t/heat.svg" && ok || bad "no SVG heatmap"
expect_exit 0 "heatmap page of perf script" -- "$hearth" heatmap "$t/perf.txt" -o "$t/heat.html"
range_total() {  # range_total FROM TO: the thread-samples the heatmap's folded range holds
  "$hearth" heatmap "$t/perf.txt" --from "$1" --to "$2" -o - 2>/dev/null | awk '{ n += $NF } END { print n + 0 }'
}
to_all=$(awk -v s="$span_us" 'BEGIN { printf "%.7f", (s + 0.5) / 1e6 }')
to_less=$(awk -v s="$span_us" 'BEGIN { printf "%.7f", (s - 0.5) / 1e6 }')
got=$(range_total 0 "$to_all")
[ "$got" = "$samples" ] && ok || bad "the heatmap's range 0..$to_all s holds $got samples, want $samples"
got=$(range_total 0 "$to_less")
[ "$got" = "$((samples - n_last))" ] && ok || bad "0..$to_less s holds $got samples, want $((samples - n_last)) (the span is not perf's)"
got=$(range_total 0.0000005 "$to_all")
[ "$got" = "$((samples - n_first))" ] && ok || bad "0.0000005..$to_all s holds $got samples, want $((samples - n_first))"
heat_threads=0
for tid in $(awk '/^[^#[:space:]]/ { print $2 }' "$t/perf.txt" | sort -u); do
  want=$(awk -v tid="$tid" '/^[^#[:space:]]/ && $2 == tid { n++ } END { print n + 0 }' "$t/perf.txt")
  got=$("$hearth" heatmap "$t/perf.txt" --only-threads " tid=$tid\\]" -o - 2>/dev/null | awk '{ n += $NF } END { print n + 0 }')
  [ "$got" = "$want" ] && ok || bad "thread $tid: $want samples in perf script, $got in the heatmap"
  heat_threads=$((heat_threads + 1))
done
[ "$heat_threads" -ge 2 ] && ok || bad "$heat_threads threads compared in time, want 2+"
# Without times, perf script's samples cannot be placed: one line, exit 2, nothing written.
perf script -i "$t/perf.data" -F comm,tid,event,ip,sym,dso >"$t/untimed.txt" 2>/dev/null
sed -i '1i # ========' "$t/untimed.txt"  # perf script --header's first line: told as perf script
expect_exit 2 "heatmap of perf script without times" -- "$hearth" heatmap "$t/untimed.txt" -o "$t/untimed.svg"
[ ! -e "$t/untimed.svg" ] && ok || bad "a heatmap was written from samples without times"
[ "$(wc -l <"$t/err")" = 1 ] && grep -q "without its time" "$t/err" && ok || bad "not one line on an untimed sample: $(cat "$t/err")"

# Bad input: binary junk and a huge line, forced as perf script: one line, exit 2, no output.
yes $'\x01\xff\x7f junk 12 \x02\x80' | head -c 65536 >"$t/junk"  # "junk 12 ": a header's start
expect_exit 2 "flame --format perf-script on junk" -- "$hearth" flame --format perf-script "$t/junk" -o "$t/junk.svg"
[ ! -e "$t/junk.svg" ] && ok || bad "an SVG was written for junk"
{ printf '\t1 '; head -c 300000000 /dev/zero | tr '\0' 'x'; printf ' (dso)\n'; } >"$t/huge"
expect_exit 2 "flame on a 300 MB line" -- "$hearth" flame --format perf-script "$t/huge" -o "$t/huge.svg"
[ ! -e "$t/huge.svg" ] && ok || bad "an SVG was written for a huge line"
grep -q "limit" "$t/err" && ok || bad "no word of the line limit: $(cat "$t/err")"
rm -f "$t/huge"
finish perf_script_cli
