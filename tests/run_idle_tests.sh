#!/bin/sh
# run_idle_tests.sh - blocks whose threads all leave at the kernel's first branch (emu/idle.c):
# each tests/idle/*.ptx runs under tests/ptxrun with them skipped (the default) and run
# (PTXEMU_IDLE_BLOCKS=run), in both tiers. The two runs must print the same bytes and the same
# statistics (PTXEMU_STATS: thread and warp instructions, issue slots, the H100 model's
# estimate), and the launch trace must count the blocks the file's `idle-blocks:` line names.
# No GPU recording: the run with every block is the reference.
# Usage: tests/run_idle_tests.sh [BUILD_DIR]
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-${abs_top_builddir:-$here/..}}" && pwd)
run=$build/tests/ptxrun
[ -x "$run" ] || { echo "SKIP: $run not built"; exit 77; }
t=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-idle.XXXXXX") || exit 99
trap 'rm -rf "$t"' EXIT
tiers=interp
command -v "${PTXEMU_JIT_CC:-cc}" >/dev/null 2>&1 && tiers="interp compiled"
export PTXEMU_JIT_CACHE="${PTXEMU_JIT_CACHE:-$build/tests/jit-cache}"
pass=0 fail=0
for f in "$here"/idle/*.ptx; do
    n=$(basename "$f" .ptx)
    want=$(sed -n 's|^// idle-blocks: \([0-9]*\)$|\1|p' "$f")
    for tier in $tiers; do
        for mode in run skip; do
            idle=; [ $mode = run ] && idle=run
            (cd "$here/idle" && PTXEMU_TIER=$tier PTXEMU_IDLE_BLOCKS=$idle PTXEMU_STATS=1 PTXEMU_LOG=3 \
                "$run" "$n.ptx" >"$t/$n.$mode.out" 2>"$t/$n.$mode.err"; echo "exit=$?" >>"$t/$n.$mode.out")
            sed -n 's/^\(ptxemu-stats: .*\) seconds=.*/\1/p' "$t/$n.$mode.err" >"$t/$n.$mode.stats"
        done
        got=$(sed -n "s/^ptxemu: trace: launch .*: \([0-9]*\) of its [0-9]* blocks left .*/\1/p" "$t/$n.skip.err")
        ran=$(grep -c ' blocks left ' "$t/$n.run.err")
        if ! cmp -s "$t/$n.run.out" "$t/$n.skip.out"; then
            echo "FAIL: $n ($tier): output differs with idle blocks skipped"; diff "$t/$n.run.out" "$t/$n.skip.out" | head -10
            fail=$((fail + 1))
        elif ! cmp -s "$t/$n.run.stats" "$t/$n.skip.stats" || [ ! -s "$t/$n.run.stats" ]; then
            echo "FAIL: $n ($tier): statistics differ"; cat "$t/$n.run.stats" "$t/$n.skip.stats"
            fail=$((fail + 1))
        elif [ "${got:-0}" != "$want" ] || [ "$ran" != 0 ]; then
            echo "FAIL: $n ($tier): ${got:-0} idle blocks skipped, $want expected ($ran with PTXEMU_IDLE_BLOCKS=run)"
            fail=$((fail + 1))
        else
            echo "PASS: $n ($tier): $want idle blocks"
            pass=$((pass + 1))
        fi
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
