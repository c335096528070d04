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
ran=0 ok=0 waived=0 failed=0 skipped=0 nobuild=0
# copy what the sample reads next to it, run it under RUNNER, and count the verdict
run_sample() {
    cp "$dir"/*.cu "$dir"/*.cuh "$dir"/*.h "$bdir/" 2>/dev/null
    [ -d "$dir/data" ] && cp -r "$dir/data" "$bdir/"
    cp -r "$inc"/cooperative_groups* "$inc"/cccl/nv "$inc"/cccl/cuda "$bdir/" 2>/dev/null
    # shellcheck disable=SC2086  # RUNNER may carry options
    (cd "$bdir" && PTXEMU_DEVICES=$devices timeout "$TIMEOUT" $mpirun $RUNNER "./$name") >"$out/$name.out" 2>&1 </dev/null
    rc=$?
    ran=$((ran + 1))
    case $rc in
        0) ok=$((ok + 1)); verdict=runs ;;
        2) waived=$((waived + 1)); verdict=waived ;;
        124) failed=$((failed + 1)); verdict=timeout ;;
        *) failed=$((failed + 1)); verdict="fails (exit $rc)" ;;
    esac
    echo "$name $verdict"
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
for cat in "$@"; do
    for dir in "$src/Samples/$cat"/*/; do
        [ -d "$dir" ] || continue   # a category this checkout lacks
        name=$(basename "$dir")
        bdir=$out/build/$name
        reason=$(needs "$dir")
        if [ -n "$reason" ]; then
            echo "$name skipped (needs $reason)"
            skipped=$((skipped + 1))
            continue
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
            continue
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
            echo "$name build-failed"
            nobuild=$((nobuild + 1))
            continue
        fi
        run_sample
    done
done
echo "built and run: $ran; run to success: $ok; waived (a feature absent): $waived; failed: $failed; did not build: $nobuild; skipped: $skipped"
