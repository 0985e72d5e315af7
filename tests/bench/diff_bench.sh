#!/usr/bin/env bash
# Benchmarks `hearth diff` (parse both profiles, diff, render the SVG, write the summaries) on two
# 100k-stack inputs of each tree shape (gen_folded --shape narrow and broad), against
# difffolded.pl + flamegraph.pl and inferno-diff-folded + inferno-flamegraph on the same inputs
# in the same run. Informational only: the exit status says whether the script ran, never
# whether a goal was met.
#
# usage: tests/bench/diff_bench.sh [--stacks 100000] [--runs 3] [--shapes "narrow broad"]
#            [--hearth PATH] [--flamegraph DIR] [--inferno DIR] [--no-peers] [--data-dir DIR]
#            [--busy]
#
# --busy: everything runs twice, idle and then beside one CPU hog per vCPU (stress-ng --cpu 0).
#
# BASE is `gen_folded --stacks N --seed 1 --shape S`; NEW is BASE with every 50th stack
# removed, every 7th stack's count doubled and 1% of stacks given a new leaf (so the diff has
# growth, shrinkage, added and removed paths). Inputs are cached in build/bench-data/.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
stacks=100000
runs=3
shapes="narrow broad"
fg_dir=/work/peers/FlameGraph
inferno_dir=/work/peers/inferno-0.11.13/target/release
peers=1
data_dir=$root/build/bench-data
busy=0
condition=${DIFF_BENCH_CONDITION:-}
all_args=("$@")

while (($#)); do
  case $1 in
    --stacks) stacks=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --shapes) shapes=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --flamegraph) fg_dir=${2:?}; shift 2 ;;
    --inferno) inferno_dir=${2:?}; shift 2 ;;
    --no-peers) peers=0; shift ;;
    --data-dir) data_dir=${2:?}; shift 2 ;;
    --busy) busy=1; shift ;;
    -h | --help) sed -n '8,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "diff_bench: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x $hearth ]] || { echo "diff_bench: $hearth is not built (cmake --build build --target hearth)" >&2; exit 2; }
for s in $shapes; do
  [[ $s == narrow || $s == broad ]] || { echo "diff_bench: --shapes: narrow or broad, not '$s'" >&2; exit 2; }
done
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
[[ -x /usr/bin/time ]] || need_pkg /usr/bin/time time  # peak memory
mkdir -p "$data_dir/out"
# --busy: this script again, idle then busy (DIFF_BENCH_CONDITION tells the runs apart).
if ((busy)) && [[ -z $condition ]]; then
  args=()
  for a in "${all_args[@]}"; do [[ $a == --busy ]] || args+=("$a"); done
  idle_then_busy DIFF_BENCH_CONDITION "${args[@]}"
  exit
fi
[[ -n $condition ]] || condition=idle

# --- inputs -----------------------------------------------------------------------------------
gen_src=$root/tests/bench/gen_folded.cpp
gen_hash=$(cat "$gen_src" "$root/tests/bench/gen_vocabulary.h" | sha256sum | cut -c1-8)
gen=$data_dir/gen_folded-$gen_hash
if [[ ! -x $gen ]]; then
  echo "diff_bench: building gen_folded" >&2
  "${CXX:-c++}" -O2 -std=c++20 -o "$gen.tmp" "$gen_src"
  mv "$gen.tmp" "$gen"
fi
# inputs SHAPE: sets base and new, generating them when missing.
inputs() {
  local shape=$1 tag
  tag=$stacks-$gen_hash
  [[ $shape == narrow ]] || tag=$shape-$tag  # narrow keeps the file names from before --shape
  base=$data_dir/diff-base-$tag.folded
  new=$data_dir/diff-new-$tag.folded
  if [[ ! -s $base ]]; then
    echo "diff_bench: generating BASE ($stacks $shape stacks)" >&2
    "$gen" --stacks "$stacks" --seed 1 --shape "$shape" >"$base.tmp" && mv "$base.tmp" "$base"
  fi
  if [[ ! -s $new ]]; then
    echo "diff_bench: deriving NEW ($shape)" >&2
    awk '{
      i = match($0, / [0-9]+$/); stack = substr($0, 1, i - 1); n = substr($0, i + 1) + 0
      if (NR % 50 == 0) next
      if (NR % 7 == 0) n *= 2
      print stack " " n
      if (NR % 100 == 3) print stack ";bench::added_leaf(int) " n
    }' "$base" >"$new.tmp" && mv "$new.tmp" "$new"
  fi
}

# --- measuring --------------------------------------------------------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# measure CMD N: runs CMD (a bash command line) N times; prints "WALL_S RSS_MB": the median
# wall time and the median peak RSS (GNU time %M, the largest process of the pipeline's
# children), or "FAILED: ...".
measure() {
  local ts=() ms=() i t0 t1
  for ((i = 0; i < $2; i++)); do
    t0=$(date +%s%N)
    if ! /usr/bin/time -f %M -o "$tmp/rss" bash -c "$1" >/dev/null 2>"$tmp/err"; then
      echo "FAILED: $(head -c 200 "$tmp/err")"
      return
    fi
    t1=$(date +%s%N)
    ts+=("$(((t1 - t0) / 1000))")
    ms+=("$(tail -n 1 "$tmp/rss")")
  done
  local med='{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf f, m/d}'
  printf '%s %s\n' "$(printf '%s\n' "${ts[@]}" | sort -n | awk -v f=%.3f -v d=1e6 "$med")" \
    "$(printf '%s\n' "${ms[@]}" | sort -n | awk -v f=%.0f -v d=1024 "$med")"
}
q() { printf '%q' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a > 0) printf "%.1fx", a / b; else print "-" }'; }

out=$data_dir/out
have_fg=0 have_inferno=0
if ((peers)); then
  if [[ -f $fg_dir/difffolded.pl && -f $fg_dir/flamegraph.pl ]]; then
    have_fg=1
  else
    echo "diff_bench: no difffolded.pl + flamegraph.pl in $fg_dir: that peer is left out" >&2
  fi
  if [[ -x $inferno_dir/inferno-diff-folded && -x $inferno_dir/inferno-flamegraph ]]; then
    have_inferno=1
  else
    inferno_why="no inferno-diff-folded + inferno-flamegraph in $inferno_dir (not buildable here without a crates registry; see README.md)"
  fi
fi

report=()
for shape in $shapes; do
  inputs "$shape"
  cat "$base" "$new" >/dev/null  # warm the page cache
  echo "diff_bench: $shape: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); BASE $(wc -l <"$base") stacks ($(du -m "$base" | cut -f1) MB), NEW $(wc -l <"$new") stacks" >&2
  echo "diff_bench: $shape: hearth diff x$runs" >&2
  # --fail-above makes hearth exit 1 on a regression: that is a result, not a failure.
  r_hearth=$(measure "$(q "$hearth") diff $(q "$base") $(q "$new") -o $(q "$out/diff-$shape.hearth.svg") --summary $(q "$out/diff-$shape.hearth.json") --fail-above 1 || [ \$? = 1 ]" "$runs")
  r_fg="" r_inferno=""
  if ((have_fg)); then
    echo "diff_bench: $shape: difffolded.pl -n + flamegraph.pl x1" >&2
    r_fg=$(measure "perl $(q "$fg_dir/difffolded.pl") -n $(q "$base") $(q "$new") | perl $(q "$fg_dir/flamegraph.pl") > $(q "$out/diff-$shape.flamegraph.svg")" 1)
  fi
  if ((have_inferno)); then
    echo "diff_bench: $shape: inferno-diff-folded -n + inferno-flamegraph x$runs" >&2
    r_inferno=$(measure "$(q "$inferno_dir/inferno-diff-folded") -n $(q "$base") $(q "$new") | $(q "$inferno_dir/inferno-flamegraph") > $(q "$out/diff-$shape.inferno.svg")" "$runs")
  fi

  t_hearth=${r_hearth%% *} m_hearth=${r_hearth##* }
  in_bytes=$(($(stat -c %s "$base") + $(stat -c %s "$new")))  # both inputs: MB/s of reading them
  report+=("" "$shape trees: $stacks-stack BASE ($(du -m "$base" | cut -f1) MB) and NEW; median of $runs runs (flamegraph.pl: 1 run)")
  # shellcheck disable=SC2317
  row() { [[ $2 == FAILED* ]] && printf '  %-44s %s' "$1" "$2" || printf '  %-44s %7s s %6s MB %7s MB/s' "$1" "${2%% *}" "${2##* }" "$(awk -v b="$in_bytes" -v t="${2%% *}" 'BEGIN { printf "%.0f", (t > 0) ? b / 1e6 / t : 0 }')"; }
  report+=("$(row "hearth diff (parse, diff, SVG, JSON)" "$r_hearth")")
  [[ -n $r_fg ]] && report+=("$(row "difffolded.pl -n | flamegraph.pl" "$r_fg")")
  [[ -n $r_inferno ]] && report+=("$(row "inferno-diff-folded -n | inferno-flamegraph" "$r_inferno")")
  [[ -n $r_fg && $r_fg != FAILED* ]] && report+=("  flamegraph.pl / hearth: $(ratio "${r_fg%% *}" "$t_hearth") time")
  [[ -n $r_inferno && $r_inferno != FAILED* ]] && report+=("  inferno / hearth: $(ratio "${r_inferno%% *}" "$t_hearth") time")
  if [[ $r_hearth != FAILED* ]]; then
    if [[ $shape == narrow ]]; then
      goal=$(awk -v t="$t_hearth" 'BEGIN { print (t + 0 > 0 && t + 0 <= 2.5) ? "met" : "MISSED" }')
      report+=("  goal (narrow, the first diff issue): <= 2.5 s at 100k stacks: $t_hearth s, $goal")
    else
      goal=$(awk -v t="$t_hearth" -v m="$m_hearth" 'BEGIN { print (t + 0 > 0 && t + 0 <= 1.0 && m + 0 <= 300) ? "met" : "MISSED" }')
      report+=("  goal (broad, issue #14): 2 x 100k stacks <= 1.0 s and <= 300 MB: $t_hearth s, $m_hearth MB, $goal")
    fi
  fi
done

echo
echo "hearth diff benchmark: $(nproc) CPUs, unpinned, $condition (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)); wall time and peak RSS (GNU time %M; a pipeline: its largest process)"
printf '%s\n' "${report[@]}"
((peers)) && ((!have_inferno)) && echo "  inferno left out, never estimated: $inferno_why"
[[ $stacks != 100000 ]] && echo "  (the goals are for 100k stacks; these inputs have $stacks)"
echo "outputs: $out/diff-*"
