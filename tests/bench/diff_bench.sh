#!/usr/bin/env bash
# Benchmarks `hearth diff` (parse both profiles, diff, render the SVG, write the summaries) on two
# 100k-stack inputs, against difffolded.pl + flamegraph.pl and inferno-diff-folded +
# inferno-flamegraph on the same inputs in the same run. Informational only: the exit status
# says whether the script ran, never whether a goal was met.
#
# usage: tests/bench/diff_bench.sh [--stacks 100000] [--runs 3] [--hearth PATH]
#            [--flamegraph DIR] [--inferno DIR] [--no-peers] [--data-dir DIR]
#
# BASE is `gen_folded --stacks N --seed 1`; NEW is BASE with every 50th stack removed, every
# 7th stack's count doubled and 1% of stacks given a new leaf (so the diff has growth,
# shrinkage, added and removed paths). Inputs are cached in build/bench-data/.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
stacks=100000
runs=3
fg_dir=/work/peers/FlameGraph
inferno_dir=/work/peers/inferno-0.11.13/target/release
peers=1
data_dir=$root/build/bench-data

while (($#)); do
  case $1 in
    --stacks) stacks=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --flamegraph) fg_dir=${2:?}; shift 2 ;;
    --inferno) inferno_dir=${2:?}; shift 2 ;;
    --no-peers) peers=0; shift ;;
    --data-dir) data_dir=${2:?}; shift 2 ;;
    -h | --help) sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "diff_bench: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x $hearth ]] || { echo "diff_bench: $hearth is not built (cmake --build build --target hearth)" >&2; exit 2; }
mkdir -p "$data_dir/out"

# --- inputs -----------------------------------------------------------------------------------
gen_src=$root/tests/bench/gen_folded.cpp
gen_hash=$(cat "$gen_src" "$root/tests/bench/gen_vocabulary.h" | sha256sum | cut -c1-8)
gen=$data_dir/gen_folded-$gen_hash
if [[ ! -x $gen ]]; then
  echo "diff_bench: building gen_folded" >&2
  "${CXX:-c++}" -O2 -std=c++20 -o "$gen.tmp" "$gen_src"
  mv "$gen.tmp" "$gen"
fi
base=$data_dir/diff-base-$stacks-$gen_hash.folded
new=$data_dir/diff-new-$stacks-$gen_hash.folded
if [[ ! -s $base ]]; then
  echo "diff_bench: generating BASE ($stacks stacks)" >&2
  "$gen" --stacks "$stacks" --seed 1 >"$base.tmp" && mv "$base.tmp" "$base"
fi
if [[ ! -s $new ]]; then
  echo "diff_bench: deriving NEW" >&2
  awk '{
    i = match($0, / [0-9]+$/); stack = substr($0, 1, i - 1); n = substr($0, i + 1) + 0
    if (NR % 50 == 0) next
    if (NR % 7 == 0) n *= 2
    print stack " " n
    if (NR % 100 == 3) print stack ";bench::added_leaf(int) " n
  }' "$base" >"$new.tmp" && mv "$new.tmp" "$new"
fi

# --- measuring --------------------------------------------------------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# times CMD... `runs` times; prints the median wall time in seconds.
median_time() {
  local ts=() i t0 t1
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    if ! bash -c "$1" >/dev/null 2>"$tmp/err"; then
      echo "FAILED: $(head -c 200 "$tmp/err")"
      return
    fi
    t1=$(date +%s%N)
    ts+=("$(((t1 - t0) / 1000))")
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f", m/1e6}'
}

cat "$base" "$new" >/dev/null  # warm the page cache
out=$data_dir/out
q() { printf '%q' "$1"; }
echo "diff_bench: $(nproc) CPUs; BASE $(wc -l <"$base") stacks ($(du -m "$base" | cut -f1) MB), NEW $(wc -l <"$new") stacks" >&2

echo "diff_bench: hearth diff x$runs" >&2
# --fail-above makes hearth exit 1 on a regression: that is a result, not a failure.
t_hearth=$(median_time "$(q "$hearth") diff $(q "$base") $(q "$new") -o $(q "$out/diff.hearth.svg") --summary $(q "$out/diff.hearth.json") --fail-above 1 || [ \$? = 1 ]")

t_fg="" t_inferno=""
if ((peers)) && [[ -f $fg_dir/difffolded.pl && -f $fg_dir/flamegraph.pl ]]; then
  echo "diff_bench: difffolded.pl -n + flamegraph.pl x1" >&2
  runs_saved=$runs runs=1
  t_fg=$(median_time "perl $(q "$fg_dir/difffolded.pl") -n $(q "$base") $(q "$new") | perl $(q "$fg_dir/flamegraph.pl") > $(q "$out/diff.flamegraph.svg")")
  runs=$runs_saved
fi
if ((peers)) && [[ -x $inferno_dir/inferno-diff-folded && -x $inferno_dir/inferno-flamegraph ]]; then
  echo "diff_bench: inferno-diff-folded -n + inferno-flamegraph x$runs" >&2
  t_inferno=$(median_time "$(q "$inferno_dir/inferno-diff-folded") -n $(q "$base") $(q "$new") | $(q "$inferno_dir/inferno-flamegraph") > $(q "$out/diff.inferno.svg")")
fi

# --- report -----------------------------------------------------------------------------------
echo
echo "hearth diff benchmark: $stacks-stack BASE and NEW; wall time, median of $runs runs (flamegraph.pl: 1 run)"
printf '  %-44s %s s\n' "hearth diff (parse, diff, SVG, JSON)" "$t_hearth"
[[ -n $t_fg ]] && printf '  %-44s %s s\n' "difffolded.pl -n | flamegraph.pl" "$t_fg"
[[ -n $t_inferno ]] && printf '  %-44s %s s\n' "inferno-diff-folded -n | inferno-flamegraph" "$t_inferno"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a > 0) printf "%.1fx", a / b; else print "-" }'; }
[[ -n $t_fg && $t_fg != FAILED* ]] && echo "  flamegraph.pl / hearth: $(ratio "$t_fg" "$t_hearth")"
[[ -n $t_inferno && $t_inferno != FAILED* ]] && echo "  inferno / hearth: $(ratio "$t_inferno" "$t_hearth")"
((peers)) && [[ -z $t_inferno ]] && echo "  (no inferno-diff-folded in $inferno_dir: inferno left out, never estimated)"
goal=$(awk -v t="$t_hearth" 'BEGIN { print (t + 0 > 0 && t + 0 <= 2.5) ? "met" : "MISSED" }')
echo "  goal: parse + diff + render <= 2.5 s at 100k stacks: $t_hearth s, $goal"
echo "outputs: $out/diff.*"
