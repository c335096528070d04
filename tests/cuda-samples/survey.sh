#!/bin/bash
# survey.sh - how many of NVIDIA's CUDA samples run, built the default way (nvcc with no -arch:
# the static runtime and compute_75 PTX). Not a test: a measurement (docs/driver.md). For each
# sample directory under the given categories it compiles the sources that no other source
# includes, with -lcuda / -lnvrtc / -lnvJitLink when the sources use them (again with -rdc=true
# -lcudadevrt when nvcc says device-side launches need it; with OpenMP for those that include omp.h;
# with mpicxx as the host compiler for those that include mpi.h, which run as two ranks under
# mpirun; with the src/ and inc/ folders of those laid out so), skips samples that need graphics,
# MPI where it is not installed, IPC or a CUDA library beside the runtime and driver (saying
# which), runs each under
# RUNNER (e.g. the ptxemu launcher) with a time limit, and prints one line per sample:
# NAME runs|waived|fails (exit N)|timeout|build-failed|skipped (needs WHAT), then totals. Samples for several GPUs run with PTXEMU_DEVICES=4. A sample "runs" when it exits 0 (or 2, the samples' "waived" when a feature is
# absent, counted apart).
#
# With JOBS=N (default 1) samples are built and run N at a time; the lines still come in the
# samples' order, each as soon as those before it are done. FIRST="NAME..." starts those samples
# before the others (the long ones, so that they do not start last). Each sample's run time in
# seconds is kept in OUTDIR/NAME.time (whole program, under RUNNER, with its limit TIMEOUT).
#
# Usage: RUNNER=path/to/ptxemu tests/cuda-samples/survey.sh SAMPLES_DIR OUTDIR [CATEGORY...]
set -u
src=${1:?usage: survey.sh SAMPLES_DIR OUTDIR [CATEGORY...]}
out=${2:?usage: survey.sh SAMPLES_DIR OUTDIR [CATEGORY...]}
shift 2
[ $# -eq 0 ] && set -- 0_Introduction 1_Utilities 2_Concepts_and_Techniques 3_CUDA_Features 4_CUDA_Libraries 5_Domain_Specific 6_Performance
src=$(cd "$src" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
RUNNER=${RUNNER:-}
TIMEOUT=${TIMEOUT:-120}
inc=$(dirname "$(dirname "$NVCC")")/include
JOBS=${JOBS:-1}
FIRST=${FIRST:-}
verdicts=$out/verdicts   # NAME: the sample's kind of verdict, then its line
rm -rf "$verdicts"
mkdir -p "$verdicts"
# verdict KIND LINE: the sample's verdict (kind: ok, waived, failed, skipped, nobuild)
verdict() { printf '%s\n%s\n' "$1" "$2" >"$verdicts/$name.tmp" && mv "$verdicts/$name.tmp" "$verdicts/$name"; }
# copy what the sample reads next to it, run it under RUNNER, and give the verdict
run_sample() {
    cp "$dir"/*.cu "$dir"/*.cuh "$dir"/*.h "$bdir/" 2>/dev/null
    [ -d "$dir/data" ] && cp -r "$dir/data" "$bdir/"
    cp -r "$inc"/cooperative_groups* "$inc"/cccl/nv "$inc"/cccl/cuda "$bdir/" 2>/dev/null
    # shellcheck disable=SC2086  # RUNNER may carry options
    local t0 rc
    t0=$(date +%s.%N)
    (cd "$bdir" && PTXEMU_DEVICES=$devices timeout "$TIMEOUT" $mpirun $RUNNER "./$name") >"$out/$name.out" 2>&1 </dev/null
    rc=$?
    echo "$t0 $(date +%s.%N)" | awk '{printf "%.2f\n", $2 - $1}' >"$out/$name.time"
    case $rc in
        0) verdict ok "$name runs" ;;
        2) verdict waived "$name waived" ;;
        124) verdict failed "$name timeout" ;;
        *) verdict failed "$name fails (exit $rc)" ;;
    esac
}
# What a sample needs that is outside the CUDA runtime and driver (empty: nothing): its
# includes anywhere, its calls in the program's own sources. Multi-GPU and peer-access
# samples run (with PTXEMU_DEVICES), and so do those sharing VMM allocations between
# processes (POSIX file descriptors); the legacy IPC handles and pool export are not there.
needs() {
    # the sample's own files and the headers of Common/ they include
    local common
    common=$(grep -rhoE '#include *[<"][A-Za-z0-9_.]+[>"]' "$dir" 2>/dev/null | sed -E 's/#include *[<"]([^>"]+)[>"]/\1/' |
             sort -u | while read -r h; do [ -f "$src/Common/$h" ] && echo "$src/Common/$h"; done)
    inc() { grep -rlqE "#include *[<\"]($1)" "$dir" $common --include='*.cu' --include='*.cpp' \
                --include='*.h' --include='*.cuh' --include='*.hxx' --include='*.hpp' 2>/dev/null; }
    if inc '(GL|EGL|GLFW)/|vulkan/|d3d1[12]|dxgi|nvscisync|nvscibuf'; then echo "graphics interop (OpenGL/EGL/Vulkan/Direct3D/NvSci)"
    elif inc 'mpi\.h' && ! { command -v mpicxx && command -v mpirun; } >/dev/null; then echo "MPI (mpicxx and mpirun)"
    elif grep -rlqE '\bcudaIpc[A-Z][A-Za-z]*\(|\bcuIpc[A-Z][A-Za-z]*\(|MemPool(Export|Import)[A-Za-z]*\(' \
             "$dir" --include='*.cu' --include='*.cpp' 2>/dev/null; then echo "multi-process IPC"
    # cuRAND's device API (curand_kernel.h alone) is headers, compiled into the kernels
    elif inc '(cublas|cufft|cusparse|cusolver|npp|nvjpeg|cudla|nvml)[A-Za-z0-9_]*\.h|curand\.h'; then
        echo "a CUDA library ($(grep -rohE '#include *[<"](cublas|cufft|cusparse|cusolver|npp|nvjpeg|cudla|nvml|curand[.])' "$dir" $common 2>/dev/null | sed 's/[.]$//' |
                               sed 's/.*[<"]//' | sort -u | tr '\n' ' ' | sed 's/ $//'))"
    elif [ -z "$(ls "$1"*.cu "$1"*.cpp "$1"src/*.cu "$1"src/*.cpp 2>/dev/null)" ]; then echo "sources outside its folder"
    fi
}
# survey_sample DIR: build and run the sample of DIR, leaving its verdict in $verdicts
survey_sample() {
    dir=$1
    name=$(basename "$dir")
    bdir=$out/build/$name
    reason=$(needs "$dir")
    if [ -n "$reason" ]; then
        verdict skipped "$name skipped (needs $reason)"
        return
    fi
    # samples for several GPUs (peer access, multi-GPU) get four emulated devices
    devices=1
    grep -rlqE '\bcuda(DeviceEnablePeerAccess|DeviceCanAccessPeer|DeviceGetP2PAttribute)\(|\bcuCtxEnablePeerAccess\(|MultiGPU|multiGPU' \
        "$dir" --include='*.cu' --include='*.cpp' 2>/dev/null && devices=4
    mpirun=
    if grep -rlqE '#include *[<"]mpi\.h' "$dir" 2>/dev/null; then
        mpirun="mpirun -np 2 --oversubscribe"
        [ "$(id -u)" = 0 ] && mpirun="$mpirun --allow-run-as-root"
    fi
    if [ "${REUSE:-0}" = 1 ] && [ -x "$bdir/$name" ]; then
        run_sample
        return
    fi
    rm -rf "$bdir"
    mkdir -p "$bdir"
    libs= nvrtc=0
    grep -rlqE '\bcu[A-Z][A-Za-z]+\(' "$dir" --include='*.cpp' --include='*.cu' 2>/dev/null && libs="$libs -lcuda"
    grep -rlq 'nvrtc' "$dir" 2>/dev/null && libs="$libs -lnvrtc" nvrtc=1
    grep -rlq 'nvJitLink' "$dir" --include='*.cpp' --include='*.cu' 2>/dev/null && libs="$libs -lnvJitLink"
    # modules a driver-API program loads from files (X_kernel64.fatbin from X_kernel.cu), as
    # the samples' CMake files build them: compiled here, not linked into the program
    modules=$(grep -ohE '[A-Za-z0-9_]+64\.(fatbin|ptx)' "$dir"*.cpp "$dir"*.cu 2>/dev/null | sort -u)
    built=ok
    for m in $modules; do
        kernel=${m%64.*}.cu
        [ -f "$dir$kernel" ] || continue
        (cd "$dir" && "$NVCC" -I"$src/Common" "-${m##*.}" -o "$bdir/$m" "$kernel") \
            >>"$bdir/build.log" 2>&1 || built=failed
    done
    files=
    # OpenMP is the host compiler's (libgomp), as the samples' CMake files ask for it; an
    # MPI sample builds with mpicxx as the host compiler and runs as two ranks (one GPU)
    grep -rlqE '#include *[<"]omp\.h' "$dir" 2>/dev/null && libs="$libs -Xcompiler -fopenmp"
    [ -n "$mpirun" ] && libs="$libs -ccbin mpicxx"
    for f in "$dir"*.cu "$dir"*.cpp "$dir"*.c "$dir"src/*.cu "$dir"src/*.cpp "$dir"src/*.c; do
        [ -f "$f" ] || continue
        b=$(basename "$f")
        # a source another one includes is compiled there, not on its own; an NVRTC
        # program compiles its .cu files itself, at run time
        grep -lq "#include *[<\"]$b[>\"]" "$dir"*.cu "$dir"*.cpp "$dir"*.h "$dir"*.cuh "$dir"src/* "$dir"inc/* 2>/dev/null && continue
        case $b in *.cu) [ $nvrtc = 1 ] && continue ;; esac
        echo "$modules" | grep -qx "${b%.cu}64\.\(fatbin\|ptx\)" && continue
        files="$files $f"
    done
    # shellcheck disable=SC2086  # lists of files and flags
    build() { (cd "$dir" && "$NVCC" -I"$src/Common" -I"$dir" -I"$dir"inc -o "$bdir/$name" $files $libs "$@") \
                  >>"$bdir/build.log" 2>&1; }
    # dynamic parallelism needs relocatable device code and the device runtime, as the
    # samples' CMake files (separable compilation) give it
    if [ $built = failed ] ||
       ! { build || { grep -q 'requires separate compilation mode' "$bdir/build.log" &&
                      build -rdc=true -lcudadevrt; }; }; then
        verdict nobuild "$name build-failed"
        return
    fi
    run_sample
}
# the samples' folders in order, and the order they start in (FIRST's, then the others)
order=()
for cat in "$@"; do
    for dir in "$src/Samples/$cat"/*/; do
        [ -d "$dir" ] && order+=("$dir")   # a category this checkout lacks has none
    done
done
start=()
for f in $FIRST; do
    for dir in "${order[@]}"; do [ "$(basename "$dir")" = "$f" ] && start+=("$dir"); done
done
for dir in "${order[@]}"; do
    case " $FIRST " in *" $(basename "$dir") "*) ;; *) start+=("$dir") ;; esac
done
ran=0 ok=0 waived=0 failed=0 skipped=0 nobuild=0 shown=0
# show_done: print the verdicts of the samples, in order, up to the first not done yet
show_done() {
    local kind line
    while [ $shown -lt ${#order[@]} ]; do
        name=$(basename "${order[$shown]}")
        [ -f "$verdicts/$name" ] || return 0
        { read -r kind; read -r line; } <"$verdicts/$name"
        echo "$line"
        case $kind in
            ok) ran=$((ran + 1)); ok=$((ok + 1)) ;;
            waived) ran=$((ran + 1)); waived=$((waived + 1)) ;;
            failed) ran=$((ran + 1)); failed=$((failed + 1)) ;;
            skipped) skipped=$((skipped + 1)) ;;
            nobuild) nobuild=$((nobuild + 1)) ;;
        esac
        shown=$((shown + 1))
    done
}
for dir in "${start[@]}"; do
    if [ "$JOBS" -le 1 ]; then
        survey_sample "$dir"
    else
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; show_done; done
        survey_sample "$dir" &
    fi
    show_done
done
wait
show_done
echo "built and run: $ran; run to success: $ok; waived (a feature absent): $waived; failed: $failed; did not build: $nobuild; skipped: $skipped"
