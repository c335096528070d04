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

# run_one NAME: every run of the built program, each compared with its recording
run_one() {
    prog=$bindir/$1
    # NAME.env: the environment of every run (VAR=VALUE lines)
    envs=
    [ -f "$cudadir/$1.env" ] && envs=$(grep -v '^#' "$cudadir/$1.env")
    # One run per line of NAME.args; a single run without arguments when there is none.
    if [ -f "$cudadir/$1.args" ]; then cp "$cudadir/$1.args" "$tmp/args"; else echo >"$tmp/args"; fi
    n=0
    while IFS= read -r args; do
        want=$expected/$1.$n.out
        got=$tmp/$1.$n.out
        # shellcheck disable=SC2086  # the arguments are split like a command line
        # shellcheck disable=SC2086  # envs is a list of VAR=VALUE words
        run_limited env $envs "$ptxemu" "$prog" $args >"$got" 2>"$tmp/$1.$n.err" </dev/null
        echo "exit=$?" >>"$got"
        label="$1.$n${args:+ ($args)}"
        # device-side assert lines, which the GPU writes to stderr, must be the recorded ones
        asserts_ok=1
        if [ -f "$expected/$1.$n.stderr" ] && grep -q 'Assertion `' "$expected/$1.$n.stderr"; then
            grep 'Assertion `' "$expected/$1.$n.stderr" >"$tmp/assert.want"
            grep 'Assertion `' "$tmp/$1.$n.err" | grep -v '^ptxemu: ' >"$tmp/assert.got"
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
            head -n 10 "$tmp/$1.$n.err"
            echo "--- diff expected actual:"
            diff -u "$want" "$got" | head -n 60
            fail=$((fail + 1))
        fi
        n=$((n + 1))
    done <"$tmp/args"
}

# The shared and static passes differ only in the link line (nvcc -dryrun shows the runtime
# named there alone), so a program with the default flags is compiled once, to
# BUILDDIR/tests/cuda-obj/NAME.o, and each pass links it; a program with its own NAME.flags is
# built whole, in the shared pass only. Several runs build at once (make -j runs both passes
# and the compiled tier's parts, tests/run_tier_tests.sh): each program is built under a lock
# of its own (BUILDDIR/tests/cuda-obj/NAME.lock), and one another run holds is taken last,
# not waited for; what a build writes is renamed into place, so a program that runs is whole.
objdir=$builddir/tests/cuda-obj
mkdir -p "$objdir" || exit 99
obj_flags="-arch=sm_90 -O2 -lineinfo"
have_flock=0
command -v flock >/dev/null 2>&1 && have_flock=1

# nvcc_in NAME OUT FLAGS...: compiles NAME.cu from inside the source directory into OUT
# (through a temporary file); 0 or 1
nvcc_in() {
    src=$1 out=$2
    shift 2
    if (cd "$cudadir" && "$NVCC" "$@" -o "$out.tmp.$$" "$src.cu") >"$tmp/nvcc.log" 2>&1 &&
        mv -f "$out.tmp.$$" "$out"; then
        return 0
    fi
    rm -f "$out.tmp.$$"
    echo "FAIL: $src (nvcc failed)"
    head -n 20 "$tmp/nvcc.log"
    return 1
}

# build NAME [wait]: 0 built or up to date, 1 nvcc failed (reported), 2 another run is
# building it now (only without "wait")
build() {
    if [ "$have_flock" = 1 ]; then
        exec 9>"$objdir/$1.lock"
        if [ "${2:-}" = wait ]; then flock 9; elif ! flock -n 9; then exec 9>&-; return 2; fi
    fi
    build_locked "$1"
    rc=$?
    exec 9>&-
    return $rc
}

build_locked() {
    prog=$bindir/$1
    if [ -f "$cudadir/$1.flags" ]; then
        if [ ! -x "$prog" ] || [ "$cudadir/$1.cu" -nt "$prog" ] || [ "$cudadir/$1.flags" -nt "$prog" ]; then
            # NAME.flags replaces the default flags (e.g. a driver-API program: -O2 -lineinfo -lcuda)
            # shellcheck disable=SC2046  # the file is a list of flags
            nvcc_in "$1" "$prog" $(cat "$cudadir/$1.flags") || return 1
        fi
        return 0
    fi
    obj=$objdir/$1.o
    if [ ! -f "$obj" ] || [ "$cudadir/$1.cu" -nt "$obj" ]; then
        # shellcheck disable=SC2086  # a list of flags
        nvcc_in "$1" "$obj" -c $obj_flags || return 1
    fi
    if [ ! -x "$prog" ] || [ "$obj" -nt "$prog" ]; then
        # shellcheck disable=SC2086
        if ! "$NVCC" $NVCC_FLAGS -o "$prog.tmp.$$" "$obj" >"$tmp/nvcc.log" 2>&1; then
            rm -f "$prog.tmp.$$"
            echo "FAIL: $1 (nvcc failed to link)"
            head -n 20 "$tmp/nvcc.log"
            return 1
        fi
        mv -f "$prog.tmp.$$" "$prog"
    fi
    return 0
}

pass=0 fail=0 later=
for name in "$@"; do
    name=$(basename "$name" .cu)
    [ "$runtime" = static ] && [ -f "$cudadir/$name.flags" ] && continue
    build "$name"
    case $? in
        0) run_one "$name" ;;
        1) fail=$((fail + 1)) ;;
        2) later="$later $name" ;;
    esac
done
for name in $later; do
    if build "$name" wait; then run_one "$name"; else fail=$((fail + 1)); fi
done

echo "run_cuda_tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
