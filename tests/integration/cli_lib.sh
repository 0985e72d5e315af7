# What the command-line tests share (sourced): a temporary directory $t removed on exit, the
# pass/fail counters, and expect_exit. Each script ends with `finish NAME`.
t=$(mktemp -d)
export XDG_CACHE_HOME=$t/cache # hearth stacks' symbol cache stays in the test's directory
trap 'rm -rf "$t"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
expect_exit() {  # expect_exit CODE DESCRIPTION -- COMMAND...
  local want=$1 what=$2; shift 3
  "$@" >"$t/out" 2>"$t/err" </dev/null; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want; stderr: $(cat "$t/err")"; fi
}
finish() {  # finish NAME: the summary line, and the exit status
  echo "$1: $passed passed, $failed failed"
  [ "$failed" = 0 ]
}
# start_stack_target TARGETS_DIR ARG...: TARGETS_DIR/stack_target-fp ARG... running, its stdin a
# FIFO this shell holds open (the target runs while it is), $target its pid, once it has said
# "ready" (bounded: 10 s, then the script fails); ended, and $t removed, when the script exits.
start_stack_target() {
  local dir=$1
  shift
  mkfifo "$t/in"
  "$dir/stack_target-fp" "$@" <"$t/in" >"$t/ready" &
  target=$!
  exec 4>"$t/in"
  trap 'exec 4>&-; kill $target 2>/dev/null; wait 2>/dev/null; rm -rf "$t"' EXIT
  for _ in $(seq 100); do grep -q '^ready' "$t/ready" && break; sleep 0.1; done
  grep -q '^ready' "$t/ready" || { echo "FAIL: the target did not start"; exit 1; }
}
