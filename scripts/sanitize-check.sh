#!/bin/bash
# scripts/sanitize-check.sh - `make check` on an AddressSanitizer + UndefinedBehaviorSanitizer
# build (./configure --enable-sanitizers), made in a fresh copy of the tree, so that the tree
# and its own build are left alone. Ends with the line .ci/run prints, "N passed, N failed[,
# N skipped]", counted the same way, except that every AddressSanitizer or LeakSanitizer
# report is one more failure, also a report from a test that passed (the tests of faulting
# programs accept their non-zero exit status, and some keep no stderr).
#
# Usage: scripts/sanitize-check.sh [SRCDIR [CONFIGURE-ARGS...]]
#   SRCDIR   the tree to test (default: the one holding this script). A git work tree is
#            copied as its tracked and untracked, not ignored, files (uncommitted edits
#            included, build products not); any other directory is copied whole, and a
#            build in it removed (make distclean).
#   CONFIGURE-ARGS  more arguments for ./configure (--with-cuda=DIR, NVCC=...)
# Environment:
#   SANITIZE_BUILD_DIR  where to copy and build (default: a new directory in ${TMPDIR:-/tmp});
#                       it is kept, with check.log and the reports in sanitizer/
#   JOBS                make -j (default 2)
#   SANITIZE_CHECK_TIMEOUT  limit for make check (default 60m)
#   ASAN_OPTIONS, UBSAN_OPTIONS  added after this script's own settings
#
# How the nvcc-built test programs (not instrumented) load the instrumented libcudart.so.13
# and libcuda.so.1: the launcher of a --enable-sanitizers build puts the ASan runtime first in
# LD_PRELOAD (runtime/launcher/ptxemu.c), as ASan requires. ASan and LeakSanitizer reports go
# to files (log_path) and are printed at the end; UBSan's go to stderr, where gcc's runtime
# always writes them when ASan is in the process, and end the process with status 1
# (-fno-sanitize-recover=undefined), which fails the test.
# Exit status 0 only when the build succeeded, no test failed and there was no report.
set -u
start=$(date +%s)
here=$(cd "$(dirname "$0")/.." && pwd)
arg=${1:-$here}
[ $# -gt 0 ] && shift
src=$(cd "$arg" 2>/dev/null && pwd -P) || { echo "sanitize-check: no directory $arg"; echo "0 passed, 1 failed"; exit 1; }
jobs=${JOBS:-2}
check_timeout=${SANITIZE_CHECK_TIMEOUT:-60m}

if [ -n "${SANITIZE_BUILD_DIR:-}" ]; then
    build=$SANITIZE_BUILD_DIR
    mkdir -p "$build" || exit 1
    build=$(cd "$build" && pwd)
    if [ -n "$(ls -A "$build")" ]; then
        echo "sanitize-check: $build is not empty"
        echo "0 passed, 1 failed"
        exit 1
    fi
else
    build=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-sanitize.XXXXXX") || exit 1
fi

fail_early() {
    echo "sanitize-check: $1 (see $2)"
    tail -n 30 "$2"
    echo "0 passed, 1 failed"
    exit 1
}

# ---- the copy --------------------------------------------------------------------------
echo "sanitize-check: copying $src to $build"
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
    git -C "$src" ls-files -z -co --exclude-standard |
        while IFS= read -r -d '' f; do
            if [ -e "$src/$f" ] || [ -L "$src/$f" ]; then printf '%s\0' "$f"; fi   # not deleted ones
        done | (cd "$src" && tar --null -T - -cf -) | (cd "$build" && tar -xf -) ||
        { echo "sanitize-check: copying failed"; echo "0 passed, 1 failed"; exit 1; }
else
    cp -a "$src/." "$build/" || { echo "sanitize-check: copying failed"; echo "0 passed, 1 failed"; exit 1; }
fi
cd "$build" || exit 1
# a copied build would keep objects made without the sanitizers
if [ -f config.status ] && ! make -s distclean >/dev/null 2>&1; then
    echo "sanitize-check: $src holds a build that make distclean cannot remove; give a clean tree"
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- the build -------------------------------------------------------------------------
echo "sanitize-check: building with --enable-sanitizers (log in $build/build.log)"
{ ./autogen.sh && ./configure --enable-sanitizers "$@" && make -j"$jobs"; } >build.log 2>&1 ||
    fail_early "build failed" "$build/build.log"
trs_list=$(make -s print-test-trs 2>/dev/null) || fail_early "cannot list the tests" "$build/build.log"

# The CUDA suite's nvcc objects (tests/cuda-obj, tests/run_cuda_tests.sh) are the test
# programs, not ptxemu's code, and are the same whichever ptxemu runs them: those SRCDIR's
# own build made are linked here instead of compiled again (one whose source is newer is
# compiled, by the same mtime rule as in SRCDIR).
if [ -d "$src/tests/cuda-obj" ]; then
    mkdir -p tests/cuda-obj && find "$src/tests/cuda-obj" -maxdepth 1 -name '*.o' -exec cp -p {} tests/cuda-obj/ \;
fi

# The compiled tier's objects (tests/jit-cache, tests/run_tier_tests.sh) depend on a kernel's C
# and on the headers the library gives the compiler (jit/compile.c's environment_hash), not on
# how the library itself was built: those SRCDIR's build made are this build's too. The
# compiled PTX suite then checks the instrumented library's side of compiled code (loading and
# calling it) without building every kernel again; the tier test's checks of the building
# itself (units, siblings, a failing or killed compiler) build in fresh caches of their own.
if [ -d "$src/tests/jit-cache" ]; then
    mkdir -p tests/jit-cache && find "$src/tests/jit-cache" -maxdepth 1 -name '*.so' -exec cp -p {} tests/jit-cache/ \;
fi

# ---- make check ------------------------------------------------------------------------
reports=$build/sanitizer
mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan:log_exe_name=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# tests whose programs are mostly Python (Numba, the notebook magic) skip themselves: the
# interpreter's own allocations would be LeakSanitizer's reports, not ptxemu's
export PTXEMU_SANITIZER_BUILD=1
stamp=$build/check.stamp
touch "$stamp"
sleep 1   # .trs files must be strictly newer than the stamp
echo "sanitize-check: running make check (log in $build/check.log)"
timeout "$check_timeout" make -j"$jobs" check AM_COLOR_TESTS=no >check.log 2>&1
[ $? -eq 124 ] && echo "sanitize-check: make check stopped after $check_timeout"
grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR): ' check.log | tail -n 7

# ---- results: .ci/run's count, plus the reports ----------------------------------------
summary=$(for t in $trs_list; do echo "$t"; done | ./.ci/run --summarize "$stamp")
printf '%s\n' "$summary" | sed '$d'
last=$(printf '%s\n' "$summary" | tail -n 1)
nrep=0
for f in "$reports"/asan*; do
    [ -f "$f" ] || continue
    nrep=$((nrep + 1))
    if [ $nrep -le 20 ]; then
        echo "---- sanitizer report $f"
        head -n 60 "$f"
        echo "----"
    fi
done
# UBSan's reports are in the test logs; one in the log of a test that passed (it expected a
# failing program) is one more failure too
for t in $trs_list; do
    grep -q 'runtime error:' "${t%.trs}.log" 2>/dev/null || continue
    echo "sanitize-check: UBSan report in ${t%.trs}.log"
    grep -q '^:test-result: *\(PASS\|XFAIL\)' "$t" && nrep=$((nrep + 1))
done
echo "sanitize-check: $nrep sanitizer report(s) (ASan ones in $reports); took $(( $(date +%s) - start ))s"
passed=$(printf '%s\n' "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
failed=$(printf '%s\n' "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
skipped=$(printf '%s\n' "$last" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
passed=${passed:-0}; failed=$(( ${failed:-1} + nrep ))
if [ -n "$skipped" ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
