#!/bin/bash
# run.sh - builds the bench/ CUDA programs and the plain-C reference, runs each program
# under the emulator in both tiers and prints, from this one run:
#   1. the interpreter's table: per-worker instruction rate, one-worker and N-worker times,
#      single-threaded native time, slowdown and memory overhead (the columns kept from the
#      first benchmarks);
#   2. both tiers against native C with OpenMP on the same N threads, and the compiled
#      tier's compile latency (cold cache against warm cache);
#   3. deterministic mode and race checking against the one-worker run (BENCH_TOOLS=1);
#   4. with BENCH_THREADS="1 2 4 ...": a scaling table, both tiers and OpenMP, with the
#      efficiency t1 / (n * tn).
# Method: docs/benchmarks.md. `make bench` runs this with the variables below set.
#
# Environment: NVCC, NVCC_FLAGS (default -arch=sm_90 --cudart shared -O2), CC,
#   REF_CFLAGS (the reference's flags; default -O2), PTXEMU (launcher; default
#   ./runtime/ptxemu), BENCH_OUT (work dir; default ./bench/out), BENCH_ONLY="vectorAdd
#   saxpy" (subset), PTXEMU_THREADS (N, the workers of the N-worker runs and OpenMP's
#   threads; default: the number of cores), BENCH_THREADS="1 2 4 8 16" (scaling table; off
#   by default), BENCH_TOOLS (0: leave out the deterministic and race-checking runs),
#   BENCH_WARMUP (untimed launches before the timed one, default 0; with more, each kernel
#   time is the fastest of the launches), BENCH_BUILD (0: use the programs and the reference
#   already in BENCH_OUT, e.g. built on another machine), BENCH_MODE=gpu (run the programs
#   natively on a real GPU instead, to check them and record GPU kernel times),
#   BENCH_REPORT_ONLY=1 (run nothing: print the tables from the files a run left in
#   BENCH_OUT, e.g. one cut short on another machine; missing figures are n/a).
set -u
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
NVCC_FLAGS=${NVCC_FLAGS:--arch=sm_90 --cudart shared -O2}
CC=${CC:-cc}
REF_CFLAGS=${REF_CFLAGS:--O2}
PTXEMU=${PTXEMU:-$PWD/runtime/ptxemu}
BENCH_OUT=${BENCH_OUT:-$PWD/bench/out}
BENCH_MODE=${BENCH_MODE:-emu}
BENCH_TOOLS=${BENCH_TOOLS:-1}
BENCH_WARMUP=${BENCH_WARMUP:-0}
BENCH_BUILD=${BENCH_BUILD:-1}
benches=${BENCH_ONLY:-vectorAdd saxpy matrixMul reduction wmmaGemm}
ncores=$(nproc 2>/dev/null || echo 1)
N=${PTXEMU_THREADS:-$ncores}
scaling=${BENCH_THREADS:-}
report_only=${BENCH_REPORT_ONLY:-0}
[ "$report_only" = 0 ] || BENCH_BUILD=0
unset PTXEMU_THREADS PTXEMU_TIER OMP_NUM_THREADS   # each run below sets its own

die() { echo "bench: $*" >&2; exit 1; }
mkdir -p "$BENCH_OUT" || die "cannot create $BENCH_OUT"

# ---- build ---------------------------------------------------------------------------
omp=yes
if [ "$BENCH_BUILD" != 0 ]; then
    command -v "$NVCC" >/dev/null 2>&1 || die "nvcc not found (set NVCC=...)"
    for b in $benches; do
        # shellcheck disable=SC2086  # NVCC_FLAGS is a list of flags
        "$NVCC" $NVCC_FLAGS -I"$here" -o "$BENCH_OUT/$b" "$here/$b.cu" || die "nvcc failed on $b.cu"
    done
    # shellcheck disable=SC2086
    if ! "$CC" -std=gnu11 $REF_CFLAGS -fopenmp -o "$BENCH_OUT/ref" "$here/ref.c" 2>/dev/null; then
        echo "bench: $CC has no OpenMP: the native columns with N threads are n/a" >&2
        omp=no
        "$CC" -std=gnu11 $REF_CFLAGS -o "$BENCH_OUT/ref" "$here/ref.c" || die "cc failed on ref.c"
    fi
elif [ "$report_only" = 0 ]; then
    for b in $benches ref; do [ -x "$BENCH_OUT/$b" ] || die "BENCH_BUILD=0 but $BENCH_OUT/$b is missing"; done
fi

# Peak RSS: GNU time if installed, else the tiny wait4() wrapper.
if /usr/bin/time -v true >/dev/null 2>&1 || [ "$report_only" != 0 ]; then
    rss_cmd=(/usr/bin/time -v)
else
    [ -x "$BENCH_OUT/maxrss" ] || "$CC" -std=gnu11 -O2 -o "$BENCH_OUT/maxrss" "$here/maxrss.c" ||
        die "cc failed on maxrss.c"
    rss_cmd=("$BENCH_OUT/maxrss")
fi
rss_kb() {   # peak RSS in KiB from the stderr of rss_cmd
    sed -n -e 's/^.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' \
           -e 's/^maxrss_kb=\([0-9]*\).*/\1/p' "$1" | tail -n 1
}
field() {    # field NAME FILE PREFIX: value of NAME= on the last line starting with PREFIX
    grep "^$3" "$2" 2>/dev/null | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}
kernel_s() { # fastest launch's seconds in FILE (PTXEMU_STATS lines), else the program's clock
    local s
    s=$(grep '^ptxemu-stats:' "$1.err" 2>/dev/null | tr ' ' '\n' | sed -n 's/^seconds=//p' |
        sort -g | head -n 1)
    [ -n "$s" ] || s=$(field kernel_seconds "$1.out" bench:)
    echo "$s"
}

# ---- native C reference: single-threaded, then on each thread count used below --------
ref_counts=$(echo 1 "$N" "$scaling" | tr ' ' '\n' | sort -n -u | tr '\n' ' ')
for t in $ref_counts; do
    [ "$report_only" = 0 ] || break
    [ "$omp" = yes ] || [ "$t" = 1 ] || continue
    OMP_NUM_THREADS=$t "$BENCH_OUT/ref" >"$BENCH_OUT/ref.$t.txt" || die "ref failed with $t threads"
done
native_s() {   # native_s NAME THREADS
    grep "^ref: name=$1 " "$BENCH_OUT/ref.$2.txt" 2>/dev/null | sed 's/.*seconds=//'
}

# ---- GPU mode: run natively and report ---------------------------------------------
if [ "$BENCH_MODE" = gpu ]; then
    printf '%-10s %14s %14s %7s\n' benchmark "gpu_kernel_s" "native_C_s" check
    for b in $benches; do
        "$BENCH_OUT/$b" >"$BENCH_OUT/$b.gpu.out" 2>&1
        printf '%-10s %14s %14s %7s\n' "$b" \
            "$(field kernel_seconds "$BENCH_OUT/$b.gpu.out" bench:)" "$(native_s "$b" 1)" \
            "$(field check "$BENCH_OUT/$b.gpu.out" bench:)"
    done
    exit 0
fi

# ---- emulator runs -------------------------------------------------------------------
status=0
machine=$BENCH_OUT/machine.txt   # what the runs ran on, for BENCH_REPORT_ONLY too
if [ "$report_only" = 0 ]; then
    [ -x "$PTXEMU" ] || die "launcher $PTXEMU not built (run make first)"
    cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
    echo "$ncores cores (${cpu:-unknown CPU}), kernel seconds the fastest of $((BENCH_WARMUP + 1))" \
         "launch(es), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) at the start" >"$machine"
fi

# emu B TIER WORKERS [CACHE]: one run of program B, its files $BENCH_OUT/B.TIER.WORKERS.{out,err};
# a run already made in this invocation is not repeated. The compiled tier uses the
# per-program cache $BENCH_OUT/jit/B (warmed by the cold/warm pair below).
declare -A done_runs
emu() {
    local b=$1 tier=$2 n=$3 f=$BENCH_OUT/$1.$2.$3
    [ -n "${done_runs[$f]:-}" ] || [ "$report_only" != 0 ] && return 0
    done_runs[$f]=1
    PTXEMU_STATS=1 PTXEMU_TIER=$tier PTXEMU_THREADS=$n PTXEMU_JIT_CACHE=$BENCH_OUT/jit/$b \
        "${rss_cmd[@]}" "$PTXEMU" "$BENCH_OUT/$b" --warmup "$BENCH_WARMUP" >"$f.out" 2>"$f.err" ||
        { echo "bench: $b failed with PTXEMU_TIER=$tier PTXEMU_THREADS=$n (see $f.err)" >&2; status=1; }
    [ "$(field check "$f.out" bench:)" = ok ] || status=1
}

# compile_latency B: the compiled tier's first launch with an empty cache, then again with
# the cache it filled, both --warmup 0 on N workers. The time a first launch spends before
# its blocks run is the program's kernel_seconds minus the emulator's own (PTXEMU_STATS)
# seconds; the cold run's minus the warm run's is the compiler's time (C emission, cc, the
# cache write), the warm run's alone the cost of a cache hit.
compile_latency() {   # sets lat="compile_s hit_s"
    local b=$1 c=$BENCH_OUT/$1.cold w=$BENCH_OUT/$1.warm
    [ "$report_only" != 0 ] || rm -rf "$BENCH_OUT/jit/$b"
    for f in "$c" "$w"; do
        [ "$report_only" = 0 ] || break
        PTXEMU_STATS=1 PTXEMU_TIER=compiled PTXEMU_THREADS=$N PTXEMU_JIT_CACHE=$BENCH_OUT/jit/$b \
            "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 >"$f.out" 2>"$f.err" ||
            { echo "bench: $b failed in the compiled tier (see $f.err)" >&2; status=1; }
    done
    lat=$(awk -v ck="$(field kernel_seconds "$c.out" bench:)" -v cs="$(field seconds "$c.err" ptxemu-stats:)" \
        -v wk="$(field kernel_seconds "$w.out" bench:)" -v ws="$(field seconds "$w.err" ptxemu-stats:)" 'BEGIN {
        if (ck != "" && cs != "" && wk != "" && ws != "")
            printf "%.3f %.4f", (ck - cs) - (wk - ws), wk - ws; else print "n/a n/a" }')
}

rows=() tiers=() modes=()
for b in $benches; do
    compile_latency "$b"
    emu "$b" interp 1
    emu "$b" interp "$N"
    emu "$b" compiled 1
    emu "$b" compiled "$N"
    i1=$BENCH_OUT/$b.interp.1 iN=$BENCH_OUT/$b.interp.$N c1=$BENCH_OUT/$b.compiled.1 cN=$BENCH_OUT/$b.compiled.$N

    # 1. the interpreter against single-threaded C (the first benchmarks' columns)
    insts=$(field thread_insts "$i1.err" ptxemu-stats:)
    s1=$(kernel_s "$i1") sn=$(kernel_s "$iN")
    native1=$(native_s "$b" 1)
    rss=$(rss_kb "$iN.err")
    dev=$(field device_bytes "$iN.out" bench:)
    host=$(field host_bytes "$iN.out" bench:)
    check=$(field check "$iN.out" bench:)
    rows+=("$(awk -v b="$b" -v i="${insts:-}" -v s1="${s1:-}" -v sn="${sn:-}" -v nat="${native1:-}" \
                  -v rss="${rss:-}" -v dev="${dev:-}" -v host="${host:-0}" -v ck="${check:-none}" 'BEGIN {
        rate = (i != "" && s1 > 0) ? sprintf("%.1f", i / s1 / 1e6) : "n/a"
        slow = (sn > 0 && nat > 0) ? sprintf("%.0f", sn / nat) : "n/a"
        mem = (rss != "" && dev != "") ? sprintf("%.1f", (rss * 1024 - dev - host) / 1048576) : "n/a"
        printf "%-10s %12s %10s %10s %10s %9s %12s %6s", b, rate, \
            (s1 == "" ? "n/a" : s1), (sn == "" ? "n/a" : sn), (nat == "" ? "n/a" : nat), \
            slow, mem, ck }')")

    # 2. both tiers against C with OpenMP on the same N threads
    ci=$(field thread_insts "$c1.err" ptxemu-stats:)
    tiers+=("$(awk -v b="$b" -v it="$(kernel_s "$iN")" -v cn="$(kernel_s "$cN")" -v c1="$(kernel_s "$c1")" \
                  -v omp="$(native_s "$b" "$N")" -v nat="${native1:-}" -v ci="${ci:-}" -v lat="$lat" \
                  -v ck="$(field check "$cN.out" bench:)/$(field check "$c1.out" bench:)" 'BEGIN {
        split(lat, l, " ")
        printf "%-10s %9s %9s %9s %8s %8s %10s %9s %9s %8s %9s %9s %s", b, it, cn, (omp == "" ? "n/a" : omp), \
            (it > 0 && omp > 0) ? sprintf("%.1f", it / omp) : "n/a", \
            (cn > 0 && omp > 0) ? sprintf("%.2f", cn / omp) : "n/a", \
            (ci != "" && c1 > 0) ? sprintf("%.1f", ci / c1 / 1e6) : "n/a", c1, nat, \
            (c1 > 0 && nat > 0) ? sprintf("%.2f", c1 / nat) : "n/a", l[1], l[2], ck }')")

    # 3. deterministic mode and race checking, against the one-worker interpreted run
    if [ "$BENCH_TOOLS" != 0 ]; then
        det=$BENCH_OUT/$b.det rc=$BENCH_OUT/$b.rc
        if [ "$report_only" = 0 ]; then
            PTXEMU_STATS=1 PTXEMU_SEED=1 PTXEMU_TIER=interp "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 \
                >"$det.out" 2>"$det.err" ||
                { echo "bench: $b failed in deterministic mode (see $det.err)" >&2; status=1; }
            PTXEMU_STATS=1 PTXEMU_RACECHECK=1 PTXEMU_TIER=interp "$PTXEMU" "$BENCH_OUT/$b" --warmup 0 \
                >"$rc.out" 2>"$rc.err" ||
                { echo "bench: $b failed with racecheck (see $rc.err)" >&2; status=1; }
        fi
        sdet=$(field seconds "$det.err" ptxemu-stats:)
        src=$(field seconds "$rc.err" ptxemu-stats:)
        # race checking's memory: shadow and access-log peaks against the checked allocations
        shx=$(sed -n 's/.*shadow peak \([0-9]*\) bytes for \([0-9]*\) bytes.*access logs peak \([0-9]*\) bytes.*/\1 \2 \3/p' \
              "$rc.err" | awk '$2 > 0 { s = $1 / $2; l = $3 / $2; if (s > ms) ms = s; if (l > ml) ml = l }
                               END { if (ms) printf "%.2f %.2f", ms, ml; else print "n/a n/a" }')
        modes+=("$(awk -v b="$b" -v s1="${s1:-}" -v d="${sdet:-}" -v r="${src:-}" -v sh="${shx:-n/a n/a}" 'BEGIN {
            split(sh, m, " ")
            printf "%-10s %10s %10s %10s %8s %8s %9s %7s", b, s1, (d == "" ? "n/a" : d), (r == "" ? "n/a" : r), \
                (s1 > 0 && d != "") ? sprintf("%.2f", d / s1) : "n/a", (s1 > 0 && r != "") ? sprintf("%.2f", r / s1) : "n/a", \
                m[1], m[2] }')")
    fi

    # 4. scaling: each tier on each worker count of BENCH_THREADS
    for n in $scaling; do
        emu "$b" interp "$n"
        emu "$b" compiled "$n"
    done
done

[ "$report_only" = 0 ] && echo ", $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) at the end" >>"$machine"
echo
echo "ptxemu benchmarks: $( (tr -d '\n' <"$machine") 2>/dev/null || echo "machine not recorded")"
echo "N = $N workers; method: docs/benchmarks.md"
echo
echo "1. interpreter (PTXEMU_TIER=interp) against single-threaded C"
printf '%-10s %12s %10s %10s %10s %9s %12s %6s\n' benchmark "Minst/s/wkr" "emu_s_1w" \
    "emu_s_Nw" "native_s" "slowdown" "overhead_MiB" check
for r in "${rows[@]}"; do echo "$r"; done
# the tensor-core GEMM in emulated flops (2 M N K per second of one worker and of all)
if [ -f "$BENCH_OUT/wmmaGemm.interp.1.err" ]; then
    awk -v s1="$(kernel_s "$BENCH_OUT/wmmaGemm.interp.1")" -v sn="$(kernel_s "$BENCH_OUT/wmmaGemm.interp.$N")" \
        -v c1="$(kernel_s "$BENCH_OUT/wmmaGemm.compiled.1")" -v cn="$(kernel_s "$BENCH_OUT/wmmaGemm.compiled.$N")" 'BEGIN {
        f = 2 * 512 * 512 * 512
        if (s1 > 0 && sn > 0)
            printf "wmmaGemm (512x512x512): %.3f GFLOP/s emulated with one worker, %.3f with N (interpreter)\n", \
                f / s1 / 1e9, f / sn / 1e9
        if (c1 > 0 && cn > 0)
            printf "                        %.3f GFLOP/s with one worker, %.3f with N (compiled tier)\n", \
                f / c1 / 1e9, f / cn / 1e9 }'
fi
echo
echo "2. both tiers on N = $N workers against C with OpenMP on $N threads (x = emulator / OpenMP);"
echo "   the compiled tier on one worker against single-threaded C; compile_s: its compile latency"
echo "   (cold cache minus warm cache, first launch), hit_s: a warm first launch's cost"
printf '%-10s %9s %9s %9s %8s %8s %10s %9s %9s %8s %9s %9s %s\n' benchmark interp_s comp_s omp_s \
    interp_x comp_x "c_Mi/s/w" comp_s_1w native_1t comp_1w_x compile_s hit_s check
for r in "${tiers[@]}"; do echo "$r"; done

if [ "$BENCH_TOOLS" != 0 ]; then
    echo
    echo "3. deterministic mode (PTXEMU_SEED=1) and race checking (PTXEMU_RACECHECK=1), one thread,"
    echo "   against the one-worker interpreted run of the same process run (x = ratio); race"
    echo "   checking's shadow and access-log peaks as multiples of the checked allocations"
    printf '%-10s %10s %10s %10s %8s %8s %9s %7s\n' benchmark "par_1w_s" "det_s" "race_s" "det_x" "race_x" "shadow_x" "logs_x"
    for r in "${modes[@]}"; do echo "$r"; done
fi

if [ -n "$scaling" ]; then
    echo
    echo "4. scaling: kernel seconds on n workers (OpenMP: n threads) and efficiency t1 / (n * tn)"
    echo "   (t1: the smallest n of the list); comp/omp: the compiled tier over OpenMP at each n"
    hdr=$(for n in $scaling; do printf ' %9s' "s@$n"; done; for n in $scaling; do printf ' %6s' "e@$n"; done)
    printf '%-10s %-9s%s\n' benchmark tier "$hdr"
    for b in $benches; do
        for tier in interp compiled omp comp/omp; do
            vals=""
            for n in $scaling; do
                case $tier in
                    omp) v=$(native_s "$b" "$n") ;;
                    comp/omp) v=$(awk -v c="$(kernel_s "$BENCH_OUT/$b.compiled.$n")" -v o="$(native_s "$b" "$n")" \
                                  'BEGIN { if (c > 0 && o > 0) printf "%.2f", c / o }') ;;
                    *) v=$(kernel_s "$BENCH_OUT/$b.$tier.$n") ;;
                esac
                vals="$vals ${v:-n/a}"
            done
            awk -v b="$b" -v tier="$tier" -v ns="$scaling" -v vs="$vals" 'BEGIN {
                k = split(ns, n, " "); split(vs, v, " ")
                line = sprintf("%-10s %-9s", b, tier)
                for (i = 1; i <= k; i++) line = line sprintf(" %9s", v[i])
                if (tier != "comp/omp")
                    for (i = 1; i <= k; i++)
                        line = line sprintf(" %6s", (v[1] > 0 && v[i] > 0) ? sprintf("%.2f", v[1] * n[1] / (n[i] * v[i])) : "n/a")
                print line }'
        done
    done
fi
exit $status
