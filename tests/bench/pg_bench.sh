#!/usr/bin/env bash
# PostgreSQL 15 under `pgbench -c 8` (scale 1: the clients' UPDATEs of one branch row wait on
# each other's row locks), with and without a profiler, in one run:
#   bare     pgbench alone
#   set      hearth stacks --children -p POSTMASTER --title (every backend, one command)
#   one      hearth stacks -p BACKEND (one backend: the per-process figures before process sets)
#   perf     perf record -a -g (the peer: every CPU, on-CPU samples)
# For each: pgbench's tps; for hearth its CPU time and wall time, and from its raw samples the
# process-samples that needed a ptrace stop (a backend on a CPU) and their stall (median, max;
# each process is its own stop window, so this is the stall a backend saw); for perf its
# samples. The tool runs over seconds 2..(T-2) of each T-second pgbench run. Unpinned.
# Then a one-shot of every backend (-n 1): its wall time, mostly attaching to each process.
#   tests/bench/pg_bench.sh [--runs N] [--seconds T] [--hearth PATH] [--method auto|bpf|ptrace]
# Needs root, Debian's postgresql (15) and linux-perf. Prints the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=3 seconds=12 hearth=build/bin/hearth/hearth method=auto
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --hearth) hearth=$2; shift 2 ;;
    --method) method=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
pgbin=/usr/lib/postgresql/15/bin
[ -x "$pgbin/pgbench" ] || { echo "needs Debian's postgresql (15)" >&2; exit 1; }
# shellcheck source=bench_lib.sh
source tests/bench/bench_lib.sh
need_pkg perf linux-perf
need_pkg gawk gawk
hearth=$(realpath "$hearth")
user=postgres
id -u "$user" >/dev/null 2>&1 || user=nobody
dir=$(mktemp -d "${TMPDIR:-/tmp}/hearth-pgbench.XXXXXX")
chown "$user" "$dir"
as_user() { runuser -u "$user" -- "$@"; }
cleanup() {
  as_user "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
port=54988
as_user "$pgbin/initdb" -D "$dir/data" -A trust -U bench --no-sync >/dev/null
as_user "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-k $dir -c listen_addresses= -p $port -c fsync=off" start >/dev/null
pg=(-h "$dir" -p "$port" -U bench)
as_user "$pgbin/pgbench" "${pg[@]}" -i -s 1 -q postgres >/dev/null 2>&1
postmaster=$(head -1 "$dir/data/postmaster.pid")
tool_s=$((seconds - 4))

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; unpinned"
echo "pgbench -c 8 -j 2 -T $seconds, scale 1; tools over ${tool_s} s from second 2; hearth --method $method"
# "N stopped of M process-samples; stall median X ms, max Y ms" from a raw samples file.
stalls() {
  gawk -F'\t' '/^# round / { n++; split($4, s, "="); split($5, t, "=");
                 if (s[2] > 0) { k++; v[k] = t[2] / 1e6 } }
               END { asort(v); printf "%d stopped of %d process-samples; stall median %.3f ms, max %.3f ms",
                     k, n, k ? v[int((k + 1) / 2)] : 0, k ? v[k] : 0 }' "$1"
}
printf '%-5s %-4s %10s  %s\n' run tool tps "tool figures"
for ((r = 1; r <= runs; r++)); do
  for tool in bare set one perf; do
    as_user "$pgbin/pgbench" "${pg[@]}" -c 8 -j 2 -T "$seconds" postgres >"$dir/pgbench.out" 2>&1 &
    bench=$!
    sleep 2
    summary=
    case $tool in
      set)
        /usr/bin/time -f '%U %S %e' -o "$dir/time" "$hearth" stacks --children -p "$postmaster" \
          --title --method "$method" -d "$tool_s" -o "$dir/set.folded" --raw "$dir/set.raw" \
          2>"$dir/hearth.err"
        read -r user_s sys_s wall_s <"$dir/time"
        summary="$(grep -oE '^hearth stacks: [0-9]+ process[^:]*' "$dir/hearth.err" | sed 's/^hearth stacks: //'); $(stalls "$dir/set.raw"); CPU $(echo "$user_s + $sys_s" | bc) s in $wall_s s"
        ;;
      one)
        backend=$(pgrep -u "$user" -f 'postgres: bench postgres' | head -1)
        /usr/bin/time -f '%U %S %e' -o "$dir/time" "$hearth" stacks -p "$backend" --method "$method" \
          -d "$tool_s" -o "$dir/one.folded" --raw "$dir/one.raw" 2>"$dir/hearth.err"
        read -r user_s sys_s wall_s <"$dir/time"
        summary="pid $backend; $(stalls "$dir/one.raw"); CPU $(echo "$user_s + $sys_s" | bc) s in $wall_s s"
        ;;
      perf)
        perf record -a -g -o "$dir/perf.data" -- sleep "$tool_s" >/dev/null 2>"$dir/perf.err"
        summary="perf: $(grep -oE '[0-9]+ samples' "$dir/perf.err" | head -1)"
        ;;
    esac
    wait "$bench"
    tps=$(grep -oE '^tps = [0-9.]+' "$dir/pgbench.out" | head -1 | cut -d' ' -f3)
    printf '%-5s %-4s %10s  %s\n' "$r" "$tool" "$tps" "$summary"
  done
done
for ((r = 1; r <= runs; r++)); do
  as_user "$pgbin/pgbench" "${pg[@]}" -c 8 -j 2 -T 8 postgres >/dev/null 2>&1 &
  bench=$!
  sleep 2
  /usr/bin/time -f '%e' -o "$dir/time" "$hearth" stacks --children -p "$postmaster" --method "$method" \
    -n 1 -o "$dir/once.folded" 2>"$dir/hearth.err"
  echo "one-shot of every process (-n 1): $(grep -oE '^hearth stacks: [0-9]+ process[^:]*' "$dir/hearth.err" | sed 's/^hearth stacks: //'), $(cat "$dir/time") s wall"
  wait "$bench"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
