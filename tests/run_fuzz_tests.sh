#!/bin/sh
# run_fuzz_tests.sh - the libFuzzer harnesses of tests/fuzz, briefly: built with clang, ASan
# and UBSan over the front end, the fatbinary reader, the driver's module loaders and the
# tensor-map encoder; each replays its corpus, then fuzzes FUZZ_SECONDS (default 10).
# `make fuzz` runs them longer. 77 (skip) without clang and libFuzzer.
# Environment (from make check): abs_top_srcdir, abs_top_builddir, FUZZ_SOURCES.
set -u
# the harnesses are their own ASan + UBSan build, the same in either tree
[ -z "${PTXEMU_SANITIZER_BUILD:-}" ] ||
    { echo "SKIP: a sanitizer build (scripts/sanitize-check.sh): the harnesses are built with the sanitizers in the plain build's make check too"; exit 77; }
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${abs_top_builddir:-$src}
out=$build/tests/fuzz/out
command -v "${CLANG:-clang}" >/dev/null || { echo "SKIP: no clang"; exit 77; }
[ -n "${FUZZ_SOURCES:-}" ] || { echo "FUZZ_SOURCES is not set (run through make check)"; exit 99; }
sh "$src/tests/fuzz/fuzz.sh" build "$src" "$build" "$out" "$FUZZ_SOURCES" || {
    rc=$?; [ $rc = 77 ] && exit 77; echo "FAIL: the harnesses do not build"; exit 1; }
sh "$src/tests/fuzz/fuzz.sh" run "$out" "$src" "${FUZZ_SECONDS:-10}" >"$out/summary" 2>&1
rc=$?
cat "$out/summary"
exit $rc
