# Sourced by the benchmarks: need_pkg COMMAND PACKAGE installs Debian's PACKAGE when COMMAND is
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
