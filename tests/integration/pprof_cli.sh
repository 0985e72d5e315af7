#!/usr/bin/env bash
# pprof in and out, through the command line and a real consumer:
#  - every folded file of the shared test data (and the repository's sample) goes folded ->
#    pprof -> folded with identical stacks and counts (each stack's counts summed, as written);
#  - `go tool pprof` (Debian golang-go) reads hearth's pprof: its -raw samples add up to the
#    total hearth flame draws, and its ten top functions (-top) have the flat counts the folded
#    leaves have; the profile it writes back (-proto, Go's own encoder) reads as the same stacks
#    (-symbolize=none: else pprof simplifies C++ names, dropping template and parameter lists);
#  - a real Go program's CPU profile reads as go tool pprof reads it (samples, hottest function);
#  - hearth flame draws a .pb.gz (by content, forced, or piped) as it draws the folded file;
#  - bad pprof (truncated, a gzip bomb): one line, exit 2, nothing written.
#   tests/integration/pprof_cli.sh HEARTH_BINARY SOURCE_DIR [FOLDED_TESTDATA_DIR]
set -uo pipefail
hearth=${1:?usage: pprof_cli.sh HEARTH_BINARY SOURCE_DIR [FOLDED_TESTDATA_DIR]}
src=${2:?usage: pprof_cli.sh HEARTH_BINARY SOURCE_DIR [FOLDED_TESTDATA_DIR]}
testdata=${3:-$src/../shared/testdata/folded}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"
command -v go >/dev/null || { echo "pprof_cli: go is not installed (bin/setup installs golang-go)"; exit 1; }
export HOME=$t PPROF_TMPDIR=$t/pprof GOCACHE=$t/gocache

inputs=("$src/samples/synthetic-server.folded")
if [ -d "$testdata" ]; then
  inputs+=("$testdata"/*.folded)
else
  echo "pprof_cli: no shared test data at $testdata: the repository's sample only"
fi

# Each distinct stack and its summed count, as written (a folded file may repeat a stack).
sums() { awk '{ c = $NF; $NF = ""; sub(/ $/, ""); s[$0] += c } END { for (k in s) print k " " s[k] }' "$1" | LC_ALL=C sort; }

# go tool pprof's flat counts by function (-top, all nodes), "NAME FLAT" sorted.
go_flat() {
  go tool pprof -symbolize=none -top -nodecount=100000 -sample_index=samples "$1" 2>"$t/go.err" |
    awk 'f && NF >= 6 { flat = $1; for (i = 1; i <= 5; i++) $i = ""; sub(/^ +/, ""); if (flat + 0 > 0) print $0 " " flat }
         /flat%/ { f = 1 }' | LC_ALL=C sort
}

n=0
for f in "${inputs[@]}"; do
  n=$((n + 1))
  b=$(basename "$f" .folded)
  expect_exit 0 "$b: convert to pprof" -- "$hearth" convert "$f" "$t/$n.pb.gz"
  [ "$(head -c2 "$t/$n.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] && ok || bad "$b: the .pb.gz is not gzip"
  expect_exit 0 "$b: convert back" -- "$hearth" convert "$t/$n.pb.gz" "$t/$n.back.folded"
  sums "$f" >"$t/$n.want"
  sums "$t/$n.back.folded" >"$t/$n.got"
  cmp -s "$t/$n.want" "$t/$n.got" && ok || bad "$b: folded -> pprof -> folded changed stacks or counts: $(diff "$t/$n.want" "$t/$n.got" | head -4)"

  # The consumer: go tool pprof's samples and top functions.
  total=$(awk '{ n += $NF } END { print n }' "$f")
  go tool pprof -symbolize=none -raw "$t/$n.pb.gz" >"$t/$n.raw" 2>"$t/go.err" && ok || bad "$b: go tool pprof -raw failed: $(head -3 "$t/go.err")"
  go_total=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $1 ~ /^[0-9]+:?$/ { n += $1 } END { print n + 0 }' "$t/$n.raw")
  [ "$go_total" = "$total" ] && ok || bad "$b: go tool pprof -raw's samples add up to $go_total, the file's counts to $total"
  expect_exit 0 "$b: flame of the pprof" -- "$hearth" flame "$t/$n.pb.gz" -o "$t/$n.pprof.svg"
  drawn=$(grep -o '<title>all ([0-9,]* sample' "$t/$n.pprof.svg" | tr -dc 0-9)
  [ "$drawn" = "$total" ] && ok || bad "$b: hearth flame's total is ${drawn:-none}, not $total"
  expect_exit 0 "$b: flame of the folded file" -- "$hearth" flame "$f" -o "$t/$n.folded.svg"
  cmp -s "$t/$n.pprof.svg" "$t/$n.folded.svg" && ok || bad "$b: the pprof and the folded file drew different pictures"

  # Flat counts: a function's is the count of stacks whose leaf it is (roots that are threads
  # are labels in pprof, so a thread's own count has no function).
  awk '{ c = $NF; $NF = ""; sub(/ $/, ""); k = split($0, fs, ";"); leaf[fs[k]] += c }
       END { for (l in leaf) print l " " leaf[l] }' "$f" | LC_ALL=C sort >"$t/$n.leaves"
  go_flat "$t/$n.pb.gz" >"$t/$n.goflat"
  [ -s "$t/$n.goflat" ] && ok || bad "$b: go tool pprof -top gave no functions: $(head -3 "$t/go.err")"
  compared=0
  top=$(awk '{ print $NF, $0 }' "$t/$n.goflat" | sort -k1,1nr | head -10 | cut -d' ' -f2-)
  while IFS= read -r row; do
    [ -n "$row" ] || continue
    name=${row% *} flat=${row##* }
    want=$(awk -v f="$name" '{ c = $NF; $NF = ""; sub(/ $/, ""); if ($0 == f) print c }' "$t/$n.leaves")
    [ "$want" = "$flat" ] && ok || bad "$b: go tool pprof's flat count of $name is $flat, the folded leaves' ${want:-none}"
    compared=$((compared + 1))
  done <<<"$top"
  [ "$compared" -ge 5 ] && ok || bad "$b: only $compared of go tool pprof's top functions compared"

  # Go's own encoder writes the profile back; hearth reads what it wrote.
  go tool pprof -symbolize=none -proto "$t/$n.pb.gz" >"$t/$n.go.pb.gz" 2>"$t/go.err" && ok || bad "$b: go tool pprof -proto failed: $(head -3 "$t/go.err")"
  expect_exit 0 "$b: convert Go's pprof" -- "$hearth" convert "$t/$n.go.pb.gz" "$t/$n.go.folded"
  sums "$t/$n.go.folded" >"$t/$n.go.got"
  cmp -s "$t/$n.want" "$t/$n.go.got" && ok || bad "$b: Go's rewrite of the profile reads as other stacks: $(diff "$t/$n.want" "$t/$n.go.got" | head -4)"
done
[ "$n" -ge 1 ] && ok || bad "no folded input"

# Forced, and piped (the format told from the first bytes of a pipe).
f=${inputs[0]}
expect_exit 0 "flame --format pprof" -- "$hearth" flame --format pprof "$t/1.pb.gz" -o "$t/forced.svg"
cmp -s "$t/forced.svg" "$t/1.folded.svg" && ok || bad "--format pprof drew another picture"
cat "$t/1.pb.gz" | "$hearth" flame -o "$t/piped.svg" 2>"$t/err" && ok || bad "piped pprof: $(cat "$t/err")"
cmp -s "$t/piped.svg" "$t/1.folded.svg" && ok || bad "piped pprof drew another picture"
# Short piped text (fewer bytes than the look at the format takes) is still folded stacks.
[ "$(printf 'a 1' | "$hearth" convert - -)" = "a 1" ] && ok || bad "piped 'a 1' did not read as one stack"
[ "$(printf 'b;c 2\na 1\n' | "$hearth" convert - -)" = "$(printf 'a 1\nb;c 2')" ] && ok \
  || bad "piped folded text did not read back sorted"
gunzip -c "$t/1.pb.gz" >"$t/raw.pb"
expect_exit 0 "flame of raw protobuf" -- "$hearth" flame "$t/raw.pb" -o "$t/raw.svg"
cmp -s "$t/raw.svg" "$t/1.folded.svg" && ok || bad "raw protobuf drew another picture"
# flame -o OUT.pb.gz writes the (filtered) stacks, not a picture.
expect_exit 0 "flame -o .pb.gz" -- "$hearth" flame "$f" --grep . -o "$t/flame.pb.gz"
cmp -s <(gunzip -c "$t/flame.pb.gz") "$t/raw.pb" && ok || bad "flame -o .pb.gz is not convert's profile"
# diff reads pprof too.
expect_exit 0 "diff of pprof and folded" -- "$hearth" diff "$t/1.pb.gz" "$f" --summary "$t/diff.md" -o "$t/diff.svg"

# A real Go program's CPU profile (runtime/pprof: mappings, addresses, Go's own encoding): hearth
# reads the samples go tool pprof reads, and the same flat count of its hottest function.
mkdir -p "$t/goprog"
cat >"$t/goprog/main.go" <<'GO'
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

//go:noinline
func spinLeaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

//go:noinline
func spinMiddle() int { return spinLeaf(1 << 20) }

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	s := 0
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		s += spinMiddle()
	}
	pprof.StopCPUProfile()
	f.Close()
	if s == 42 {
		println(s)
	}
}
GO
(cd "$t/goprog" && go run main.go "$t/go.cpu.pb.gz") 2>"$t/go.err" && ok || bad "the Go program failed: $(head -3 "$t/go.err")"
expect_exit 0 "convert Go's CPU profile" -- "$hearth" convert "$t/go.cpu.pb.gz" "$t/go.cpu.folded"
go tool pprof -symbolize=none -raw "$t/go.cpu.pb.gz" >"$t/go.cpu.raw" 2>"$t/go.err"
go_samples=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $1 ~ /^[0-9]+$/ && $2 ~ /:$/ { n += $1 } END { print n + 0 }' "$t/go.cpu.raw")
hearth_samples=$(awk '{ n += $NF } END { print n + 0 }' "$t/go.cpu.folded")
[ "$go_samples" -ge 5 ] && [ "$hearth_samples" = "$go_samples" ] && ok \
  || bad "Go's CPU profile: go tool pprof reads $go_samples samples, hearth $hearth_samples"
go_leaf=$(go_flat "$t/go.cpu.pb.gz" | awk '$1 == "main.spinLeaf" { print $2 }')
hearth_leaf=$(awk '{ c = $NF; $NF = ""; sub(/ $/, ""); k = split($0, fs, ";"); if (fs[k] == "main.spinLeaf") n += c } END { print n + 0 }' "$t/go.cpu.folded")
[ -n "$go_leaf" ] && [ "$hearth_leaf" = "$go_leaf" ] && ok \
  || bad "Go's CPU profile: main.spinLeaf's flat count is ${go_leaf:-none} by go tool pprof, $hearth_leaf by hearth"
grep -q '^runtime.main;main.main;main.spinMiddle;main.spinLeaf ' "$t/go.cpu.folded" && ok \
  || bad "Go's CPU profile: no stack runtime.main;main.main;main.spinMiddle;main.spinLeaf: $(head -3 "$t/go.cpu.folded")"

# hearth stacks -o OUT.pb.gz: a real process's samples, with the sampling period.
sleep 60 &
sleeper=$!
expect_exit 0 "stacks -o .pb.gz" -- "$hearth" stacks -p "$sleeper" -n 2 -F 10 -o "$t/stacks.pb.gz"
kill "$sleeper" 2>/dev/null; wait "$sleeper" 2>/dev/null
go tool pprof -symbolize=none -raw "$t/stacks.pb.gz" >"$t/stacks.raw" 2>"$t/go.err"
grep -q '^Period: 100000000$' "$t/stacks.raw" && grep -q 'wall/nanoseconds' "$t/stacks.raw" && ok \
  || bad "stacks' pprof has no wall time at -F 10: $(head -5 "$t/stacks.raw") $(head -2 "$t/go.err")"
grep -q "thread_id:\[$sleeper\]" "$t/stacks.raw" && ok || bad "stacks' pprof has no thread_id label $sleeper"
stacks_total=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $1 ~ /^[0-9]+:?$/ { n += $1 } END { print n + 0 }' "$t/stacks.raw")
[ "$stacks_total" = 2 ] && ok || bad "stacks' pprof holds $stacks_total samples, not 2"

# Bad input: one line on stderr, exit 2, no output.
head -c 300000000 /dev/zero | gzip -1 >"$t/bomb.pb.gz"
expect_exit 2 "gzip bomb" -- "$hearth" flame "$t/bomb.pb.gz" -o "$t/bomb.svg"
grep -q "limit" "$t/err" && [ "$(wc -l <"$t/err")" = 1 ] && ok || bad "gzip bomb: not one line about the limit: $(cat "$t/err")"
[ ! -e "$t/bomb.svg" ] && ok || bad "gzip bomb: an output was written"
head -c $(($(stat -c %s "$t/raw.pb") / 2)) "$t/raw.pb" >"$t/cut.pb"
expect_exit 2 "truncated protobuf" -- "$hearth" convert "$t/cut.pb" "$t/cut.folded"
grep -q "not a valid pprof profile" "$t/err" && [ "$(wc -l <"$t/err")" = 1 ] && ok || bad "truncated protobuf: $(cat "$t/err")"
[ ! -e "$t/cut.folded" ] && ok || bad "truncated protobuf: an output was written"
head -c $(($(stat -c %s "$t/1.pb.gz") - 9)) "$t/1.pb.gz" >"$t/cut.pb.gz"
expect_exit 2 "truncated gzip" -- "$hearth" flame "$t/cut.pb.gz" -o "$t/cut.svg"
grep -q "truncated" "$t/err" && ok || bad "truncated gzip: $(cat "$t/err")"
[ ! -e "$t/cut.svg" ] && ok || bad "truncated gzip: an output was written"
expect_exit 2 "convert to an unknown format" -- "$hearth" convert "$f" "$t/x.txt"
printf 'a;b 0.5\n' >"$t/frac.folded"
expect_exit 2 "fractional counts to pprof" -- "$hearth" convert "$t/frac.folded" "$t/frac.pb.gz"
[ ! -e "$t/frac.pb.gz" ] && ok || bad "fractional counts: an output was written"

# A recording's timed samples as pprof (render/profile/pprof_timed.h): `hearth convert DIR
# OUT.pb.gz` keeps each thread-sample with the labels thread, thread_id, state and time
# (nanoseconds since the recording's time 0). Checked against an awk expansion of the samples
# file (each round holds every thread of its process with its last state): go tool pprof -tags
# counts per state and per thread, -tagfocus on the time and on the state picks the samples awk
# finds in that range.
check_timed_pprof() {  # check_timed_pprof NAME DIR: DIR (a recording) to pprof, against awk
  local n=$1 dir=$2
  awk -F'\t' 'function emit() { if (in_r) for (k in st) print tm, k, st[k], name[k] }
       $1 == "t" { name[$2] = $4; sub(/^\[/, "", name[$2]); sub(/ tid=.*/, "", name[$2]); next }
       $1 == "r" { emit(); in_r = 1; tm = $2; next }
       $1 == "-" { delete st[$2]; next }
       $1 ~ /^[0-9]+$/ && NF == 3 { st[$1] = $2; next }
       END { emit() }' "$dir/stacks.samples.txt" >"$t/$n.expanded"
  rec_total=$(wc -l <"$t/$n.expanded")
  expect_exit 0 "a recording's directory to pprof" -- "$hearth" convert "$dir" "$t/$n.pb.gz"
  expect_exit 0 "its stacks.samples.txt to pprof" -- "$hearth" convert "$dir/stacks.samples.txt" "$t/$n.file.pb.gz"
  go tool pprof -raw "$t/$n.pb.gz" >"$t/$n.raw" 2>"$t/go.err" && ok || bad "$n: go tool pprof -raw on the timed pprof: $(head -3 "$t/go.err")"
  go tool pprof -raw "$t/$n.file.pb.gz" 2>/dev/null | cmp -s - "$t/$n.raw" && ok || bad "$n: the directory and its samples file gave other profiles"
  go tool pprof -tags "$t/$n.pb.gz" >"$t/$n.tags" 2>"$t/go.err" && ok || bad "$n: go tool pprof -tags: $(head -3 "$t/go.err")"
  for key in thread thread_id state time; do
    grep -Eq "^ *$key: Total $rec_total(\.0)?\$" "$t/$n.tags" && ok || bad "$n: -tags: no '$key: Total $rec_total': $(grep -E "^ *$key:" "$t/$n.tags")"
  done
  for state in $(awk '{ print $3 }' "$t/$n.expanded" | sort -u); do
    want=$(awk -v s="$state" '$3 == s { n++ } END { print n + 0 }' "$t/$n.expanded")
    awk -v s="$state" '/^ *state:/ { on = 1; next } /^ *[a-z_]+: Total/ { on = 0 } on && $NF == s { print $1 + 0 }' "$t/$n.tags" |
      grep -qx "$want" && ok || bad "$n: -tags: state $state, want $want samples: $(sed -n '/state:/,/^$/p' "$t/$n.tags")"
  done
  for thread in $(awk '{ print $4 }' "$t/$n.expanded" | sort -u); do
    want=$(awk -v s="$thread" '$4 == s { n++ } END { print n + 0 }' "$t/$n.expanded")
    awk -v s="$thread" '/^ *thread:/ { on = 1; next } /^ *[a-z_]+: Total/ { on = 0 } on && $NF == s { print $1 + 0 }' "$t/$n.tags" |
      grep -qx "$want" && ok || bad "$n: -tags: thread $thread, want $want samples"
  done
  # -tagfocus on the numeric time label (unit nanoseconds: pprof takes ms and s) and on the state.
  raw_total() { awk '/^Samples:/ { on = 1; getline; next } /^Locations/ { on = 0 } on && /^ +[0-9]+ +[0-9]+:/ { n += $1 } END { print n + 0 }' "$1"; }
  want=$(awk '$1 >= 150000000 && $1 <= 450000000' "$t/$n.expanded" | wc -l)
  go tool pprof -raw -tagfocus=time=150ms:450ms "$t/$n.pb.gz" >"$t/$n.focus.raw" 2>"$t/go.err"
  got=$(raw_total "$t/$n.focus.raw")
  [ "$got" = "$want" ] && [ "$want" -gt 0 ] && [ "$want" -lt "$rec_total" ] && ok \
    || bad "$n: -tagfocus=time=150ms:450ms: $got samples, awk $want of $rec_total: $(head -3 "$t/go.err")"
  local state=S  # the golden file's sleepers; a real recording's commonest state
  [ "$n" = golden ] || state=$(awk '{ print $3 }' "$t/$n.expanded" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
  want=$(awk -v s="$state" '$3 == s' "$t/$n.expanded" | wc -l)
  go tool pprof -raw -tagfocus=state="$state" "$t/$n.pb.gz" >"$t/$n.focus.raw" 2>"$t/go.err"
  got=$(raw_total "$t/$n.focus.raw")
  [ "$got" = "$want" ] && [ "$want" -gt 0 ] && ok || bad "$n: -tagfocus=state=$state: $got samples, awk $want"
  got=$(raw_total "$t/$n.raw")
  [ "$got" = "$rec_total" ] && ok || bad "$n: -raw: $got samples, awk $rec_total"
  # hearth reads it back: the thread-samples as its flamegraph's total.
  "$hearth" convert "$t/$n.pb.gz" "$t/$n.folded" 2>"$t/err" && awk '{ n += $NF } END { print n + 0 }' "$t/$n.folded" |
    grep -qx "$rec_total" && ok || bad "$n: hearth reads the timed pprof back with another total: $(cat "$t/err")"
}
mkdir -p "$t/rec"
cp "$src/tests/golden/inputs/heat/small.samples.txt" "$t/rec/stacks.samples.txt"
check_timed_pprof golden "$t/rec"
# A real recording of a test target (HEARTH_TARGETS: the test targets' directory; root).
if [ -n "${HEARTH_TARGETS:-}" ]; then
  mkfifo "$t/in"
  "$HEARTH_TARGETS/stack_target-fp" --threads 4 --depth 3 --spin 1 <"$t/in" >"$t/ready" &
  target=$!
  exec 4>"$t/in"  # the target runs while this stays open
  trap 'exec 4>&-; kill $target 2>/dev/null; wait 2>/dev/null; rm -rf "$t"' EXIT
  for _ in $(seq 100); do grep -q '^ready' "$t/ready" && break; sleep 0.1; done
  if "$hearth" record -p "$target" -d 1 -F 20 --no-mmv --no-sched -o "$t/real" >/dev/null 2>"$t/err" &&
     [ -s "$t/real/stacks.samples.txt" ]; then
    ok
    check_timed_pprof recorded "$t/real"
  else
    bad "hearth record of a test target: $(tail -2 "$t/err")"
  fi
  exec 4>&-
fi
# A directory without timed samples, or with damaged ones: one line, exit 2, nothing written.
mkdir -p "$t/empty"
expect_exit 2 "a directory without samples to pprof" -- "$hearth" convert "$t/empty" "$t/empty.pb.gz"
[ ! -e "$t/empty.pb.gz" ] && [ "$(wc -l <"$t/err")" = 1 ] && ok || bad "no samples: $(cat "$t/err")"
mkdir -p "$t/damaged"
head -c 700 "$src/tests/golden/inputs/heat/small.samples.txt" >"$t/damaged/stacks.samples.txt"
printf 'r\tx\n' >>"$t/damaged/stacks.samples.txt"
expect_exit 2 "damaged samples to pprof" -- "$hearth" convert "$t/damaged" "$t/damaged.pb.gz"
[ ! -e "$t/damaged.pb.gz" ] && [ "$(wc -l <"$t/err")" = 1 ] && ok || bad "damaged: $(cat "$t/err")"

finish pprof_cli
