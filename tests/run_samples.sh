#!/bin/sh
# run_samples.sh - runs nvcc-built samples under the ptxemu launcher and compares each one's
# stdout and exit status with tests/expected/samples/NAME.out (recorded on a real H100).
#
# Usage: tests/run_samples.sh [NAME | samples/NAME.cu]...   (no argument: every sample)
# Environment: PTXEMU (launcher; default $abs_top_builddir/runtime/ptxemu),
#   abs_top_builddir / top_srcdir (defaults: current directory / this script's parent).
# Exit: 0 all passed, 1 some failed, 77 (automake "skipped") when no sample was built.
# The automake harness calls it once per sample (CU_LOG_COMPILER in Makefile.am).

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${abs_top_srcdir:-${top_srcdir:-$here/..}}
builddir=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
expected_dir=$srcdir/tests/expected/samples

if [ $# -eq 0 ]; then
    set -- $(cd "$srcdir/samples" && ls *.cu)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-samples.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$ptxemu" ]; then
    echo "run_samples: launcher $ptxemu not built" >&2
    exit 99
fi

pass=0 fail=0 skip=0
for arg in "$@"; do
    name=$(basename "$arg" .cu)
    prog=$builddir/samples/$name
    want=$expected_dir/$name.out
    if [ ! -x "$prog" ]; then
        echo "SKIP: $name (samples/$name not built: configure found no nvcc?)"
        skip=$((skip + 1))
        continue
    fi
    if [ ! -f "$want" ]; then
        echo "FAIL: $name (no expected output $want)"
        fail=$((fail + 1))
        continue
    fi
    # Samples exit 0 when they pass; a recorded NAME.status overrides that.
    want_rc=0
    [ -f "$expected_dir/$name.status" ] && want_rc=$(cat "$expected_dir/$name.status")

    "$ptxemu" "$prog" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ "$rc" = "$want_rc" ] && cmp -s "$want" "$tmp/$name.out"; then
        echo "PASS: $name"
        pass=$((pass + 1))
    else
        echo "FAIL: $name (exit status $rc, expected $want_rc)"
        echo "--- stderr of $name:"
        head -n 20 "$tmp/$name.err"
        echo "--- diff expected actual:"
        diff -u "$want" "$tmp/$name.out" | head -n 60
        fail=$((fail + 1))
    fi
done

echo "run_samples: $pass passed, $fail failed, $skip skipped"
[ "$fail" -gt 0 ] && exit 1
[ "$pass" -eq 0 ] && [ "$skip" -gt 0 ] && exit 77
exit 0
