#!/usr/bin/env bash
# Benchmarks `hearth flame` on synthetic folded stacks (tests/bench/gen_folded.cpp) and on the
# real samples, optionally against flamegraph.pl on the same inputs in the same run, and prints
# the figures next to the goals from the issue. Informational only: the exit status says
# whether the script ran, never whether a goal was met.
#
# usage: tests/bench/flame_bench.sh [--flamegraph-pl PATH] [--inferno PATH]
#            [--sizes "10000 100000 1000000"] [--shapes "narrow broad"] [--busy] [--runs 3]
#            [--slow] [--hearth PATH] [--seed 1] [--real DIR | --no-real] [--data-dir DIR]
#            [--pin CPUS] [-- EXTRA FLAME ARGS...]
#
# --inferno: an inferno-flamegraph binary, run on the same inputs in the same run (default: one
# on PATH or in /work/peers/inferno-0.11.13/target/release; left out, and said, when none).
# --shapes: gen_folded's tree shapes for the synthetic inputs (default narrow). --busy: the
# whole benchmark runs twice, idle and then beside one CPU hog per vCPU (stress-ng --cpu 0);
# each report starts with its conditions.
#
# Inputs are cached in build/bench-data/ (keyed by size, seed and a hash of gen_folded.cpp);
# the last SVGs of each tool stay in build/bench-data/out/ for inspection.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
flamegraph_pl=""
inferno=""
sizes="10000 100000 1000000"
runs=3
slow=0
seed=1
real_dir=/work/shared/testdata/folded
data_dir=$root/build/bench-data
pin=""
extra=()

usage() {
  sed -n '7,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
shapes=narrow
busy=0
condition=${FLAME_BENCH_CONDITION:-}
all_args=("$@")

while (($#)); do
  case $1 in
    --flamegraph-pl) flamegraph_pl=${2:?}; shift 2 ;;
    --inferno) inferno=${2:?}; shift 2 ;;
    --sizes) sizes=${2:?}; shift 2 ;;
    --shapes) shapes=${2:?}; shift 2 ;;
    --busy) busy=1; shift ;;
    --runs) runs=${2:?}; shift 2 ;;
    --slow) slow=1; shift ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --real) real_dir=${2:?}; shift 2 ;;
    --no-real) real_dir=""; shift ;;
    --data-dir) data_dir=${2:?}; shift 2 ;;
    --pin) pin=${2:?}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) usage ;;
    *) echo "flame_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "flame_bench: --runs needs a positive integer" >&2; exit 2; }
for sh in $shapes; do
  [[ $sh == narrow || $sh == broad ]] || { echo "flame_bench: --shapes: narrow or broad, not '$sh'" >&2; exit 2; }
done

# --busy: this script again, idle then busy (FLAME_BENCH_CONDITION tells the runs apart).
if ((busy)) && [[ -z $condition ]]; then
  # shellcheck source=bench_lib.sh
  source "$(dirname "$0")/bench_lib.sh"
  args=()
  for a in "${all_args[@]}"; do [[ $a == --busy ]] || args+=("$a"); done
  idle_then_busy FLAME_BENCH_CONDITION "${args[@]}"
  exit
fi
[[ -n $condition ]] || condition=idle
if [[ -n $flamegraph_pl && ! -f $flamegraph_pl ]]; then
  echo "flame_bench: no flamegraph.pl at $flamegraph_pl" >&2
  exit 2
fi

if [[ -z $inferno ]]; then
  if command -v inferno-flamegraph >/dev/null; then
    inferno=$(command -v inferno-flamegraph)
  elif [[ -x /work/peers/inferno-0.11.13/target/release/inferno-flamegraph ]]; then
    inferno=/work/peers/inferno-0.11.13/target/release/inferno-flamegraph
  fi
elif [[ ! -x $inferno ]]; then
  echo "flame_bench: no inferno-flamegraph at $inferno" >&2
  exit 2
fi
[[ -n $inferno ]] ||
  echo "flame_bench: no inferno-flamegraph (not packaged by Debian; --inferno PATH): inferno left out, never estimated" >&2

have_hearth=0
[[ -x $hearth ]] && have_hearth=1
if ((!have_hearth)) && [[ -z $flamegraph_pl ]]; then
  echo "flame_bench: $hearth is not built and no --flamegraph-pl given: nothing to run" >&2
  echo "  build it with bin/setup (or cmake --build build), or pass --hearth PATH" >&2
  exit 2
fi

# Peak RSS comes from GNU time; Debian's `time` package.
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
[[ -x /usr/bin/time ]] || need_pkg /usr/bin/time time  # peak RSS

mkdir -p "$data_dir/out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- inputs -----------------------------------------------------------------------------------

gen_src=$root/tests/bench/gen_folded.cpp
gen_hash=$(cat "$gen_src" "$root/tests/bench/gen_vocabulary.h" | sha256sum | cut -c1-8)
gen=$data_dir/gen_folded-$gen_hash
if [[ ! -x $gen ]]; then
  echo "flame_bench: building gen_folded" >&2
  rm -f "$data_dir"/gen_folded-*
  "${CXX:-c++}" -O2 -std=c++20 -o "$gen.tmp" "$gen_src"
  mv "$gen.tmp" "$gen"
fi

labels=() # row label
inputs=() # folded file
stacks=() # unique stacks, or "" for real inputs
for shape in $shapes; do
for n in $sizes; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "flame_bench: bad size '$n'" >&2; exit 2; }
  tag=$n
  [[ $shape == narrow ]] || tag=$shape-$n  # narrow keeps the file names from before --shapes
  f=$data_dir/stacks-$tag-s$seed-$gen_hash.folded
  if [[ ! -s $f ]]; then
    # Inputs made by an older generator are stale.
    find "$data_dir" -maxdepth 1 -name "stacks-$tag-s$seed-*.folded" ! -name "${f##*/}" -delete
    echo "flame_bench: generating $n $shape stacks" >&2
    "$gen" --stacks "$n" --seed "$seed" --shape "$shape" >"$f.tmp"
    mv "$f.tmp" "$f"
  fi
  case $n in
    *000000) label="synthetic-$((n / 1000000))M" ;;
    *000) label="synthetic-$((n / 1000))k" ;;
    *) label="synthetic-$n" ;;
  esac
  [[ $shape == narrow ]] || label=$label-$shape
  labels+=("$label")
  inputs+=("$f")
  stacks+=("$n")
done
done
if [[ -n $real_dir && -d $real_dir ]]; then
  for f in "$real_dir"/*.folded; do
    [[ -f $f ]] || continue
    labels+=("$(basename "$f" .folded)")
    inputs+=("$f")
    stacks+=("")
  done
fi

# --- measuring --------------------------------------------------------------------------------

# Runs "$@" `count` times with stdout to `sink`; sets run_ok, run_time (median wall seconds),
# run_cpu (median user + system seconds), run_rss (largest peak RSS, KiB). stderr of the last
# run is kept in $tmp/stderr.
measure() {
  local count=$1 sink=$2
  shift 2
  local times=() cpus=() rss_max=0 i t0 t1 rss user sys
  local cmd=("$@")
  [[ -n $pin ]] && cmd=(taskset -c "$pin" "${cmd[@]}")
  run_ok=1
  for ((i = 0; i < count; i++)); do
    t0=$(date +%s%N)
    if ! /usr/bin/time -f '%M %U %S' -o "$tmp/rss" "${cmd[@]}" >"$sink" 2>"$tmp/stderr"; then
      run_ok=0
      return
    fi
    t1=$(date +%s%N)
    times+=("$(((t1 - t0) / 1000))")
    read -r rss user sys < <(tail -n 1 "$tmp/rss")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1e6 }')")
    ((rss > rss_max)) && rss_max=$rss
  done
  run_time=$(median "${times[@]}")
  run_cpu=$(median "${cpus[@]}")
  run_rss=$rss_max
}

median() { # microseconds... -> seconds
  printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 }
    END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.3f", m / 1e6 }'
}

# Frames drawn: the <title>s inside #frames (hearth's #threads legend also has titles).
count_frames() {
  perl -0777 -ne '
    my $i = index($_, q{id="frames"}); $i = 0 if $i < 0;
    my $j = index($_, q{id="threads"}, $i); $j = length($_) if $j < 0;
    my $s = substr($_, $i, $j - $i);
    my $n = () = $s =~ /<title>/g;
    print $n' "$1"
}

# Results, indexed "row,tool": time s, CPU s, MB/s, RSS MB, output MB, frames, B/frame.
declare -A r_time r_cpu r_mbps r_rss r_out r_frames r_bpf r_note

record() { # row tool input svg
  local key=$1,$2 in_bytes out_bytes frames
  if ((!run_ok)); then
    r_note[$key]="FAILED: $(head -c 200 "$tmp/stderr" | tr '\n' ' ')"
    return
  fi
  in_bytes=$(stat -c %s "$3")
  out_bytes=$(stat -c %s "$4")
  frames=$(count_frames "$4")
  r_time[$key]=$run_time
  r_cpu[$key]=$run_cpu
  r_mbps[$key]=$(awk -v b="$in_bytes" -v t="$run_time" 'BEGIN { printf "%.1f", (t > 0) ? b / 1e6 / t : 0 }')
  r_rss[$key]=$(awk -v k="$run_rss" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
  r_out[$key]=$(awk -v b="$out_bytes" 'BEGIN { printf "%.2f", b / 1e6 }')
  r_frames[$key]=$frames
  r_bpf[$key]=$(awk -v b="$out_bytes" -v f="$frames" 'BEGIN { printf "%.0f", f ? b / f : 0 }')
}

echo "flame_bench: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" >&2
((have_hearth)) || echo "flame_bench: $hearth not built; flamegraph.pl only" >&2

for idx in "${!inputs[@]}"; do
  in=${inputs[$idx]}
  label=${labels[$idx]}
  n=${stacks[$idx]}
  cat "$in" >/dev/null # warm the page cache so the first run is not a disk benchmark
  if ((have_hearth)); then
    echo "flame_bench: $label: hearth flame x$runs" >&2
    svg=$data_dir/out/$label.hearth.svg
    measure "$runs" /dev/null "$hearth" flame "$in" -o "$svg" "${extra[@]}"
    record "$idx" hearth "$in" "$svg"
  fi
  if [[ -n $inferno ]]; then
    echo "flame_bench: $label: inferno-flamegraph x$runs" >&2
    svg=$data_dir/out/$label.inferno.svg
    measure "$runs" "$svg" "$inferno" "${extra[@]}" "$in"
    record "$idx" inf "$in" "$svg"
  fi
  if [[ -n $flamegraph_pl ]]; then
    if [[ -n $n ]] && ((n >= 1000000 && !slow)); then
      r_note[$idx,fg]="skipped (over a minute and ~4 GB; --slow runs it)"
      continue
    fi
    fg_runs=$runs
    [[ -n $n ]] && ((n >= 100000)) && fg_runs=1
    echo "flame_bench: $label: flamegraph.pl x$fg_runs" >&2
    svg=$data_dir/out/$label.flamegraph.svg
    measure "$fg_runs" "$svg" perl "$flamegraph_pl" "${extra[@]}" "$in"
    record "$idx" fg "$in" "$svg"
  fi
done

# --- report -----------------------------------------------------------------------------------

echo
echo "hearth flame benchmark: $(nproc) CPUs, ${pin:+pinned to CPUs $pin}${pin:-unpinned}, $condition (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "median of $runs runs (flamegraph.pl: 1 run at >= 100k stacks);${inferno:+ inferno: $inferno}"
echo "time = wall, CPU = user + system; MB = 10^6 bytes; RSS = peak resident set, largest over the runs; B/frame = SVG bytes / frames"
((${#extra[@]})) && echo "extra flame arguments: ${extra[*]}"
echo
fmt='%-40s %8s  %-13s %8s %8s %8s %8s %8s %8s %8s\n'
# shellcheck disable=SC2059
printf "$fmt" input "in MB" tool "time s" "CPU s" "MB/s" "RSS MB" "out MB" frames "B/frame"
printf '%s\n' "$(printf '%.0s-' {1..131})"
row() { # idx tool name in_mb
  local key=$1,$2
  if [[ -n ${r_note[$key]:-} ]]; then
    printf '%-40s %8s  %-13s %s\n' "$5" "$4" "$3" "${r_note[$key]}"
  elif [[ -n ${r_time[$key]:-} ]]; then
    # shellcheck disable=SC2059
    printf "$fmt" "$5" "$4" "$3" "${r_time[$key]}" "${r_cpu[$key]}" "${r_mbps[$key]}" "${r_rss[$key]}" \
      "${r_out[$key]}" "${r_frames[$key]}" "${r_bpf[$key]}"
  fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }
for idx in "${!inputs[@]}"; do
  in_mb=$(awk -v b="$(stat -c %s "${inputs[$idx]}")" 'BEGIN { printf (b < 1e6) ? "%.2f" : "%.1f", b / 1e6 }')
  name=${labels[$idx]}
  [[ -n ${stacks[$idx]} ]] && name="$name (${stacks[$idx]} st)"
  row "$idx" hearth hearth "$in_mb" "$name"
  row "$idx" fg flamegraph.pl "$in_mb" "$([[ -n ${r_note[$idx,hearth]:-}${r_time[$idx,hearth]:-} ]] || echo "$name")"
  row "$idx" inf inferno "$in_mb" ""
  if [[ -n ${r_time[$idx,hearth]:-} && -n ${r_time[$idx,inf]:-} ]]; then
    printf '%-40s %8s  %-13s %sx faster (CPU %sx), %sx less peak RSS\n' \
      "" "" "inferno / hearth" "$(ratio "${r_time[$idx,inf]}" "${r_time[$idx,hearth]}")" \
      "$(ratio "${r_cpu[$idx,inf]}" "${r_cpu[$idx,hearth]}")" \
      "$(ratio "${r_rss[$idx,inf]}" "${r_rss[$idx,hearth]}")"
  fi
  if [[ -n ${r_time[$idx,hearth]:-} && -n ${r_time[$idx,fg]:-} ]]; then
    printf '%-40s %8s  %-13s %sx faster (CPU %sx), %sx less peak RSS, B/frame %s x flamegraph.pl\n' \
      "" "" "fg / hearth" "$(ratio "${r_time[$idx,fg]}" "${r_time[$idx,hearth]}")" \
      "$(ratio "${r_cpu[$idx,fg]}" "${r_cpu[$idx,hearth]}")" \
      "$(ratio "${r_rss[$idx,fg]}" "${r_rss[$idx,hearth]}")" \
      "$(awk -v a="${r_bpf[$idx,hearth]}" -v b="${r_bpf[$idx,fg]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
  fi
done

# Goals from the issue, next to the figures. "met" / "MISSED" are information, not a verdict.
echo
echo "goals (from the issue; speed goals on the synthetic inputs only)"
goal() { # description figure ok
  printf '  %-52s %-30s %s\n' "$1" "$2" "$([[ $3 == 1 ]] && echo met || echo MISSED)"
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { print ((a <= b) ? 1 : 0) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print ((a >= b) ? 1 : 0) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { print ((a < b) ? 1 : 0) }'; }
if ((!have_hearth)); then
  echo "  (hearth not built: nothing to compare with the goals)"
fi
for idx in "${!inputs[@]}"; do
  [[ -n ${r_time[$idx,hearth]:-} ]] || continue
  k=$idx,hearth
  n=${stacks[$idx]}
  echo " ${labels[$idx]}"
  if [[ -n $n ]]; then
    goal ">= 150 MB/s" "${r_mbps[$k]} MB/s" "$(ge "${r_mbps[$k]}" 150)"
  fi
  if [[ -n $n ]]; then
    goal ">= 1 GB/s (issue #30)" "${r_mbps[$k]} MB/s" "$(ge "${r_mbps[$k]}" 1000)"
  fi
  if [[ $n == 100000 ]]; then
    goal "100k stacks <= 1.2 s" "${r_time[$k]} s" "$(le "${r_time[$k]}" 1.2)"
    goal "peak memory <= 300 MB at 100k" "${r_rss[$k]} MB" "$(le "${r_rss[$k]}" 300)"
    goal "peak memory <= 100 MB at 100k (issue #30)" "${r_rss[$k]} MB" "$(le "${r_rss[$k]}" 100)"
  fi
  if [[ $n == 1000000 ]]; then
    goal "peak memory <= 2.7 GB at 1M" "${r_rss[$k]} MB" "$(le "${r_rss[$k]}" 2700)"
  fi
  goal "output <= 30k frames" "${r_frames[$k]} frames" "$(le "${r_frames[$k]}" 30000)"
  goal "output <= 7 MB" "${r_out[$k]} MB" "$(le "${r_out[$k]}" 7)"
  if [[ -n $n && -n ${r_time[$idx,inf]:-} ]]; then
    speedup=$(ratio "${r_time[$idx,inf]}" "${r_time[$k]}")
    goal ">= 4x faster than inferno (issue #30)" "${speedup}x" "$(ge "$speedup" 4)"
  fi
  if [[ -n ${r_time[$idx,fg]:-} ]]; then
    speedup=$(ratio "${r_time[$idx,fg]}" "${r_time[$k]}")
    # Timing the small real samples measures process start-up, not rendering.
    [[ -n $n ]] && goal ">= 20x faster than flamegraph.pl" "${speedup}x" "$(ge "$speedup" 20)"
    goal "fewer bytes per frame than flamegraph.pl" \
      "${r_bpf[$k]} vs ${r_bpf[$idx,fg]} B/frame" "$(lt "${r_bpf[$k]}" "${r_bpf[$idx,fg]}")"
  fi
done
echo
echo "SVGs: $data_dir/out/"
