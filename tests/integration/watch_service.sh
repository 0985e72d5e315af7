#!/usr/bin/env bash
# samples/systemd/hearth-watch.service holds: systemd reads the unit without a complaint, the
# sample rules file checks, and hearth watch does its work (a report with stacks taken without
# a stop of the sleepers and the scheduler traced) with exactly the unit's capability set, as
# root's uid, no capability more.
#   tests/integration/watch_service.sh HEARTH_BINARY BURST_TARGET
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
hearth=$(realpath "${1:?usage: watch_service.sh HEARTH BURST_TARGET}")
burst=${2:?usage: watch_service.sh HEARTH BURST_TARGET}
unit=$here/samples/systemd/hearth-watch.service
out=$(mktemp -d)
tpid=""
trap '[ -n "$tpid" ] && kill "$tpid" 2>/dev/null; rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. systemd's own reading of the unit, with hearth where the unit expects it.
if command -v systemd-analyze >/dev/null; then
  sed "s|/usr/bin/hearth|$hearth|g" "$unit" >"$out/hearth-watch.service"
  systemd-analyze verify "$out/hearth-watch.service" >"$out/verify.log" 2>&1 ||
    { cat "$out/verify.log"; fail "systemd-analyze verify"; }
  # verify exits 0 with warnings about the unit itself: none may name it.
  if grep -q "hearth-watch.service:" "$out/verify.log"; then
    cat "$out/verify.log"; fail "systemd-analyze warns about the unit"
  fi
else
  echo "NOTE: no systemd-analyze here (Debian's systemd): the unit is not read by systemd"
fi

# 2. The sample rules read.
"$hearth" watch --check --rules "$here/samples/systemd/watch.rules" >"$out/check.out" ||
  fail "the sample rules do not check"
[ "$(wc -l <"$out/check.out")" -eq 3 ] || { cat "$out/check.out"; fail "three rules expected"; }

# 3. hearth watch under the unit's capabilities only.
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
[ -n "$caps" ] || fail "no CapabilityBoundingSet in the unit"
bounding=-all
for c in $caps; do
  c=${c#CAP_}
  bounding+=",+${c,,}"
done
# The target ends when its stdin closes: a pipe this script holds open until it exits.
mkfifo "$out/stdin"
exec 4<>"$out/stdin"
exec 3< <(exec "$burst" --threads 3 <"$out/stdin")
read -r -t 20 ready tpid <&3 || true
[ "${ready:-}" = ready ] || fail "the target did not start"
timeout 60 setpriv --bounding-set="$bounding" --inh-caps=-all \
  "$hearth" watch -p "$tpid" -o "$out/reports" --rule "calm = stack:'calm_wait' > 30%" \
  --after 1 --max-reports 1 --no-publish 2>"$out/watch.err"
rc=$?
cat "$out/watch.err"
[ $rc -eq 0 ] || fail "hearth watch under $bounding exited $rc"
report=$(ls -d "$out"/reports/*/report.json 2>/dev/null | head -1)
[ -n "$report" ] || fail "no report"
python3 - "$report" <<'PY' || fail "the report under the unit's capabilities"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["collectors"]
assert c["stacks"]["status"] == "ok", c["stacks"]
assert c["stacks"]["method"] == "bpf", c["stacks"]
assert c["sched"]["status"] == "ok", c["sched"]
assert d["trigger"]["rule"] == "calm", d["trigger"]
PY
grep -q "TracerPid:	0" "/proc/$tpid/status" || fail "the target is left traced"
echo "PASS: the unit reads, its rules check, and hearth watch works under $bounding"
