#!/bin/bash
# slow.sh - the slow CUDA samples (tests/cuda-samples/notes.txt) as timed programs: builds
# each from a checkout of NVIDIA's cuda-samples the way tests/cuda-samples/survey.sh does
# (nvcc, no -arch), then runs the whole program under the interpreter tier, the compiled
# tier and, when BASE_PTXEMU names another build's launcher (e.g. main's before a change),
# that build's default tier, all in this one run on this machine. Prints whole-program
# seconds, the ratio base/compiled, and whether each run's output matches the first run's
# (timing lines set aside). Method and recorded runs: docs/benchmarks.md.
#
# Usage: bench/slow.sh SAMPLES_DIR [NAME...]
# Environment: PTXEMU (default ./runtime/ptxemu), BASE_PTXEMU (baseline launcher; none by
#   default), BENCH_OUT (default ./bench/out-slow), NVCC, PTXEMU_THREADS (workers; default
#   the number of cores), BENCH_SLOW_FULL=1 (the samples' own sizes; default: reduced sizes
#   where the sample takes arguments, see `sizes` below), BENCH_SLOW_TIMEOUT (seconds a run
#   may take, default 900; a cut run prints >T), BENCH_SLOW_TIERS (the tiers to run, default
#   "interp compiled"; a tier left out prints - and is not compared; "auto" adds the default
#   tier, which interprets a kernel until it is hot and compiles it meanwhile: what a user
#   gets without setting anything, compile latency included).
#
# Full sizes on 2 cores at main e6aae55 (notes.txt): scan 4.5 min, globalToShmemAsyncCopy
# 22 min, UnifiedMemoryPerf 36 min, simpleAttributes 56 min, cudaTensorCoreGemm 8 min.
# scan, simpleAttributes and cudaTensorCoreGemm take no size arguments, so they always run
# at full size; give them a BENCH_SLOW_TIMEOUT to match the time you have.
set -u
src=${1:?usage: bench/slow.sh SAMPLES_DIR [NAME...]}
shift
src=$(cd "$src" && pwd) || exit 1
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
PTXEMU=${PTXEMU:-$PWD/runtime/ptxemu}
BASE_PTXEMU=${BASE_PTXEMU:-}
BENCH_OUT=${BENCH_OUT:-$PWD/bench/out-slow}
TMO=${BENCH_SLOW_TIMEOUT:-900}
TIERS=${BENCH_SLOW_TIERS:-interp compiled}
full=${BENCH_SLOW_FULL:-0}
unset PTXEMU_TIER PTXEMU_SEED PTXEMU_RACECHECK   # each run below sets its own

# NAME  DIR under Samples/  REDUCED-ARGS (- none: the sample has no size arguments)
samples="
scan 2_Concepts_and_Techniques/scan -
globalToShmemAsyncCopy 3_CUDA_Features/globalToShmemAsyncCopy -wA=256,-hA=256,-wB=256,-hB=256
UnifiedMemoryPerf 6_Performance/UnifiedMemoryPerf -kernel-iterations=1
simpleAttributes 0_Introduction/simpleAttributes -
cudaTensorCoreGemm 3_CUDA_Features/cudaTensorCoreGemm -
"
die() { echo "slow: $*" >&2; exit 1; }
[ -x "$PTXEMU" ] || die "launcher $PTXEMU not built (run make first)"
mkdir -p "$BENCH_OUT" || die "cannot create $BENCH_OUT"

# whole-program seconds of one run, or >TMO; output in $3
timed() { # LABEL LAUNCHER OUTFILE PROG ARGS... (env set by the caller)
    local t0 t1 rc
    shift
    local launcher=$1 out=$2
    shift 2
    t0=$(date +%s.%N)
    timeout "$TMO" "$launcher" "$@" >"$out" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    echo "exit=$rc" >>"$out"
    if [ $rc = 124 ]; then echo ">$TMO"; else echo "$t0 $t1" | awk '{printf "%.1f", $2 - $1}'; fi
}
# output without lines that report times or rates
strip() { grep -viE 'time|sec|GFlop|bandwidth|ms\b|performance|throughput' "$1"; }

printf '%-24s %-10s %10s %10s %10s %10s %8s  %s\n' program args interp compiled auto base base/comp same-output
while read -r name dir args; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ]; then case " $* " in *" $name "*) ;; *) continue ;; esac; fi
    sdir=$src/Samples/$dir
    [ -d "$sdir" ] || { echo "$name: $sdir missing"; continue; }
    prog=$BENCH_OUT/$name
    if [ ! -x "$prog" ]; then
        files=$(cd "$sdir" && ls ./*.cu ./*.cpp 2>/dev/null | tr '\n' ' ')
        # shellcheck disable=SC2086
        (cd "$sdir" && "$NVCC" -I"$src/Common" -I. -o "$prog" $files) >"$prog.build.log" 2>&1 ||
            { echo "$name: build failed ($prog.build.log)"; continue; }
    fi
    argv=()
    if [ "$full" = 0 ] && [ "$args" != - ]; then IFS=, read -r -a argv <<<"$args"; fi
    shown=${args}; [ "$full" = 0 ] || shown=full; [ "$args" = - ] && shown=full
    ti=- tc=-
    case " $TIERS " in *" interp "*)
        ti=$(PTXEMU_TIER=interp timed i "$PTXEMU" "$prog.interp.out" "$prog" "${argv[@]}") ;; esac
    case " $TIERS " in *" compiled "*)
        tc=$(PTXEMU_TIER=compiled timed c "$PTXEMU" "$prog.compiled.out" "$prog" "${argv[@]}") ;; esac
    ta=-
    case " $TIERS " in *" auto "*)
        ta=$(PTXEMU_TIER=auto timed a "$PTXEMU" "$prog.auto.out" "$prog" "${argv[@]}") ;; esac
    tb=n/a; ratio=n/a; same=yes
    if [ -n "$BASE_PTXEMU" ]; then
        tb=$(timed b "$BASE_PTXEMU" "$prog.base.out" "$prog" "${argv[@]}")
        ratio=$(echo "$tb $tc" | awk '$1 !~ />/ && $2 !~ />/ && $2 > 0 {printf "%.2f", $1 / $2; exit} {print "n/a"}')
        [ "$tc" = - ] || cmp -s <(strip "$prog.base.out") <(strip "$prog.compiled.out") || same=no
    fi
    [ "$ti" = - ] || [ "$tc" = - ] || cmp -s <(strip "$prog.interp.out") <(strip "$prog.compiled.out") || same=no
    [ "$ta" = - ] || [ "$tc" = - ] || cmp -s <(strip "$prog.auto.out") <(strip "$prog.compiled.out") || same=no
    [ "$ta" = - ] || [ "$ti" = - ] || cmp -s <(strip "$prog.auto.out") <(strip "$prog.interp.out") || same=no
    printf '%-24s %-10s %10s %10s %10s %10s %8s  %s\n' "$name" "${shown:0:10}" "$ti" "$tc" "$ta" "$tb" "$ratio" "$same"
done <<<"$samples"
