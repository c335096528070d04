#!/bin/sh
# fuzz.sh - builds the libFuzzer harnesses of tests/fuzz with clang, ASan and UBSan, and runs
# them: `make fuzz` (FUZZ_SECONDS each, 600 unless `make fuzz FUZZ_SECONDS=N`) and, briefly, the test suite
# (tests/run_fuzz_tests.sh).
#   fuzz.sh build SRCDIR BUILDDIR OUTDIR "SOURCES..."   instrumented objects, then the harnesses
#   fuzz.sh run OUTDIR SRCDIR SECONDS                   replay each corpus, then fuzz SECONDS each
# Corpora: tests/fuzz/corpus/<harness>/ (seeds, committed) and tests/ptx-corpus,
# tests/fatbin-data; new inputs go to OUTDIR/corpus/<harness>/, crashes to OUTDIR/.
set -u
CLANG=${CLANG:-clang}
harnesses="fuzz_ptx fuzz_fatbin fuzz_module fuzz_tensormap"

build() {
    srcdir=$1 builddir=$2 out=$3 sources=$4
    cuda=${CUDA_DIR:-/usr/local/cuda}
    command -v "$CLANG" >/dev/null || { echo "fuzz: no clang"; return 77; }
    mkdir -p "$out/obj" || return 1
    flags="-g -O1 -std=gnu11 -fsanitize=address,undefined -fno-sanitize-recover=undefined -ffp-contract=off -frounding-math
           -I$srcdir -I$builddir -I$cuda/include -DHAVE_CONFIG_H"
    objs= todo=
    for s in $sources; do
        o=$out/obj/$(echo "$s" | tr / _).o
        objs="$objs $o"
        # Generated sources (jit/jit_headers.c) live in the build tree, the rest in the source tree.
        f=$srcdir/$s
        [ -f "$f" ] || f=$builddir/$s
        [ "$o" -nt "$f" ] || todo="$todo $f $o"
    done
    # The objects are independent, so they are compiled side by side (FUZZ_JOBS, default the
    # CPUs): this build is most of the fuzz test's time, one of make check's longest.
    export CLANG flags srcdir
    # shellcheck disable=SC2086  # todo is a list of file names without spaces
    [ -z "$todo" ] || printf '%s %s\n' $todo | xargs -P "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 2 sh -c '
        case $1 in
        *.S) $CLANG -c -Wa,-I"$srcdir" -I"$srcdir" -o "$2" "$1" ;;
        *) $CLANG $flags -fsanitize=fuzzer-no-link -c -o "$2" "$1" 2>"$2.log" || { cat "$2.log"; exit 1; } ;;
        esac' sh || return 1
    for h in $harnesses; do
        $CLANG $flags -fsanitize=fuzzer -o "$out/$h" "$srcdir/tests/fuzz/$h.c" $objs \
            -lffi -lzstd -lpthread -ldl -lm || return 1
    done
}

# The corpus directories of harness h: its new inputs first (libFuzzer writes there), then seeds.
corpora() {
    h=$1 out=$2 srcdir=$3
    mkdir -p "$out/corpus/$h"
    echo "$out/corpus/$h"
    for d in "$srcdir/tests/fuzz/corpus/$h" $(case $h in
        fuzz_ptx) echo "$srcdir/tests/ptx-corpus" ;;
        fuzz_fatbin) echo "$srcdir/tests/fatbin-data" ;;
        fuzz_module) echo "$srcdir/tests/ptx-corpus $srcdir/tests/fatbin-data" ;;
        esac); do
        [ -d "$d" ] && echo "$d"
    done
}

run() {
    out=$1 srcdir=$2 secs=$3
    status=0
    for h in $harnesses; do
        dirs=$(corpora "$h" "$out" "$srcdir" | tr '\n' ' ')
        # replay every committed input once, then fuzz for the given time
        if ! ASAN_OPTIONS=detect_leaks=1 "$out/$h" -runs=0 $dirs >"$out/$h.replay.log" 2>&1; then
            echo "FAIL: $h: a corpus input fails (log: $out/$h.replay.log)"; tail -30 "$out/$h.replay.log"; status=1; continue
        fi
        echo "PASS: $h replays its corpus"
        [ "$secs" = 0 ] && continue
        if ASAN_OPTIONS=detect_leaks=1 "$out/$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
               -print_final_stats=1 -artifact_prefix="$out/$h-" $dirs >"$out/$h.log" 2>&1; then
            echo "PASS: $h fuzzed for $secs s ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$h.log" | grep -o '[0-9]*$' || echo ?) runs)"
        else
            echo "FAIL: $h found a crash (log: $out/$h.log)"; tail -40 "$out/$h.log"; status=1
        fi
    done
    return $status
}

case ${1:-} in
build) shift; build "$@" ;;
run) shift; run "$@" ;;
*) echo "usage: fuzz.sh build SRCDIR BUILDDIR OUTDIR SOURCES | run OUTDIR SRCDIR SECONDS" >&2; exit 2 ;;
esac
