#!/usr/bin/env bash
# `hearth convert DIR OUT.trace.json` on a real `hearth record` of a test target: the JSON
# parses; every event has the Trace Event Format's required fields (ph, ts, pid, tid, name; dur
# for X); each recorded thread has its thread_name; per thread the scheduler intervals never
# overlap, and summed per state (their times rounded to the ns they came from) they are the
# thread's sched.states.tsv row exactly; every stack sample of stacks.samples.txt is an instant
# on its thread. Bad input: one line, exit 2, nothing
# written. (No Perfetto trace processor or UI can be installed here, from Debian or npm: the
# format's fields are checked instead.)
#   tests/integration/chrome_trace_cli.sh HEARTH_BINARY TARGETS_DIR
set -uo pipefail
hearth=${1:?usage: chrome_trace_cli.sh HEARTH_BINARY TARGETS_DIR}
targets=${2:?usage: chrome_trace_cli.sh HEARTH_BINARY TARGETS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"
command -v python3 >/dev/null || { echo "chrome_trace_cli: python3 is needed to check the JSON"; exit 1; }

start_stack_target "$targets" --threads 4 --depth 3 --spin 1

expect_exit 0 "record" -- "$hearth" record -p "$target" -d 1 -F 20 --no-mmv -o "$t/rec"
[ -s "$t/rec/sched.intervals.tsv" ] && [ -s "$t/rec/stacks.samples.txt" ] && ok \
  || { bad "the recording has no intervals or samples: $(ls "$t/rec")"; finish chrome_trace_cli; exit; }
expect_exit 0 "convert" -- "$hearth" convert "$t/rec" "$t/rec.trace.json"
expect_exit 0 "convert the intervals file" -- "$hearth" convert "$t/rec/sched.intervals.tsv" "$t/iv.trace.json"

python3 - "$t/rec" "$t/rec.trace.json" "$t/iv.trace.json" >"$t/check.out" 2>&1 <<'EOF'
import json, sys
from decimal import Decimal
rec, path, iv_path = sys.argv[1:4]
problems = []
def bad(msg):
    problems.append(msg)

trace = json.load(open(path), parse_float=Decimal)
events = trace["traceEvents"]
names = {}
by_tid = {}
as_double = {}
instants = {}
for e in events:
    for f in ("ph", "ts", "pid", "tid", "name"):
        if f not in e:
            bad(f"an event without {f}: {e}")
    if e.get("ph") == "X" and "dur" not in e:
        bad(f"an X event without dur: {e}")
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        names[e["tid"]] = e["args"]["name"]
    if e.get("ph") == "X" and e.get("cat") == "sched":
        # µs in steps of 1/1024 (exact decimals): rounded to the ns they came from.
        start = round(Decimal(e["ts"]) * 1000)
        end = round((Decimal(e["ts"]) + Decimal(e["dur"])) * 1000)
        by_tid.setdefault(e["tid"], []).append((start, end - start, e["name"]))
        # As a reader adding doubles sees it (speedscope does): where it ends, per thread.
        as_double.setdefault(e["tid"], []).append((float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    if e.get("ph") == "i":
        if e.get("s") != "t" or not isinstance(e["args"].get("stack"), list):
            bad(f"a sample that is not a thread instant with a stack: {e}")
        instants[e["tid"]] = instants.get(e["tid"], 0) + 1

# Per thread: no overlap; per state class, the states file's row.
cls = {"on CPU": "on_cpu_ns", "runnable": "runnable_ns", "sleeping": "sleeping_ns",
       "blocked": "blocked_ns", "stopped": "stopped_ns"}
rows = {}
lines = [l.rstrip("\n").split("\t") for l in open(f"{rec}/sched.states.tsv") if not l.startswith("#")]
header = lines[0]
for r in lines[1:]:
    rows[int(r[0])] = dict(zip(header, r))
for tid, ivs in as_double.items():
    ivs.sort()
    for (_, end), (start, _) in zip(ivs, ivs[1:]):
        if end > start:
            bad(f"tid {tid}: as doubles, an interval ends at {end} µs after the next starts at {start}")
            break
for tid, ivs in by_tid.items():
    ivs.sort()
    for (a, d, _), (b, _, _) in zip(ivs, ivs[1:]):
        if a + d > b:
            bad(f"tid {tid}: an interval at {a} ns overlaps the next at {b} ns")
    sums = {}
    for _, d, name in ivs:
        key = cls.get(name, "other_ns")
        sums[key] = sums.get(key, 0) + d
    row = rows.get(tid)
    if row is None:
        bad(f"tid {tid} is not in sched.states.tsv")
        continue
    for key in list(cls.values()) + ["other_ns"]:
        if sums.get(key, 0) != int(row[key]):
            bad(f"tid {tid}: {key} {sums.get(key, 0)} in the trace, {row[key]} in sched.states.tsv")
missing = [t for t in rows if t not in by_tid and any(int(rows[t][k]) for k in list(cls.values()) + ["other_ns"])]
if missing:
    bad(f"threads of sched.states.tsv with no intervals in the trace: {missing}")
for tid in by_tid:
    if tid not in names:
        bad(f"tid {tid} has no thread_name")

# Samples: per thread, one instant per round it was in (the samples file lists a thread only
# when it changed: expanded, a round holds every thread of its process seen and not gone since).
want = {}
live = {}  # pid -> tids
thread_pid = {}
current = None
def close_round():
    if current is not None:
        for tid in live.get(current, ()):
            want[tid] = want.get(tid, 0) + 1
for line in open(f"{rec}/stacks.samples.txt"):
    f = line.rstrip("\n").split("\t")
    if f[0].startswith("#") or f[0] in ("s", "e"):
        continue
    if f[0] == "t":
        thread_pid[int(f[1])] = int(f[2])
    elif f[0] == "r":
        close_round()
        current = int(f[2])
    elif f[0] == "-":
        live.get(thread_pid.get(int(f[1])), set()).discard(int(f[1]))
    else:
        live.setdefault(thread_pid[int(f[0])], set()).add(int(f[0]))
close_round()
if instants != want:
    bad(f"samples per thread: {instants} in the trace, {want} in stacks.samples.txt")
samples = sum(instants.values())
if samples == 0:
    bad("no stack sample in the trace")
print(f"threads {len(by_tid)} intervals {sum(len(v) for v in by_tid.values())} samples {samples}")

iv = json.load(open(iv_path), parse_float=Decimal)
if any(e.get("ph") == "i" for e in iv["traceEvents"]):
    bad("the intervals file alone gave samples")
for p in problems[:20]:
    print("PROBLEM", p)
sys.exit(1 if problems else 0)
EOF
[ $? = 0 ] && ok || bad "the trace: $(cat "$t/check.out")"
grep -q '^threads [5-9] intervals [0-9]* samples [0-9]*$' "$t/check.out" && ok \
  || bad "want the target's 5+ threads with intervals and samples: $(cat "$t/check.out")"
rounds=$(grep -c '^r' "$t/rec/stacks.samples.txt")
[ "$rounds" -ge 5 ] && ok || bad "only $rounds sample rounds in 1 s at 20 Hz"

# Bad input: one line, exit 2, nothing written.
# Cut inside a data line (3 bytes into the 6th after the column header: a line with no field
# separator), not at a byte count that may fall on a line's end or past a short file's.
mkdir -p "$t/cut"
header=$(grep -n -m1 $'^tid\tpid\t' "$t/rec/sched.intervals.tsv" | cut -d: -f1)
[ -n "$header" ] && [ "$(grep -c '' "$t/rec/sched.intervals.tsv")" -ge $((header + 6)) ] && ok \
  || bad "too few intervals to cut: $(wc -l < "$t/rec/sched.intervals.tsv") lines"
keep=$(head -n $((header + 5)) "$t/rec/sched.intervals.tsv" | wc -c)
head -c $((keep + 3)) "$t/rec/sched.intervals.tsv" >"$t/cut/sched.intervals.tsv"
expect_exit 2 "a cut-short recording" -- "$hearth" convert "$t/cut" "$t/cut.trace.json"
[ ! -e "$t/cut.trace.json" ] && ok || bad "a trace was written from a cut-short recording"
[ "$(grep -c . "$t/err")" = 1 ] && grep -q 'sched.intervals.tsv:[0-9]*: ' "$t/err" && ok \
  || bad "the damage in one line naming file and line: $(cat "$t/err")"
expect_exit 2 "not a recording" -- "$hearth" convert "$here/chrome_trace_cli.sh" "$t/x.trace.json"
[ ! -e "$t/x.trace.json" ] && ok || bad "a trace was written from a script"
mkdir -p "$t/empty"
expect_exit 2 "a directory without intervals" -- "$hearth" convert "$t/empty" "$t/y.trace.json"
grep -q "no sched.intervals.tsv in it" "$t/err" && ok || bad "no intervals: $(cat "$t/err")"
expect_exit 2 "--format with a trace" -- "$hearth" convert --format gdb "$t/rec" "$t/z.trace.json"
[ ! -e "$t/y.trace.json" ] && [ ! -e "$t/z.trace.json" ] && ok || bad "a refused conversion left a file"
finish chrome_trace_cli
