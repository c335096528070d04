#!/bin/bash
# run_hecbench_tests.sh - a few fast programs of the HeCBench survey (tests/hecbench/survey.sh,
# docs/compatibility.md): each built from a HeCBench checkout with its own Makefile at sm_90,
# run under ptxemu with the survey's command, and compared with what the H200 printed
# (tests/expected/hecbench/NAME.out, or a later GPU run of it), lines of times and rates set
# aside as the survey sets them aside. HeCBench's code never comes into this tree, so the test
# needs a checkout named by HECBENCH (git clone https://github.com/zjin-lcf/HeCBench); the
# programs are copied out of it and built in a temporary folder, leaving the checkout as it was.
# Exit: 0 passed, 1 failed, 77 (skipped) without HECBENCH or without nvcc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
# mis: its blocks wait for each other (resident together on the GPU, emu/sched.c); thomas: a
# mul and a sub in one block of a loop body are fused as ptxas fuses them (jit/contract.c)
programs=${HECBENCH_PROGRAMS:-"fluidSim hwt1d is intrinsics-cast ntt mis thomas"}
[ -n "${HECBENCH:-}" ] || { echo "SKIP: HECBENCH is not set (a checkout of github.com/zjin-lcf/HeCBench)"; exit 77; }
[ -d "$HECBENCH/src" ] || { echo "SKIP: HECBENCH=$HECBENCH has no src folder"; exit 77; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc (NVCC=$NVCC)"; exit 77; }
export NVCC
work=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-hecbench.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/hb/src" "$work/out"
for n in $programs; do
    [ -d "$HECBENCH/src/$n-cuda" ] || { echo "FAIL: $n: no $HECBENCH/src/$n-cuda"; exit 1; }
    cp -r "$HECBENCH/src/$n-cuda" "$work/hb/src/"
done
[ -d "$HECBENCH/src/include" ] && cp -r "$HECBENCH/src/include" "$work/hb/src/"
# shellcheck source=tests/hecbench/normal.sh
. "$srcdir/tests/hecbench/normal.sh"
export HECBENCH_TESTS=$srcdir/tests/hecbench
# shellcheck disable=SC2086  # the names
MAKEFLAGS=-B bash "$srcdir/tests/hecbench/survey.sh" build "$work/hb" "$work/out" $programs >"$work/build.txt"
# shellcheck disable=SC2086
RUNNER=$ptxemu TIMEOUT=${HECBENCH_TIMEOUT:-300} \
    bash "$srcdir/tests/hecbench/survey.sh" run "$work/hb" "$work/out" $programs >"$work/run.txt"
fail=0
for n in $programs; do
    if ! grep -qx "$n built" "$work/build.txt"; then
        echo "FAIL: $n: $(grep "^$n " "$work/build.txt")"
        tail -n 5 "$work/out/$n.build.log"
        fail=1
        continue
    fi
    same=0
    for g in "$srcdir/tests/expected/hecbench/$n.out" "$srcdir/tests/expected/hecbench/$n".run[0-9].out; do
        [ -f "$g" ] || continue
        diff <(normal "$n" "$g") <(normal "$n" "$work/out/$n.out") >/dev/null && { same=1; break; }
    done
    if [ $same = 1 ]; then
        echo "PASS: $n"
    else
        echo "FAIL: $n ($(grep "^$n " "$work/run.txt")): ptxemu's output against the H200's:"
        diff <(normal "$n" "$srcdir/tests/expected/hecbench/$n.out") <(normal "$n" "$work/out/$n.out") | head -n 20
        fail=1
    fi
done
exit $fail
