#!/bin/bash
# run_arch_check.sh - the floors docs/architecture.md draws, checked on the code:
#  1. includes: no core file (emu/, not emu/tools/) includes a tool's header; tools include
#     only emu/observe.h, emu/query.h, emu/report.h, emu/clock.h and their own headers;
#     frontend/ includes nothing of emu/ or jit/; emu/ nothing of jit/;
#  2. calls: every source of emu/, emu/tools/, jit/ and frontend/ compiled with gcc's
#     -fcallgraph-info, and scripts/callgraph.py finds no circle of calls, no call up the
#     floors (jit -> emu -> frontend) and no core file calling a tool by name;
#  3. the checker itself: a made-up circle and a made-up call into a tool are caught.
# Usage: tests/run_arch_check.sh [SRCDIR]
set -u
# it reads and compiles the sources apart from the build, so a sanitizer build learns nothing more
[ -z "${PTXEMU_SANITIZER_BUILD:-}" ] ||
    { echo "SKIP: a sanitizer build (scripts/sanitize-check.sh): the sources are checked in the plain build's make check"; exit 77; }
src=${1:-${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}}
cd "$src" || exit 1
pass=0 fail=0
check() { if [ "$2" = 0 ]; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# ---- 1. includes ----
core=$(ls emu/*.c emu/*.h emu/*.def)
bad=$(grep -n '#include "[^"]*tools/' $core)
[ -z "$bad" ] || echo "$bad"
check "no core file of emu/ includes a tool header" $([ -z "$bad" ]; echo $?)

bad=$(grep -n '#include "' emu/tools/*.c emu/tools/*.h |
      grep -v -E '#include "(tools|attach|racecheck|racecheck_state|debuginfo)\.h"|#include "emu/(observe|query|report|clock)\.h"')
[ -z "$bad" ] || echo "$bad"
check "tools include only observe.h, query.h, report.h, clock.h and their own headers" $([ -z "$bad" ]; echo $?)

bad=$(grep -n -E '#include "(\.\./)?(emu|jit)/' frontend/*.c frontend/*.h)
[ -z "$bad" ] || echo "$bad"
check "frontend/ includes nothing of emu/ or jit/" $([ -z "$bad" ]; echo $?)

bad=$(grep -n -E '#include "(\.\./)?jit/' emu/*.c emu/*.h emu/tools/*.c emu/tools/*.h)
[ -z "$bad" ] || echo "$bad"
check "emu/ includes nothing of jit/" $([ -z "$bad" ]; echo $?)

# ---- 2. calls ----
cc=${CC:-gcc}
if ! echo 'int main(void){return 0;}' | "$cc" -x c -fcallgraph-info -c -o "$work/t.o" - 2>/dev/null; then
    echo "SKIP: $cc has no -fcallgraph-info"
    exit 77
fi
ffi=$(pkg-config --cflags libffi 2>/dev/null)
cgfail=0
for f in emu/*.c emu/tools/*.c jit/*.c frontend/*.c; do
    out=$work/ci/$(echo "$f" | tr / _)
    mkdir -p "$work/ci"
    "$cc" -std=gnu11 -O0 -I. $ffi -fcallgraph-info -c "$f" -o "$out.o" 2>"$out.err" || { cat "$out.err"; cgfail=1; }
done
check "every source compiles for the call graph" $cgfail
python3 scripts/callgraph.py "$work"/ci/*.ci
check "no circle of calls in emu/ or across jit/, emu/, frontend/; calls go down the floors; the core calls no tool by name" $?

# ---- 3. the checker catches what it should ----
mk() {   # mk NAME SOURCE-FILE DEFINED CALLEE...: a .ci file as gcc writes it
    local out=$work/fake/$1 src=$2 def=$3
    shift 3
    { echo "graph: { title: \"$src\""
      echo "node: { title: \"$def\" label: \"$def\n$src:1:1\" }"
      for c in "$@"; do
          echo "node: { title: \"$c\" label: \"$c\nx.h:1:1\" shape : ellipse }"
          echo "edge: { sourcename: \"$def\" targetname: \"$c\" label: \"$src:2:1\" }"
      done
      echo "}"; } >"$out"
}
mkdir -p "$work/fake"
mk a.ci emu/a.c fa fb
mk b.ci emu/b.c fb fa
python3 scripts/callgraph.py "$work/fake/a.ci" "$work/fake/b.ci" >"$work/fake.out" 2>&1
[ $? = 1 ] && grep -q "circle of calls: emu/a emu/b" "$work/fake.out"
check "the checker finds a circle" $?
rm -f "$work"/fake/*
mk a.ci emu/a.c fa race_access
mk b.ci emu/tools/b.c race_access
mk c.ci frontend/c.c fc fa
python3 scripts/callgraph.py "$work"/fake/*.ci >"$work/fake.out" 2>&1
[ $? = 1 ] && grep -q "core calls a tool by name: emu/a -> emu/tools/b" "$work/fake.out" &&
    grep -q "call up the floors: frontend/c -> emu/a" "$work/fake.out"
check "the checker finds a call into a tool and a call up the floors" $?

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
