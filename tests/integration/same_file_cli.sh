#!/usr/bin/env bash
# Every verb that reads and writes files refuses an output that is one of its inputs (the same
# path, a symlink to it, a hard link of it), and two outputs that are one file, before it reads
# anything: exit 2, one line, every file as it was.
#   tests/integration/same_file_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: same_file_cli.sh HEARTH_BINARY}
hearth=$(cd "$(dirname "$hearth")" && pwd)/$(basename "$hearth")  # the commands run in $t/w
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../golden/inputs
. "$here/cli_lib.sh"

# A listing of every file under $t/w with its checksum: what "nothing written" compares.
snapshot() { (cd "$t/w" && find . -printf '%p %y %l\n' | sort && find . -type f -exec md5sum {} + | sort); }

# refused VERB DESCRIPTION PATTERN -- COMMAND...: exit 2, exactly one line on stderr, matching
# "hearth VERB: PATTERN" (a fixed string), and nothing under $t/w changed.
refused() {
  local verb=$1 what=$2 want=$3; shift 4
  local before after got
  before=$(snapshot)
  (cd "$t/w" && "$@") >"$t/out" 2>"$t/err" </dev/null
  got=$?
  after=$(snapshot)
  if [ "$got" != 2 ]; then bad "$verb, $what: exit $got, want 2; stderr: $(head -c 300 "$t/err")"; return; fi
  ok
  [ "$(wc -l <"$t/err")" = 1 ] && grep -qF "hearth $verb: $want" "$t/err" && ok \
    || bad "$verb, $what: stderr: $(cat "$t/err"), want one line: hearth $verb: $want"
  [ "$before" = "$after" ] && ok || bad "$verb, $what: files changed: $(diff <(echo "$before") <(echo "$after"))"
}
fresh() { rm -rf "$t/w" && mkdir "$t/w"; }
also() { echo "is also an input ($1) — choose another name"; }

# ---- flame: FILE... -o OUT
fresh
cp "$inputs/threads.folded" "$t/w/in.folded"
cp "$inputs/threads.folded" "$t/w/in.svg"  # folded text under a picture's name
refused flame "same path" "output in.svg $(also in.svg)" -- "$hearth" flame in.svg -o in.svg
ln -s in.folded "$t/w/link.svg"
refused flame "symlink" "output link.svg $(also in.folded)" -- "$hearth" flame in.folded -o link.svg
ln "$t/w/in.folded" "$t/w/hard.svg"
refused flame "hard link" "output hard.svg $(also in.folded)" -- "$hearth" flame in.folded -o hard.svg
refused flame "standard input" "output in.svg $(also -)" -- sh -c "\"$hearth\" flame -o in.svg < in.svg"
(cd "$t/w" && "$hearth" flame in.folded -o out.svg 2>/dev/null) && [ -s "$t/w/out.svg" ] && ok \
  || bad "flame: a distinct output was not written"

# ---- diff: BASE NEW -o OUT --summary S --folded-out F
fresh
cp "$inputs/diffpair/base.folded" "$inputs/diffpair/new.folded" "$t/w/"
refused diff "same path" "output base.folded $(also base.folded)" -- \
  "$hearth" diff base.folded new.folded --folded-out base.folded
ln -s new.folded "$t/w/link.md"
refused diff "symlink" "output link.md $(also new.folded)" -- \
  "$hearth" diff base.folded new.folded --summary link.md
ln "$t/w/base.folded" "$t/w/hard.svg"
refused diff "hard link" "output hard.svg $(also base.folded)" -- \
  "$hearth" diff base.folded new.folded -o hard.svg
refused diff "two outputs" "outputs s.md and ./s.md are the same file — choose another name" -- \
  "$hearth" diff base.folded new.folded -o s.md --summary ./s.md

# ---- chart: FILE|DIR... -o OUT
fresh
cp "$inputs/mmvchart/app.mmv.tsv" "$t/w/app.mmv.tsv"
cp "$inputs/mmvchart/app.mmv.tsv" "$t/w/app.svg"
refused chart "same path" "output app.svg $(also app.svg)" -- "$hearth" chart app.svg -o app.svg
ln -s app.mmv.tsv "$t/w/link.png"
refused chart "symlink" "output link.png $(also app.mmv.tsv)" -- "$hearth" chart app.mmv.tsv -o link.png
ln "$t/w/app.mmv.tsv" "$t/w/hard.pdf"
refused chart "hard link" "output hard.pdf $(also app.mmv.tsv)" -- "$hearth" chart app.mmv.tsv -o hard.pdf
mkdir "$t/w/rec" && cp "$inputs/sched/"*.tsv "$t/w/rec/"
ln -s rec/sched.states.tsv "$t/w/states.svg"
refused chart "a file of an input directory" "output states.svg $(also rec/sched.states.tsv)" -- \
  "$hearth" chart rec -o states.svg

# ---- mmv: FILE|DIR... -o OUT
fresh
cp "$inputs/mmv/v1.mmv" "$t/w/v1.mmv"
refused mmv "same path" "output v1.mmv $(also v1.mmv)" -- "$hearth" mmv v1.mmv -n 1 -o v1.mmv
ln -s v1.mmv "$t/w/link.tsv"
refused mmv "symlink" "output link.tsv $(also v1.mmv)" -- "$hearth" mmv v1.mmv -n 1 -o link.tsv
ln "$t/w/v1.mmv" "$t/w/hard.tsv"
refused mmv "hard link" "output hard.tsv $(also v1.mmv)" -- "$hearth" mmv v1.mmv -n 1 -o hard.tsv
mkdir "$t/w/pcp" && cp "$inputs/mmv/v1.mmv" "$t/w/pcp/app"
refused mmv "a file of an input directory" "output pcp/app $(also pcp/app)" -- \
  "$hearth" mmv pcp -n 1 -o pcp/app

# ---- record: -o DIR --baseline OTHER (the baseline's stacks.folded is read after DIR's is written)
fresh
mkdir "$t/w/rep" && cp "$inputs/report/"* "$t/w/rep/"
pid=$$
refused record "same path" "output rep/stacks.folded $(also rep/stacks.folded)" -- \
  "$hearth" record -p "$pid" -d 0.2 --no-sched --no-mmv -o rep --baseline rep
ln -s rep "$t/w/replink"
refused record "symlink" "output rep/stacks.folded $(also replink/stacks.folded)" -- \
  "$hearth" record -p "$pid" -d 0.2 --no-sched --no-mmv -o rep --baseline replink
mkdir "$t/w/rep2" && ln "$t/w/rep/stacks.folded" "$t/w/rep2/stacks.folded"
refused record "hard link" "output rep2/stacks.folded $(also rep/stacks.folded)" -- \
  "$hearth" record -p "$pid" -d 0.2 --no-sched --no-mmv -o rep2 --baseline rep

# ---- report: DIR [--baseline OTHER]; inputs and outputs have fixed, distinct names in DIR, so
# only a link can make one file both (a directory copied off a host is not trusted).
fresh
mkdir "$t/w/rep" && cp "$inputs/report/"* "$t/w/rep/"
ln -s stacks.folded "$t/w/rep/flame.svg"
refused report "symlink" "output rep/flame.svg $(also rep/stacks.folded)" -- "$hearth" report rep
rm "$t/w/rep/flame.svg"
ln "$t/w/rep/report.json" "$t/w/rep/index.html"
refused report "hard link" "output rep/index.html $(also rep/report.json)" -- "$hearth" report rep
rm "$t/w/rep/index.html"
mkdir "$t/w/base" && ln -s ../rep/diff.md "$t/w/base/stacks.folded" && cp "$t/w/rep/stacks.folded" "$t/w/rep/diff.md"
refused report "the baseline's input" "output rep/diff.md $(also base/stacks.folded)" -- \
  "$hearth" report rep --baseline base
rm -r "$t/w/base" "$t/w/rep/diff.md"
(cd "$t/w" && "$hearth" report rep 2>/dev/null) && [ -s "$t/w/rep/index.html" ] && ok \
  || bad "report: a clean directory was not rendered"

# ---- stacks: outputs only; two that are one file
fresh
refused stacks "two outputs" "outputs a.folded and ./a.folded are the same file — choose another name" -- \
  "$hearth" stacks -p "$$" -o a.folded --raw ./a.folded

finish same_file_cli
