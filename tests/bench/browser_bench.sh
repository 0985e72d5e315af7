#!/usr/bin/env bash
# Browser benchmark of the flamegraph SVGs: renders the same inputs with `hearth flame` and, when
# given, flamegraph.pl and inferno, then times first paint, zoom, Reset Zoom and search in
# headless Chromium (tests/bench/browser_bench.mjs; the README says how). Informational only:
# the exit status says whether the benchmark ran, never whether a goal was met.
#
# usage: tests/bench/browser_bench.sh [--runs 5] [--flamegraph-pl PATH] [--inferno PATH]
#            [--hearth PATH] [--inputs "synth gen gen100k"] [--search REGEX] [--depth D | --frame TITLE]
#            [--data-dir DIR] [--json FILE]
#
# Inputs (cached in build/bench-data/, remade when their generator changes): "synth" is
# `node tests/browser/synth.mjs 1700` (~25k frames), "gen" is `gen_folded --stacks 10000
# --seed 1` (~16k frames), "gen100k" the same with 100,000 stacks (~23k frames drawn; a 180 MB
# input: flamegraph.pl takes ~20 s to render it). SVGs go to build/bench-data/browser/, the
# raw timings to build/bench-data/browser/results.json.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
flamegraph_pl=""
inferno=""
runs=5
inputs="synth gen gen100k"
data_dir=$root/build/bench-data
json=""
bench_args=()

usage() {
  sed -n '7,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "browser_bench: $*" >&2
  exit 2
}

while (($#)); do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --flamegraph-pl) flamegraph_pl=${2:?}; shift 2 ;;
    --inferno) inferno=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --inputs) inputs=${2:?}; shift 2 ;;
    --search | --depth | --frame) bench_args+=("$1" "${2:?}"); shift 2 ;;
    --data-dir) data_dir=${2:?}; shift 2 ;;
    --json) json=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "browser_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"
[[ -x $hearth ]] || die "no hearth binary at $hearth: build it with bin/setup (or cmake --build build), or pass --hearth PATH"
[[ -z $flamegraph_pl || -f $flamegraph_pl ]] || die "no flamegraph.pl at $flamegraph_pl"
if [[ -z $inferno ]] && command -v inferno-flamegraph >/dev/null; then
  inferno=$(command -v inferno-flamegraph)
fi
[[ -z $inferno || -x $inferno ]] || die "no inferno-flamegraph binary at $inferno"
command -v node >/dev/null || die "node not found: apt-get install nodejs npm"
chromium=${HEARTH_CHROMIUM:-/usr/bin/chromium}
[[ -x $chromium ]] || die "$chromium not found: apt-get install chromium (or set HEARTH_CHROMIUM)"

# playwright-core comes from the browser tests' package-lock.json, installed as run.sh does.
browser_dir=$root/tests/browser
if [[ ! -f $browser_dir/node_modules/playwright-core/package.json ]]; then
  command -v npm >/dev/null || die "npm not found: apt-get install npm"
  (
    flock 9
    if [[ ! -f $browser_dir/node_modules/playwright-core/package.json ]]; then
      cd "$browser_dir" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error
    fi
  ) 9>"$browser_dir/.npm-install.lock"  # the same lock as tests/browser/run.sh
fi

out_dir=$data_dir/browser
mkdir -p "$out_dir"
[[ -n $json ]] || json=$out_dir/results.json

# --- inputs -----------------------------------------------------------------------------------

synth_input() {
  local src=$root/tests/browser/synth.mjs hash f
  hash=$(sha256sum "$src" | cut -c1-8)
  f=$data_dir/synth-1700-$hash.folded
  if [[ ! -s $f ]]; then
    find "$data_dir" -maxdepth 1 -name 'synth-1700-*.folded' ! -name "${f##*/}" -delete
    echo "browser_bench: generating synth.mjs 1700" >&2
    node "$src" 1700 >"$f.tmp"
    mv "$f.tmp" "$f"
  fi
  echo "$f"
}

# The same cache as flame_bench.sh: gen_folded and its outputs keyed by a hash of its source.
# gen_input STACKS
gen_input() {
  local stacks=$1 src=$root/tests/bench/gen_folded.cpp hash gen f
  hash=$(sha256sum "$src" | cut -c1-8)
  gen=$data_dir/gen_folded-$hash
  if [[ ! -x $gen ]]; then
    echo "browser_bench: building gen_folded" >&2
    rm -f "$data_dir"/gen_folded-*
    "${CXX:-c++}" -O2 -std=c++20 -o "$gen.tmp" "$src"
    mv "$gen.tmp" "$gen"
  fi
  f=$data_dir/stacks-$stacks-s1-$hash.folded
  if [[ ! -s $f ]]; then
    find "$data_dir" -maxdepth 1 -name "stacks-$stacks-s1-*.folded" ! -name "${f##*/}" -delete
    echo "browser_bench: generating $stacks stacks" >&2
    "$gen" --stacks "$stacks" --seed 1 >"$f.tmp"
    mv "$f.tmp" "$f"
  fi
  echo "$f"
}

# --- rendering --------------------------------------------------------------------------------

args=()
for name in $inputs; do
  case $name in
    synth) in=$(synth_input); label="synth-1700" ;;
    gen) in=$(gen_input 10000); label="gen-10k" ;;
    gen100k) in=$(gen_input 100000); label="gen-100k" ;;
    *) die "unknown input '$name' (synth, gen, gen100k)" ;;
  esac
  args+=(--input "$label")
  echo "browser_bench: $label: rendering $(basename "$in")" >&2
  "$hearth" flame "$in" -o "$out_dir/$label.hearth.svg"
  args+=("hearth=$out_dir/$label.hearth.svg")
  if [[ -n $flamegraph_pl ]]; then
    perl "$flamegraph_pl" "$in" >"$out_dir/$label.flamegraph.svg"
    args+=("flamegraph.pl=$out_dir/$label.flamegraph.svg")
  fi
  if [[ -n $inferno ]]; then
    "$inferno" "$in" >"$out_dir/$label.inferno.svg"
    args+=("inferno=$out_dir/$label.inferno.svg")
  fi
done
[[ -n $flamegraph_pl ]] || echo "browser_bench: flamegraph.pl not run (no --flamegraph-pl PATH)" >&2
if [[ -z $inferno ]]; then
  echo "browser_bench: inferno not run (no --inferno PATH, no inferno-flamegraph on PATH);" \
    "the README says how it was built here" >&2
fi

echo "browser_bench: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" >&2
HEARTH_CHROMIUM="$chromium" node "$root/tests/bench/browser_bench.mjs" --runs "$runs" --json "$json" \
  "${bench_args[@]}" "${args[@]}"
echo "SVGs: $out_dir/  timings: $json"
