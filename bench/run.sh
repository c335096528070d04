#!/bin/bash
# run.sh - builds the bench/ CUDA programs and the plain-C reference, runs each program
# under the emulator (one worker, then the default worker count) and prints one table:
# per-worker instruction rate, emulator and native times, slowdown and memory overhead.
# Method: docs/benchmarks.md. `make bench` runs this with the variables below set.
#
# Environment: NVCC, NVCC_FLAGS (default -arch=sm_90 --cudart shared -O2), CC,
#   PTXEMU (launcher; default ./runtime/ptxemu), BENCH_OUT (work dir; default ./bench/out),
#   BENCH_ONLY="vectorAdd saxpy" (subset), BENCH_MODE=gpu (run the programs natively on a
#   real GPU instead, to check them and record GPU kernel times).
set -u
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
NVCC_FLAGS=${NVCC_FLAGS:--arch=sm_90 --cudart shared -O2}
CC=${CC:-cc}
PTXEMU=${PTXEMU:-$PWD/runtime/ptxemu}
BENCH_OUT=${BENCH_OUT:-$PWD/bench/out}
BENCH_MODE=${BENCH_MODE:-emu}
benches=${BENCH_ONLY:-vectorAdd saxpy matrixMul reduction wmmaGemm}

die() { echo "bench: $*" >&2; exit 1; }
mkdir -p "$BENCH_OUT" || die "cannot create $BENCH_OUT"

# ---- build ---------------------------------------------------------------------------
command -v "$NVCC" >/dev/null 2>&1 || die "nvcc not found (set NVCC=...)"
for b in $benches; do
    # shellcheck disable=SC2086  # NVCC_FLAGS is a list of flags
    "$NVCC" $NVCC_FLAGS -I"$here" -o "$BENCH_OUT/$b" "$here/$b.cu" || die "nvcc failed on $b.cu"
done
"$CC" -std=gnu11 -O2 -o "$BENCH_OUT/ref" "$here/ref.c" || die "cc failed on ref.c"

# Peak RSS: GNU time if installed, else the tiny wait4() wrapper.
if /usr/bin/time -v true >/dev/null 2>&1; then
    rss_cmd=(/usr/bin/time -v)
else
    "$CC" -std=gnu11 -O2 -o "$BENCH_OUT/maxrss" "$here/maxrss.c" || die "cc failed on maxrss.c"
    rss_cmd=("$BENCH_OUT/maxrss")
fi
rss_kb() {   # peak RSS in KiB from the stderr of rss_cmd
    sed -n -e 's/^.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' \
           -e 's/^maxrss_kb=\([0-9]*\).*/\1/p' "$1" | tail -n 1
}
field() {    # field NAME FILE PREFIX: value of NAME= on the last line starting with PREFIX
    grep "^$3" "$2" 2>/dev/null | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# ---- native C reference --------------------------------------------------------------
"$BENCH_OUT/ref" >"$BENCH_OUT/ref.txt" || die "ref failed"
native_s() { grep "^ref: name=$1 " "$BENCH_OUT/ref.txt" | sed 's/.*seconds=//'; }

# ---- GPU mode: run natively and report ---------------------------------------------
if [ "$BENCH_MODE" = gpu ]; then
    printf '%-10s %14s %14s %7s\n' benchmark "gpu_kernel_s" "native_C_s" check
    for b in $benches; do
        "$BENCH_OUT/$b" >"$BENCH_OUT/$b.gpu.out" 2>&1
        printf '%-10s %14s %14s %7s\n' "$b" \
            "$(field kernel_seconds "$BENCH_OUT/$b.gpu.out" bench:)" "$(native_s "$b")" \
            "$(field check "$BENCH_OUT/$b.gpu.out" bench:)"
    done
    exit 0
fi

# ---- emulator runs -------------------------------------------------------------------
[ -x "$PTXEMU" ] || die "launcher $PTXEMU not built (run make first)"
nthreads_default=$(nproc 2>/dev/null || echo "?")
status=0
rows=()
modes=()
for b in $benches; do
    one=$BENCH_OUT/$b.t1 all=$BENCH_OUT/$b.tn
    PTXEMU_STATS=1 PTXEMU_THREADS=1 "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 >"$one.out" 2>"$one.err" ||
        { echo "bench: $b failed with PTXEMU_THREADS=1 (see $one.err)" >&2; status=1; }
    PTXEMU_STATS=1 "${rss_cmd[@]}" "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 >"$all.out" 2>"$all.err" ||
        { echo "bench: $b failed with default threads (see $all.err)" >&2; status=1; }

    # Deterministic mode and race checking, against the one-worker parallel run.
    det=$BENCH_OUT/$b.det rc=$BENCH_OUT/$b.rc
    PTXEMU_STATS=1 PTXEMU_SEED=1 "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 >"$det.out" 2>"$det.err" ||
        { echo "bench: $b failed in deterministic mode (see $det.err)" >&2; status=1; }
    PTXEMU_STATS=1 PTXEMU_RACECHECK=1 "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 >"$rc.out" 2>"$rc.err" ||
        { echo "bench: $b failed with racecheck (see $rc.err)" >&2; status=1; }
    sdet=$(field seconds "$det.err" ptxemu-stats:)
    src=$(field seconds "$rc.err" ptxemu-stats:)
    # race checking's memory: shadow and access-log peaks against the checked allocations
    shx=$(sed -n 's/.*shadow peak \([0-9]*\) bytes for \([0-9]*\) bytes.*access logs peak \([0-9]*\) bytes.*/\1 \2 \3/p' \
          "$rc.err" | awk '$2 > 0 { s = $1 / $2; l = $3 / $2; if (s > ms) ms = s; if (l > ml) ml = l }
                           END { if (ms) printf "%.2f %.2f", ms, ml; else print "n/a n/a" }')

    # Kernel time: the emulator's own count if it printed one, else the program's clock.
    insts=$(field thread_insts "$one.err" ptxemu-stats:)
    s1=$(field seconds "$one.err" ptxemu-stats:)
    [ -n "$s1" ] || s1=$(field kernel_seconds "$one.out" bench:)
    sn=$(field seconds "$all.err" ptxemu-stats:)
    [ -n "$sn" ] || sn=$(field kernel_seconds "$all.out" bench:)
    native=$(native_s "$b")
    rss=$(rss_kb "$all.err")
    dev=$(field device_bytes "$all.out" bench:)
    host=$(field host_bytes "$all.out" bench:)
    check=$(field check "$all.out" bench:)
    modes+=("$(awk -v b="$b" -v s1="${s1:-}" -v d="${sdet:-}" -v r="${src:-}" -v sh="${shx:-n/a n/a}" 'BEGIN {
        split(sh, m, " ")
        printf "%-10s %10s %10s %10s %8s %8s %9s %7s", b, s1, (d == "" ? "n/a" : d), (r == "" ? "n/a" : r), \
            (s1 > 0 && d != "") ? sprintf("%.2f", d / s1) : "n/a", (s1 > 0 && r != "") ? sprintf("%.2f", r / s1) : "n/a", \
            m[1], m[2] }')")
    rows+=("$(awk -v b="$b" -v i="${insts:-}" -v s1="${s1:-}" -v sn="${sn:-}" -v nat="${native:-}" \
                  -v rss="${rss:-}" -v dev="${dev:-}" -v host="${host:-0}" -v ck="${check:-none}" 'BEGIN {
        rate = (i != "" && s1 > 0) ? sprintf("%.1f", i / s1 / 1e6) : "n/a"
        slow = (sn > 0 && nat > 0) ? sprintf("%.0f", sn / nat) : "n/a"
        mem = (rss != "" && dev != "") ? sprintf("%.1f", (rss * 1024 - dev - host) / 1048576) : "n/a"
        printf "%-10s %12s %10s %10s %10s %9s %12s %6s", b, rate, \
            (s1 == "" ? "n/a" : s1), (sn == "" ? "n/a" : sn), (nat == "" ? "n/a" : nat), \
            slow, mem, ck }')")
    [ "$check" = ok ] || status=1
done

echo
echo "ptxemu benchmarks (default workers: $nthreads_default; method: docs/benchmarks.md)"
printf '%-10s %12s %10s %10s %10s %9s %12s %6s\n' benchmark "Minst/s/wkr" "emu_s_1w" \
    "emu_s_Nw" "native_s" "slowdown" "overhead_MiB" check
for r in "${rows[@]}"; do echo "$r"; done
# the tensor-core GEMM in emulated flops (2 M N K per second of one worker and of all)
if [ -f "$BENCH_OUT/wmmaGemm.t1.err" ]; then
    awk -v s1="$(field seconds "$BENCH_OUT/wmmaGemm.t1.err" ptxemu-stats:)" \
        -v sn="$(field seconds "$BENCH_OUT/wmmaGemm.tn.err" ptxemu-stats:)" 'BEGIN {
        f = 2 * 512 * 512 * 512
        if (s1 > 0 && sn > 0)
            printf "wmmaGemm (512x512x512): %.3f GFLOP/s emulated with one worker, %.3f with all (%.2e TFLOP-equivalents a worker)\n", \
                f / s1 / 1e9, f / sn / 1e9, f / s1 / 1e12 }'
fi
echo
echo "deterministic mode (PTXEMU_SEED=1) and race checking (PTXEMU_RACECHECK=1), one thread,"
echo "against the one-worker parallel run of the same process run (x = ratio); race checking's"
echo "shadow and access-log peaks as multiples of the checked allocations (PTXEMU_STATS)"
printf '%-10s %10s %10s %10s %8s %8s %9s %7s\n' benchmark "par_1w_s" "det_s" "race_s" "det_x" "race_x" "shadow_x" "logs_x"
for r in "${modes[@]}"; do echo "$r"; done
exit $status
