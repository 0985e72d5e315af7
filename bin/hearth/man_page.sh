#!/usr/bin/env bash
# hearth's man page, made by help2man from hearth's own --help and --version, with a section per
# verb holding that verb's --help (so the page says what the binary does, never more or less).
#   bin/hearth/man_page.sh HEARTH_BINARY OUT.1
set -euo pipefail
hearth=${1:?usage: man_page.sh HEARTH_BINARY OUT.1}
out=${2:?usage: man_page.sh HEARTH_BINARY OUT.1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

verbs=$("$hearth" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$verbs" ] || { echo "man_page.sh: no verbs in $hearth --help" >&2; exit 1; }
{
  echo '[DESCRIPTION]'
  echo 'hearth answers "what are this process'"'"'s threads doing, and why are they slow?" on a'
  echo 'production Linux host, without stopping sleeping threads, and draws the answer as pictures'
  echo '(SVG, PNG, PDF, HTML reports) on the host itself. Each verb below has its own options;'
  echo '.B hearth VERB \-\-help'
  echo 'prints them too.'
  echo
  echo '[VERBS]'
  for v in $verbs; do
    echo ".SS hearth $v"
    echo '.nf'
    # roff: a leading dot or quote would be a request, a backslash an escape.
    # Usage names the program as it was run: say hearth.
    "$hearth" "$v" --help | sed -e "s|^Usage: [^ ]*hearth |Usage: hearth |" -e 's/\\/\\e/g' \
      -e "s/^\\([.']\\)/\\\\\\&\\1/"
    echo '.fi'
  done
  echo
  echo '[EXIT STATUS]'
  echo '0 success; 1 the work failed (said on stderr in one line); 2 bad usage or input (nothing'
  echo 'written); hearth diff: 1 when a regression is over its threshold; hearth push: 3 spooled,'
  echo '4 refused. Each verb'"'"'s --help says its own.'
  echo
  echo '[SEE ALSO]'
  echo 'The README of the source tree, which says what each verb does, how it was measured, and its'
  echo 'limits.'
} > "$work/include"
help2man --no-info --section=1 \
  --name="what are this process's threads doing, and why are they slow?" \
  --include="$work/include" --output="$work/hearth.1" "$hearth"
mv "$work/hearth.1" "$out"
