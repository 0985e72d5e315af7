#!/usr/bin/env bash
# JIT frames by name (issue 21): on a Node and a Java process running a hot recursive function,
# with the runtime's perf map written, how many samples of the hot threads have a leaf in JIT
# code named from the map: `hearth stacks -p PID -d S -F HZ` against `perf record -F HZ -g -p
# PID -- sleep S` + `perf script` (perf reads /tmp/perf-PID.map itself), on the same process
# with the same map, alternating in the same run. Informational only: the exit status says
# whether the script ran, never whether a goal was met.
#
# usage: tests/bench/jit_bench.sh [--runtimes "node java"] [--seconds 5] [--hz 99] [--runs 3]
#            [--load "idle busy"] [--method auto|bpf|ptrace] [--hearth PATH] [--data-dir DIR]
#
# Targets:
#   node  `node --perf-basic-prof hot.js` (V8 writes the map as it compiles); hot thread: main.
#   java  `java -XX:+PreserveFramePointer -XX:-UsePerfData Hot 2`
#         (tests/integration/targets/Hot.java, compiled with javac into the data directory),
#         then `jcmd PID Compiler.perfmap` until the map names Hot.fib and its Hot entries stop
#         changing (the JVM writes a snapshot, not a log); hot threads: worker-0, worker-1.
# Per tool and run it counts the hot threads' samples, those whose leaf (the innermost
# user-space frame: kernel frames are left out on both sides) is a frame named from the map,
# and those whose leaf names the hot function (fibonacciWork, Hot.fib). "busy" adds
# `stress-ng --cpu 0`. Unpinned. Outputs of the last run stay in build/bench-data/jit/.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$root/build/bin/hearth/hearth
runtimes="node java"
seconds=5
hz=99
runs=3
loads="idle"
method=auto
data_dir=$root/build/bench-data/jit

usage() {
  sed -n '9,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while (($#)); do
  case $1 in
    --runtimes) runtimes=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --hz) hz=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --load) loads=${2:?}; shift 2 ;;
    --method) method=${2:?}; shift 2 ;;
    --hearth) hearth=${2:?}; shift 2 ;;
    --data-dir) data_dir=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "jit_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "jit_bench: --runs needs a positive integer" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "jit_bench: needs root (hearth and perf attach to the target)" >&2; exit 2; }
[ -x "$hearth" ] || { echo "jit_bench: no $hearth (run bin/setup)" >&2; exit 2; }
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
need_pkg perf linux-perf
for r in $runtimes; do
  case $r in
    node) command -v node >/dev/null || { echo "jit_bench: no node (Debian's nodejs)" >&2; exit 2; } ;;
    java)
      for t in java javac jcmd; do
        command -v $t >/dev/null || { echo "jit_bench: no $t (openjdk-17-jdk-headless)" >&2; exit 2; }
      done ;;
    *) echo "jit_bench: unknown runtime '$r' (node, java)" >&2; exit 2 ;;
  esac
done
[[ " $loads " == *" busy "* ]] && need_pkg stress-ng stress-ng

mkdir -p "$data_dir"
target_pid=""
stress_pid=""
# Ends the target: Java when its stdin closes, Node on SIGTERM; then removes what the runtime
# and jcmd leave in /tmp (the JVM removes its attach socket when it exits normally).
stop_target() {
  [ -n "$target_pid" ] || return 0
  exec 3>&-
  kill "$target_pid" 2>/dev/null || true
  wait "$target_pid" 2>/dev/null || true
  rm -f "/tmp/perf-$target_pid.map" "/tmp/.java_pid$target_pid" "/tmp/.attach_pid$target_pid"
  target_pid=""
}
cleanup() {
  stop_target
  if [ -n "$stress_pid" ]; then
    kill "$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
    stress_pid=""
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts the runtime R in the background; sets target_pid and hot_threads (comm names; "node"
# is the main thread) and waits until the map is there.
start_target() {
  local r=$1
  case $r in
    node)
      cat >"$data_dir/hot.js" <<'EOF'
function fibonacciWork(n) { return n < 2 ? n : fibonacciWork(n - 1) + fibonacciWork(n - 2); }
function outerLoop() { let s = 0; for (;;) { s += fibonacciWork(25); if (s < 0) break; } return s; }
process.stdout.write('ready ' + process.pid + '\n');
outerLoop();
EOF
      node --perf-basic-prof --no-logfile-per-isolate --logfile="$data_dir/hot-v8.log" \
        "$data_dir/hot.js" >"$data_dir/node.out" 2>&1 &
      target_pid=$!
      hot_threads="node"
      hot_function="fibonacciWork"
      until grep -q '^ready' "$data_dir/node.out" 2>/dev/null; do sleep 0.1; done
      sleep 1 # the loop gets optimised; V8 appends to the map as it compiles
      ;;
    java)
      javac -J-XX:-UsePerfData -d "$data_dir" "$root/tests/integration/targets/Hot.java"
      # stdin: a FIFO this script holds open on fd 3; Hot exits when it is closed.
      rm -f "$data_dir/java.stdin"
      mkfifo "$data_dir/java.stdin"
      java -XX:+PreserveFramePointer -XX:-UsePerfData -cp "$data_dir" Hot 2 \
        <"$data_dir/java.stdin" >"$data_dir/java.out" 2>&1 &
      target_pid=$!
      exec 3>"$data_dir/java.stdin"
      until grep -q '^ready' "$data_dir/java.out" 2>/dev/null; do sleep 0.1; done
      hot_threads="worker-0 worker-1"
      hot_function="Hot.fib"
      local previous="" hot=""
      for _ in $(seq 60); do
        jcmd -J-XX:-UsePerfData "$target_pid" Compiler.perfmap >/dev/null 2>&1 || true
        hot=$(grep ' Hot\.' "/tmp/perf-$target_pid.map" 2>/dev/null || true)
        [[ $hot == *"Hot.fib(int)"* && $hot == "$previous" ]] && break
        previous=$hot
        sleep 0.5
      done
      [[ $hot == *"Hot.fib(int)"* ]] || { echo "jit_bench: the JVM's map never named Hot.fib" >&2; exit 1; }
      ;;
  esac
}

# hearth's folded output → "samples map_leaf named_leaf" for the hot threads.
count_hearth() {
  awk -v threads="$hot_threads" -v fn="$hot_function" '
    BEGIN { n = split(threads, t, " "); for (i = 1; i <= n; ++i) hot["[" t[i]] = 1 }
    {
      root = $1
      if (!(root in hot)) next
      count = $NF
      stack = $0; sub(/ [0-9]+$/, "", stack)
      k = split(stack, f, ";")
      leaf = ""
      for (i = k; i > 1; --i) if (f[i] !~ /_\[k\]$/) { leaf = f[i]; break }
      samples += count
      if (leaf ~ /_\[j\]$/) { map += count; if (index(leaf, fn)) named += count }
    }
    END { printf "%d %d %d\n", samples, map, named }' "$1"
}

# perf script -F comm,tid,ip,sym,dso → the same three counts.
count_perf() {
  awk -v threads="$hot_threads" -v fn="$hot_function" -v pid="$target_pid" '
    BEGIN { n = split(threads, t, " "); for (i = 1; i <= n; ++i) hot[t[i]] = 1 }
    function finish() {
      if (in_sample && is_hot) {
        samples++
        if (leaf_dso == "(/tmp/perf-" pid ".map)" && leaf_sym != "[unknown]") {
          map++
          if (index(leaf_sym, fn)) named++
        }
      }
      in_sample = 0
    }
    /^[^ \t]/ {
      finish()
      # "COMM TID": the comm may hold spaces; the tid is the last field.
      comm = $0; sub(/[ \t]+[0-9]+[ \t]*$/, "", comm)
      is_hot = (comm in hot); in_sample = 1; leaf_dso = ""; leaf_sym = ""; have_leaf = 0
      next
    }
    /^[ \t]+[0-9a-f]+ / {
      if (!in_sample || have_leaf) next
      line = $0; sub(/^[ \t]+[0-9a-f]+ /, "", line)
      dso = line; sub(/^.* \(/, "(", dso)
      if (dso == "([kernel.kallsyms])") next
      sym = line; sub(/ \([^(]*\)$/, "", sym); sub(/\+0x[0-9a-f]+$/, "", sym)
      leaf_dso = dso; leaf_sym = sym; have_leaf = 1
    }
    END { finish(); printf "%d %d %d\n", samples, map, named }' "$1"
}

results=$data_dir/results.tsv
printf 'load\truntime\trun\ttool\tsamples\tmap_leaf\tnamed_leaf\n' >"$results"
for load in $loads; do
  if [ "$load" = busy ]; then
    stress-ng --cpu 0 --timeout 3600s >/dev/null 2>&1 &
    stress_pid=$!
    sleep 2
  fi
  for r in $runtimes; do
    start_target "$r"
    echo "jit_bench: $load, $r (pid $target_pid), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for run in $(seq "$runs"); do
      "$hearth" stacks --method "$method" -p "$target_pid" -d "$seconds" -F "$hz" -o "$data_dir/$r.folded" \
        2>"$data_dir/$r.hearth.err"
      printf '%s\t%s\t%s\thearth\t%s\n' "$load" "$r" "$run" \
        "$(count_hearth "$data_dir/$r.folded" | tr ' ' '\t')" >>"$results"
      perf record -N -q -F "$hz" -g -p "$target_pid" -o "$data_dir/$r.perf.data" \
        -- sleep "$seconds" 2>"$data_dir/$r.perf.err"
      perf script -i "$data_dir/$r.perf.data" -F comm,tid,ip,sym,dso \
        >"$data_dir/$r.perf.txt" 2>/dev/null
      printf '%s\t%s\t%s\tperf\t%s\n' "$load" "$r" "$run" \
        "$(count_perf "$data_dir/$r.perf.txt" | tr ' ' '\t')" >>"$results"
    done
    echo "jit_bench: $load, $r done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    stop_target
  done
  if [ -n "$stress_pid" ]; then
    kill "$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
    stress_pid=""
  fi
done

# Per (load, runtime, tool): samples and shares summed over the runs.
echo
awk -F'\t' 'NR > 1 {
    k = $1 "\t" $2 "\t" $4; s[k] += $5; m[k] += $6; n[k] += $7
    if (!(k in seen)) { seen[k] = 1; order[++count] = k }
  }
  END {
    printf "%-6s %-5s %-7s %8s %22s %22s\n", "load", "rt", "tool", "samples", "leaf named from map", "leaf names hot fn"
    for (i = 1; i <= count; ++i) {
      k = order[i]; split(k, p, "\t")
      printf "%-6s %-5s %-7s %8d %14d (%5.1f%%) %14d (%5.1f%%)\n", p[1], p[2], p[3], s[k], m[k],
             s[k] ? 100 * m[k] / s[k] : 0, n[k], s[k] ? 100 * n[k] / s[k] : 0
    }
  }' "$results"
echo "(goal: hearth's share of leaves named from the map >= perf's, per runtime and load)"
