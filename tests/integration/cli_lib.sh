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
