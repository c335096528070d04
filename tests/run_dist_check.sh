#!/bin/bash
# run_dist_check.sh - what `make dist` ships is what git tracks: every tracked file (but
# .gitignore) is in the Makefile's DISTFILES, or under a folder that is, and exists. A file
# missing from every Makefile.am list builds here and fails in the release tarball (emu/sfu.h
# did: make distcheck's build broke on exec_float.c), so this runs in make check, where
# make distcheck (a second full build and test run) is too slow to.
# Needs git and the source tree's history: skipped (77) in a tarball, a copy, or without git.
# Usage: tests/run_dist_check.sh [BUILDDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
build=$(cd "${1:-${abs_top_builddir:-$here/..}}" && pwd)
# the top of a git work tree: a tarball has none, and a copy inside another checkout
# (scripts/sanitize-check.sh's, under .ci/logs) would list none of its own files
top=$(command -v git >/dev/null && git -C "$src" rev-parse --show-toplevel 2>/dev/null)
[ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ] ||
    { echo "SKIP: $src is not the top of a git checkout (a tarball or a copy)"; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# a make of its own (under make check, the outer one's flags would print "Entering
# directory" lines into the list), its Makefile brought up to date first (a regeneration
# would print into it too)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$build" "$@"; }
mk Makefile >/dev/null 2>&1
mk print-distfiles >"$work/dist" 2>"$work/err" ||
    { echo "ERROR: make print-distfiles failed:"; cat "$work/err"; exit 1; }
git -C "$src" ls-files >"$work/tracked"
sed 's|^\./||; s|/$||' "$work/dist" | sort -u >"$work/names"
n=$(grep -cvxF .gitignore "$work/tracked")
# a tracked file ships when DISTFILES names it or a folder above it (EXTRA_DIST = tests/tier)
awk 'NR == FNR { ship[$0] = 1; next }
     $0 == ".gitignore" { next }
     { f = $0; while (!(f in ship) && index(f, "/")) sub(/\/[^\/]*$/, "", f)
       if (!(f in ship)) print "FAIL: " $0 " is tracked by git but make dist leaves it out (add it to a list in Makefile.am)" }' \
    "$work/names" "$work/tracked" >"$work/fails"
# and the other way: a name in a list that is not in the tree would stop make dist
while read -r f; do
    [ -e "$src/$f" ] || [ -e "$build/$f" ] || echo "FAIL: $f is in Makefile.am's lists but not in the tree"
done <"$work/names" >>"$work/fails"
cat "$work/fails"
fails=$(wc -l <"$work/fails")
echo "dist check: $n tracked files, $fails not shipped or missing"
[ $fails = 0 ]
