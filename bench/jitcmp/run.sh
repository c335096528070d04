#!/bin/bash
# run.sh - builds the harness and records everything docs/jit-backends.md reports, into
# $JITCMP_OUT (default bench/jitcmp/out): the machine, package sizes, library load costs,
# compile latency and run time of every backend variant on the three kernels, the
# vectorization of the generated code, and callgrind instruction counts.
#
#   bench/jitcmp/run.sh [step...]    steps: machine packages load small big vec count
#                                    (default: all of them, in that order)
# Needs libgccjit-12-dev, llvm-15-dev, valgrind, binutils. Takes about an hour on a shared
# 2-core machine (the GCC compiles of the 2000-instruction kernel dominate).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${JITCMP_OUT:-$here/out}
mkdir -p "$out/objects" "$out/cg"
export JITCMP_CACHE=$out/cache
make -s -C "$here" all || exit 1
steps=${*:-machine packages load small big vec count}
j=$here/jitcmp

has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }

if has machine; then
    {
        date -u; uname -srm
        lscpu | grep -E '^(Model name|CPU\(s\)|L1d|L2|L3)'
        lscpu | grep -o -w -E 'avx2|avx512f|avx512bw|fma' | sort -u | tr '\n' ' '; echo
        cc --version | head -1
        llvm-config-15 --version
        echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    } >"$out/machine.txt"
fi

if has packages; then
    # installed sizes (KiB) of what each backend needs at run time and to build
    dpkg-query -W -f='${Package} ${Version} ${Installed-Size}\n' \
        gcc-12 cpp-12 binutils libgcc-12-dev libc6-dev libgccjit0 libgccjit-12-dev \
        libllvm15 llvm-15-dev llvm-15 llvm-15-tools libclang-cpp15 >"$out/packages.txt" 2>&1
    for p in libgccjit0 libllvm15; do
        echo "== $p depends: $(dpkg-query -W -f='${Depends}' $p)"
    done >>"$out/packages.txt"
    ls -lL /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1 /usr/lib/x86_64-linux-gnu/libgccjit.so.0 \
        >>"$out/packages.txt"
fi

if has load; then
    # a fresh process each time: what loading the library costs a program that never compiles
    for i in 1 2 3 4 5 6 7; do
        "$here/loadcost" /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1 \
            /usr/lib/x86_64-linux-gnu/libgccjit.so.0 /usr/lib/x86_64-linux-gnu/libzstd.so.1
    done >"$out/load.txt"
fi

if has small; then
    # saxpy and matmul: every variant, 5 cold compiles each, 15 alternating run rounds
    nice -n 10 "$j" --scale 8 --reps 5 --rounds 15 --kernel saxpy --kernel matmul \
        >"$out/small.txt" 2>"$out/small.err"
fi

if has big; then
    # the 2000-instruction kernel: one cold compile of each GCC variant (tens of seconds
    # each), three of each LLVM variant
    nice -n 10 "$j" --scale 4 --reps 1 --rounds 7 --kernel big --backend cc --backend gccjit \
        >"$out/big-gcc.txt" 2>"$out/big-gcc.err"
    nice -n 10 "$j" --scale 4 --reps 3 --rounds 7 --kernel big --backend llvm \
        >"$out/big-llvm.txt" 2>"$out/big-llvm.err"
fi

if has vec; then
    # what each backend made of the lane loops: the generated code kept, counted by register
    # width, gathers, calls and scalar float instructions; GCC's own vectorizer reports
    rm -f "$out"/objects/*
    JITCMP_KEEP=$out/objects JITCMP_GCCJIT_DUMP=$out/objects JITCMP_GCCJIT_VERBOSE=1 \
        nice -n 10 "$j" --scale 1 --reps 1 --rounds 1 --kernel saxpy --kernel matmul \
        >"$out/vec-run.txt" 2>"$out/vec-gccjit-report.txt"
    "$j" --dump "$out/objects" >/dev/null
    for k in saxpy matmul; do
        sed 's/__attribute__((target("avx2,fma")))//' "$out/objects/$k.c" >"$out/objects/$k.loops.c"
        nice -n 10 cc -O2 -march=native -ffp-contract=off -fPIC -shared -fopt-info-vec-all \
            -o /dev/null "$out/objects/$k.loops.c" 2>"$out/objects/$k.cc-report.txt"
        echo "$k cc -O2 native: loops vectorized $(grep -c 'optimized: loop vectorized' "$out/objects/$k.cc-report.txt")," \
             "not $(grep -c "missed: couldn't vectorize loop" "$out/objects/$k.cc-report.txt")"
    done >"$out/vec.txt"
    echo "gccjit (all variants, both kernels): loops vectorized $(grep -c 'optimized: loop vectorized' "$out/vec-gccjit-report.txt")," \
         "not $(grep -c "missed: couldn't vectorize loop" "$out/vec-gccjit-report.txt")" >>"$out/vec.txt"
    for f in "$out"/objects/*.so "$out"/objects/*.o; do
        [ -f "$f" ] || continue
        k=$(basename "$f"); k=${k%%.*}
        [ "$k" = gccjit ] && continue
        objdump -d --no-show-raw-insn --disassemble="block_$k" "$f" | awk -v f="$(basename "$f")" '
            /^ +[0-9a-f]+:\t/ { n++
                if ($0 ~ /%zmm/) z++; else if ($0 ~ /%ymm/) y++
                if ($0 ~ /gather|scatter/) g++
                if ($0 ~ /\tcall/) c++
                if ($0 ~ /\tv?[a-z0-9]+ss[ \t]/) s++ }
            END { printf "%-34s insts=%5d zmm=%5d ymm=%5d gather/scatter=%3d calls=%3d scalar_f32=%4d\n",
                  f, n, z, y, g, c, s }'
    done >>"$out/vec.txt"
fi

if has count; then
    # callgrind instruction counts of the run alone (valgrind runs no AVX-512: AVX2 variants,
    # and the baseline built for AVX2)
    rm -f "$out"/cg/*
    nice -n 10 valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out/cg/cg.%p" \
        "$here/jitcmp-avx2" --count --scale 1 --kernel saxpy --kernel matmul \
        --backend "cc -O2 avx2" --backend "cc vec -O2 avx2" --backend "gccjit -O2 avx2" \
        --backend "llvm -O2 avx2" >"$out/count-run.txt" 2>"$out/count-run.err"
    for f in "$out"/cg/cg.*.*; do
        sed -n -e 's/^desc: Trigger: Client Request: //p' -e 's/^summary: /Ir=/p' "$f" | paste -sd' '
    done | sort >"$out/count.txt"
fi
echo "run.sh: results in $out"
