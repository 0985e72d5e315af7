#!/usr/bin/env bash
# hearth's man page (bin/hearth/man_page.sh, help2man) as man shows it: groff renders it without
# a warning; it has NAME, SYNOPSIS, DESCRIPTION, OPTIONS, VERBS, EXIT STATUS; every verb of
# `hearth --help` has its section with that verb's own usage and options; the version is the
# binary's.
#   tests/integration/man_page_cli.sh HEARTH_BINARY HEARTH_1
set -uo pipefail
hearth=${1:?usage: man_page_cli.sh HEARTH_BINARY HEARTH_1}
page=${2:?usage: man_page_cli.sh HEARTH_BINARY HEARTH_1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cli_lib.sh"

[ -s "$page" ] && ok || { bad "no man page at $page"; finish man_page_cli; exit 1; }
MANWIDTH=100 man --warnings -l "$page" > "$t/text" 2> "$t/warnings"
[ -s "$t/text" ] && ok || bad "man rendered nothing"
[ ! -s "$t/warnings" ] && ok || bad "groff warned: $(head -5 "$t/warnings")"
for section in NAME SYNOPSIS DESCRIPTION OPTIONS VERBS "EXIT STATUS"; do
  grep -qx "$section" "$t/text" && ok || bad "no $section section"
done
grep -q "hearth - what are this process's threads doing" "$t/text" && ok || bad "NAME: $(grep -A1 '^NAME' "$t/text")"
version=$("$hearth" --version | head -1)
grep -q "${version#hearth }" "$t/text" && ok || bad "the page is not of $version"
"$hearth" --help > "$t/help" 2>&1
verbs=$(awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$t/help")
[ "$(echo "$verbs" | wc -w)" -ge 15 ] && ok || bad "few verbs in --help: $verbs"
for v in $verbs; do
  grep -qx "   hearth $v" "$t/text" && ok || bad "no section for $v"
  grep -q "Usage: hearth $v \[OPTIONS\]" "$t/text" && ok || bad "no usage line for $v"
done
# A verb's option as its --help says it, backslashes and all.
grep -q -- "--send-as TEXT:{folded,pprof}" "$t/text" && ok || bad "push --send-as not in the page"
grep -q 'Usage: build/\|Usage: /' "$t/text" && bad "a usage line names the build's path" || ok
finish man_page_cli
