#!/bin/bash
# run_docs_check.sh - the help, the README and the man page say the same thing: every option
# `ptxemu --help`, `ptxemu race --help` and `ptxemu debug --help` list is in the man page and
# in the README or docs/, and every environment variable the code reads (but the internal
# ones below) is in --help, the README and the man page.
# Usage: tests/run_docs_check.sh [BUILDDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${abs_top_srcdir:-$here/..}
build=$(cd "${1:-${abs_top_builddir:-$here/..}}" && pwd)
launcher=$build/runtime/ptxemu
[ -x "$launcher" ] || { echo "ERROR: no launcher at $launcher"; exit 1; }
# read by the code but not for users: the detector's compaction test switch, the report
# runner's channel to its child; PTXEMU_DEBUG_* and PTXEMU_TRACE_* are named as families
internal="PTXEMU_RACECHECK_COMPACT PTXEMU_REPORT_LAUNCHES"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

{ "$launcher" --help; "$launcher" race --help; "$launcher" debug --help; } >"$work/help" 2>&1
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$src/man/ptxemu.1" >"$work/man"
cat "$src/README.md" "$src"/docs/*.md >"$work/docs"

opts=$(grep -oE '(^|[ [,])--?[a-zA-Z][a-zA-Z-]*' "$work/help" | sed 's/^[ [,]//' | sort -u)
n=0
for o in $opts; do
    [ "$o" = -arch ] && continue   # nvcc's, in the help's first line
    n=$((n + 1))
    grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|$)" "$work/man" || bad "option $o is in --help but not in man/ptxemu.1"
    case $o in -[a-zA-Z]) continue ;; esac   # short forms: the man page is enough
    grep -qF -- "$o" "$work/docs" || bad "option $o is in --help but not in the README or docs/"
done

vars=$(grep -rhoE 'getenv\("PTXEMU_[A-Z_]+"\)' "$src/emu" "$src/runtime" "$src/frontend" "$src/jit" |
       sed 's/getenv("//; s/")//' | sort -u)
m=0
for v in $vars; do
    case " $internal " in *" $v "*) continue ;; esac
    case $v in PTXEMU_DEBUG_* | PTXEMU_TRACE_*) v=PTXEMU_DEBUG ;; esac
    m=$((m + 1))
    grep -q "$v" "$work/help" || bad "$v is read by the code but not in ptxemu --help"
    grep -q "$v" "$src/README.md" || bad "$v is read by the code but not in the README"
    grep -q "$v" "$work/man" || bad "$v is read by the code but not in man/ptxemu.1"
done
# the log levels are described the same way everywhere
for f in "$work/help" "$src/README.md" "$work/man"; do
    grep -q "3 = and a line for every launch\|3 and a line for every launch" "$f" ||
        bad "the PTXEMU_LOG levels in $(basename "$f") do not say what level 3 does"
done
echo "docs check: $n options, $m environment variables, $fails problems"
[ $fails = 0 ]
