# Sourced by the benchmarks. need_pkg COMMAND PACKAGE installs Debian's PACKAGE when COMMAND is
# missing (a peer such as gdb or eu-stack, or stress-ng for the busy runs), so a benchmark's
# peers are there on a fresh machine. Prints what it installs on stderr.
need_pkg() {
  command -v "$1" >/dev/null && return 0
  echo "${0##*/}: installing Debian's $2 for $1" >&2
  local sudo_=""
  (($(id -u) == 0)) || sudo_=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo_ apt-get install -y -qq "$2" >/dev/null ||
    { $sudo_ apt-get update -qq && $sudo_ apt-get install -y -qq "$2" >/dev/null; }
}

# The busy runs' load: a CPU hog per vCPU at normal priority (a busy production host), started
# by start_hogs (its pid in hogs_pid; it settles for a second) and ended by stop_hogs, which a
# benchmark also calls from its exit trap.
hogs_pid=""
start_hogs() {
  stress-ng --cpu 0 --timeout 7200s --quiet >/dev/null 2>&1 &
  hogs_pid=$!
  sleep 1
}
stop_hogs() {
  [[ -n $hogs_pid ]] || return 0
  kill -TERM "$hogs_pid" 2>/dev/null || true
  wait "$hogs_pid" 2>/dev/null || true
  hogs_pid=""
}

# idle_then_busy VAR ARG...: this benchmark ("$0") again with ARG..., first with VAR=idle, then
# beside stress-ng --cpu 0 (a CPU hog per vCPU) with VAR naming that condition; the hogs end with
# the calling script. The caller exits after it (its --busy run is these two).
idle_then_busy() {
  local var=$1
  shift
  need_pkg stress-ng stress-ng
  env "$var=idle" "$0" "$@"
  trap stop_hogs EXIT
  start_hogs
  sleep 1  # two seconds to settle, as before start_hogs
  env "$var=busy: stress-ng --cpu 0 (one hog per vCPU)" "$0" "$@"
}
