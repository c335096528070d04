#!/bin/sh
# run_driver_facts.sh - tests/gpu/driver_facts.c, the program that recorded the H200's
# driver, run on ptxemu's libcuda.so.1: its sections whose every line is a fact must print
# what the driver printed (tests/expected/driver/). noctx: which calls work with no context
# current on objects a context holds (Numba frees memory after popping its context).
# Exit: 0 all passed, 1 some failed, 77 (skipped) without the CUDA headers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
inc=$(dirname "$NVCC")/../include
[ -f "$inc/cuda.h" ] || { echo "run_driver_facts: no cuda.h beside $NVCC: skipped"; exit 77; }
lib=$builddir/runtime/.libs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-facts.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -Wall -Wno-deprecated-declarations -I"$inc" -o "$tmp/driver_facts" \
    "$srcdir/tests/gpu/driver_facts.c" "$lib/libcuda.so.1" -ldl || exit 99
pass=0 fail=0
for section in noctx; do
    LD_LIBRARY_PATH=$lib "$tmp/driver_facts" $section >"$tmp/$section.out" 2>"$tmp/$section.err"
    if diff "$srcdir/tests/expected/driver/$section.txt" "$tmp/$section.out" >"$tmp/diff"; then
        echo "PASS: driver_facts $section prints what the H200's driver printed"
        pass=$((pass + 1))
    else
        echo "FAIL: driver_facts $section differs from the H200's driver (< H200, > ptxemu):"
        head -n 20 "$tmp/diff"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
