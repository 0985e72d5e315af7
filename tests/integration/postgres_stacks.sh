#!/usr/bin/env bash
# `hearth stacks --children --title` on a real PostgreSQL 15 under pgbench: a private cluster in a
# temporary directory (unix socket only, in that directory), run as an unprivileged user;
# `pgbench -c 8` on scale 1, where the 8 clients' UPDATEs of the one pgbench_branches row wait
# on each other's row locks. Asserts that one hearth command samples several backends, each
# under its own root, that some backend's stack shows the lock wait (ProcSleep, via
# XactLockTableWait / LockAcquire) with the title PostgreSQL set for it ("... waiting"), and that
# no postgres process is left traced. Then `hearth record --children` on the same cluster: a report
# whose threads table groups the backends by process, the scheduler recording them too. The cluster is stopped and removed however the test ends.
# Skips (exit 77) when PostgreSQL 15's binaries are absent or not run as root.
#   postgres_stacks.sh HEARTH
set -euo pipefail
hearth=$1
pgbin=/usr/lib/postgresql/15/bin
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -f "$dir/hearth.err" ] && cat "$dir/hearth.err"; exit 1; }
for b in initdb pg_ctl postgres pgbench; do
  [ -x "$pgbin/$b" ] || skip "$pgbin/$b is missing (Debian's postgresql package; bin/setup installs it)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root (hearth attaches to another user's processes)"
user=postgres
id -u "$user" >/dev/null 2>&1 || user=nobody

dir=$(mktemp -d "${TMPDIR:-/tmp}/hearth-postgres.XXXXXX")
export XDG_CACHE_HOME=$dir/cache # hearth's symbol cache stays in the test's directory
chown "$user" "$dir"
as_user() { runuser -u "$user" -- "$@"; }
pgbench_pid=
cleanup() {
  [ -n "$pgbench_pid" ] && kill "$pgbench_pid" 2>/dev/null || true
  as_user "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

# Private cluster: no TCP, the socket in $dir, a port number that only names the socket file.
port=54987
as_user "$pgbin/initdb" -D "$dir/data" -A trust -U bench --no-sync >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log"; fail "initdb"; }
as_user "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-k $dir -c listen_addresses= -p $port -c fsync=off" start >/dev/null ||
  { cat "$dir/server.log"; fail "pg_ctl start"; }
pg=(-h "$dir" -p "$port" -U bench)
as_user "$pgbin/pgbench" "${pg[@]}" -i -s 1 -q postgres >"$dir/init.log" 2>&1 ||
  { cat "$dir/init.log"; fail "pgbench -i"; }

# -T 120: a bound, far past both windows (even on a loaded machine); stopped once they end.
as_user "$pgbin/pgbench" "${pg[@]}" -c 8 -j 2 -T 120 postgres >"$dir/pgbench.out" 2>&1 &
pgbench_pid=$!
postmaster=$(head -1 "$dir/data/postmaster.pid")
# Clients connecting after hearth starts join its window (--children); give them a moment so
# that most are sampled from the start.
sleep 1
"$hearth" stacks --children -p "$postmaster" -d 2 --title -o "$dir/pg.folded" 2>"$dir/hearth.err" ||
  fail "hearth stacks exited with $?"
# The same tree under `hearth record` (stacks + scheduler), while pgbench still runs.
"$hearth" record --children -p "$postmaster" -d 2 --no-mmv -o "$dir/rec" 2>"$dir/record.err" ||
  { cat "$dir/record.err"; fail "hearth record exited with $?"; }
# The load ran through both windows: pgbench is still running (it exits early on an error).
kill -0 "$pgbench_pid" 2>/dev/null ||
  { cat "$dir/pgbench.out"; fail "pgbench ended before hearth's windows did"; }
kill "$pgbench_pid"
wait "$pgbench_pid" 2>/dev/null || true
pgbench_pid=

folded=$dir/pg.folded
[ -s "$folded" ] || fail "no stacks written"
# Backends: roots [postgres pid=N] whose title frame names the bench client's connection.
backends=$(grep -oE '^\[postgres pid=[0-9]+\];\[postgres: bench postgres \[local\]' "$folded" |
  cut -d';' -f1 | sort -u | wc -l)
[ "$backends" -ge 4 ] || fail "only $backends backends sampled (want 4 or more of 8)"
processes=$(cut -d';' -f1 "$folded" | sort -u | wc -l)
# A lock wait: a backend whose title says "waiting", asleep in ProcSleep under a row lock.
waits=$(grep -cE '^\[postgres pid=[0-9]+\];\[postgres: [^;]*waiting\];.*(XactLockTableWait|LockAcquire)[^;]*;.*ProcSleep' "$folded" || true)
[ "$waits" -ge 1 ] || { head -50 "$folded"; fail "no backend stack shows a lock wait with a 'waiting' title"; }
grep -qE '^hearth stacks: [0-9]+ processes' "$dir/hearth.err" || fail "no summary counting processes"
# The report: the processes selected, the threads table's rows under their process (several
# backends, each its own process), the scheduler's figures on them.
rec=$dir/rec
grep -q '<th>process</th><th>thread</th>' "$rec/index.html" || fail "no process column in the threads table"
[ "$(grep -c '"status": "ok"' "$rec/report.json")" -ge 2 ] ||
  { cat "$rec/report.json"; fail "record: stacks or sched did not run"; }
[ "$(grep -c '"comm": "postgres"' "$rec/report.json")" -ge 6 ] ||
  { cat "$rec/report.json"; fail "record: fewer than 5 postgres processes listed"; }
# Rows "LABEL PID | thread | TID" where the scheduler saw the thread and TID is PID: each
# single-threaded backend on its own row under its own process, labelled by the title
# PostgreSQL gave it (shortened, whole in the cell's hover), not "postgres PID" as all alike.
rows=$(grep -oE '<tr><td( title="[^"]*")?>[^<]* [0-9]+</td><td><a [^>]*>[^<]*</a></td><td><a href="sched.svg#thread-[0-9]+"' "$rec/index.html" || true)
own=$(echo "$rows" | sed -nE 's/^<tr><td[^>]*>[^<]* ([0-9]+)<.*thread-([0-9]+)"$/\1 \2/p' | awk '$1 == $2' | sort -u | wc -l)
[ "$own" -ge 4 ] || { grep -o '<tr><td[^/]*</td>' "$rec/index.html" | head; fail "record: only $own processes on rows of their own"; }
titled=$(echo "$rows" | grep -cE '^<tr><td title="postgres: bench postgres \[local\][^"]*">postgres: bench postgres' || true)
[ "$titled" -ge 4 ] || { echo "$rows" | head -5; fail "record: only $titled backends' rows are labelled by their title"; }
# Nothing left traced.
for p in $(pgrep -u "$user" postgres || true); do
  for s in /proc/"$p"/task/*/status; do
    t=$(awk '/^TracerPid:/ {print $2}' "$s" 2>/dev/null || echo 0)
    [ "${t:-0}" -eq 0 ] || fail "postgres $p is still traced by $t"
  done
done
echo "ok: $processes processes ($backends backends) sampled, $waits lock-wait stacks; record: $own processes on rows of their own, $titled backends by their title"
grep -E '^hearth stacks: [0-9]+ processes' "$dir/hearth.err"
