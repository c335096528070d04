#!/bin/sh
# run_cuda_tests.sh - CUDA-program-level conformance tests: builds each tests/cuda/NAME.cu with
# nvcc, runs it under the build-tree ptxemu launcher once per line of tests/cuda/NAME.args
# (or once without arguments when there is no .args file), and compares stdout plus the exit
# status with tests/expected/cuda/NAME.N.out, recorded on an H100 (N = line index, from 0).
# The last line of a .out file is `exit=STATUS`; stderr is not compared (docs/testing.md),
# except for the device-side assert lines the GPU writes there (NAME.N.stderr).
# tests/cuda/NAME.env, when present, holds VAR=VALUE lines set for every run of NAME (e.g.
# PTXEMU_DEVICES=4 for a program that needs several devices).
#
# Usage: tests/run_cuda_tests.sh [BUILDDIR] [NAME...]    (no NAME: every tests/cuda/*.cu)
# Environment: NVCC (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc), PTXEMU (launcher,
#   default BUILDDIR/runtime/ptxemu), abs_top_builddir / abs_top_srcdir (set by make check;
#   BUILDDIR defaults to abs_top_builddir, then the current directory).
# Programs are built into BUILDDIR/tests/cuda-bin/ from inside the source directory, so that
# __FILE__ (which device-side assert messages print) is the bare file name on every machine.
# CUDA_TEST_RUNTIME=static (tests/run_cuda_tests_static.sh) builds them the default way
# instead - NVIDIA's static runtime, running over ptxemu's libcuda.so.1 - into
# tests/cuda-bin-static/, and checks them against the same recordings; programs with their
# own NAME.flags are run only in the default (shared) pass.
# Exit: 0 all passed, 1 some failed or did not build, 77 (automake "skipped") without nvcc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
if [ $# -gt 0 ] && [ -d "$1" ]; then
    builddir=$(cd "$1" && pwd)
    shift
else
    builddir=${abs_top_builddir:-$(pwd)}
fi
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
runtime=${CUDA_TEST_RUNTIME:-shared}
case $runtime in
    shared) NVCC_FLAGS="-arch=sm_90 --cudart shared -O2 -lineinfo"; bindir=$builddir/tests/cuda-bin ;;
    static) NVCC_FLAGS="-arch=sm_90 -O2 -lineinfo"; bindir=$builddir/tests/cuda-bin-static ;;
    *) echo "run_cuda_tests: CUDA_TEST_RUNTIME must be shared or static" >&2; exit 99 ;;
esac
cudadir=$srcdir/tests/cuda
expected=$srcdir/tests/expected/cuda
limit=${CUDA_TEST_TIMEOUT:-20}

if [ ! -x "$NVCC" ]; then
    echo "run_cuda_tests: no nvcc ($NVCC): skipped"
    exit 77
fi
if [ ! -x "$ptxemu" ]; then
    echo "run_cuda_tests: launcher $ptxemu not built" >&2
    exit 99
fi
[ $# -eq 0 ] && set -- $(cd "$cudadir" && ls *.cu | sed 's/\.cu$//')
mkdir -p "$bindir" || exit 99
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-cuda.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
run_limited() {
    if command -v timeout >/dev/null 2>&1; then timeout "$limit" "$@"; else "$@"; fi
}

pass=0 fail=0
for name in "$@"; do
    name=$(basename "$name" .cu)
    [ "$runtime" = static ] && [ -f "$cudadir/$name.flags" ] && continue
    prog=$bindir/$name
    if [ ! -x "$prog" ] || [ "$cudadir/$name.cu" -nt "$prog" ] ||
       { [ -f "$cudadir/$name.flags" ] && [ "$cudadir/$name.flags" -nt "$prog" ]; }; then
        # NAME.flags, when present, replaces the default flags (e.g. the default build of a
        # driver-API program: -O2 -lineinfo -lcuda)
        flags=$NVCC_FLAGS
        [ -f "$cudadir/$name.flags" ] && flags=$(cat "$cudadir/$name.flags")
        # shellcheck disable=SC2086  # flags is a list of flags
        if ! (cd "$cudadir" && "$NVCC" $flags -o "$prog" "$name.cu") >"$tmp/nvcc.log" 2>&1; then
            echo "FAIL: $name (nvcc failed)"
            head -n 20 "$tmp/nvcc.log"
            fail=$((fail + 1))
            continue
        fi
    fi
    # NAME.env: the environment of every run (VAR=VALUE lines)
    envs=
    [ -f "$cudadir/$name.env" ] && envs=$(grep -v '^#' "$cudadir/$name.env")
    # One run per line of NAME.args; a single run without arguments when there is none.
    if [ -f "$cudadir/$name.args" ]; then cp "$cudadir/$name.args" "$tmp/args"; else echo >"$tmp/args"; fi
    n=0
    while IFS= read -r args; do
        want=$expected/$name.$n.out
        got=$tmp/$name.$n.out
        # shellcheck disable=SC2086  # the arguments are split like a command line
        # shellcheck disable=SC2086  # envs is a list of VAR=VALUE words
        run_limited env $envs "$ptxemu" "$prog" $args >"$got" 2>"$tmp/$name.$n.err" </dev/null
        echo "exit=$?" >>"$got"
        label="$name.$n${args:+ ($args)}"
        # device-side assert lines, which the GPU writes to stderr, must be the recorded ones
        asserts_ok=1
        if [ -f "$expected/$name.$n.stderr" ] && grep -q 'Assertion `' "$expected/$name.$n.stderr"; then
            grep 'Assertion `' "$expected/$name.$n.stderr" >"$tmp/assert.want"
            grep 'Assertion `' "$tmp/$name.$n.err" | grep -v '^ptxemu: ' >"$tmp/assert.got"
            cmp -s "$tmp/assert.want" "$tmp/assert.got" || asserts_ok=0
        fi
        if [ ! -f "$want" ]; then
            echo "FAIL: $label (no expected output $want)"
            fail=$((fail + 1))
        elif [ $asserts_ok = 0 ]; then
            echo "FAIL: $label (device assert lines on stderr differ)"
            diff -u "$tmp/assert.want" "$tmp/assert.got" | head -n 20
            fail=$((fail + 1))
        elif cmp -s "$want" "$got"; then
            echo "PASS: $label"
            pass=$((pass + 1))
        else
            echo "FAIL: $label"
            echo "--- stderr:"
            head -n 10 "$tmp/$name.$n.err"
            echo "--- diff expected actual:"
            diff -u "$want" "$got" | head -n 60
            fail=$((fail + 1))
        fi
        n=$((n + 1))
    done <"$tmp/args"
done

echo "run_cuda_tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
