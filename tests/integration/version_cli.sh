#!/usr/bin/env bash
# `hearth --version`: the version and revision, how the binary is linked (told the same way
# `ldd` tells it, with the host's glibc), its capture methods, and the cairo it draws PNG and
# PDF with (the one pkg-config names, for a dynamic build).
#   tests/integration/version_cli.sh HEARTH_BINARY
set -uo pipefail
hearth=${1:?usage: version_cli.sh HEARTH_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"

expect_exit 0 "--version" -- "$hearth" --version
cp "$t/out" "$t/version"
[ "$(wc -l <"$t/version")" = 4 ] && ok || bad "not 4 lines: $(cat "$t/version")"
grep -Eq '^hearth [0-9]+\.[0-9]+\.[0-9]+ \([0-9a-f]{7,}(-dirty)?\)$|^hearth [0-9]+\.[0-9]+\.[0-9]+ \(unknown\)$' "$t/version" && ok \
  || bad "first line: $(head -1 "$t/version")"
if ldd "$hearth" >/dev/null 2>&1; then
  glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
  grep -qx "linked: dynamically (glibc $glibc)" "$t/version" && ok \
    || bad "ldd finds a dynamic executable, --version says: $(sed -n 2p "$t/version") (glibc $glibc)"
  cairo=$(pkg-config --modversion cairo)
  grep -qx "pictures: SVG; PNG and PDF through cairo $cairo" "$t/version" && ok \
    || bad "cairo: $(sed -n 4p "$t/version"), pkg-config says $cairo"
else
  grep -qx "linked: statically" "$t/version" && ok || bad "ldd finds no dynamic executable: $(sed -n 2p "$t/version")"
fi
grep -q '^capture: bpf .*, ptrace ' "$t/version" && ok || bad "capture: $(sed -n 3p "$t/version")"
finish version_cli
