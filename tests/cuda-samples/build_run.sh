#!/bin/bash
# build_run.sh - builds NVIDIA's CUDA samples of the driver-API and NVRTC family from a checkout
# of github.com/NVIDIA/cuda-samples the default way (nvcc, static runtime, no -arch: kernels
# files as the samples' CMake rules make them) and runs each once, writing OUTDIR/NAME.out
# (stdout and stderr, then `exit=STATUS`). Run on a GPU machine it records what the GPU prints;
# with RUNNER="path/to/ptxemu" it runs the same binaries on ptxemu.
#
# Usage: tests/cuda-samples/build_run.sh SAMPLES_DIR OUTDIR [NAME...]
# The samples' sources are not part of ptxemu; only their recorded outputs are
# (tests/expected/cuda-samples).
set -u
src=${1:?usage: build_run.sh SAMPLES_DIR OUTDIR [NAME...]}
out=${2:?usage: build_run.sh SAMPLES_DIR OUTDIR [NAME...]}
shift 2
src=$(cd "$src" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
RUNNER=${RUNNER:-}
TIMEOUT=${TIMEOUT:-300}
build=${BUILD_DIR:-$out/build}
mkdir -p "$build"

# NAME  DIR(under Samples/)  KERNEL-RULE  [EXTRA host source, relative to SAMPLES_DIR]
#   fatbin:FILE.cu:OUT   nvcc -fatbin;  ptx:FILE.cu:OUT  nvcc -ptx;  copy:FILE  copied next to
#   the program (NVRTC compiles it at run time);  - nothing
samples="
vectorAddDrv 0_Introduction/vectorAddDrv fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin
matrixMulDrv 0_Introduction/matrixMulDrv fatbin:matrixMul_kernel.cu:matrixMul_kernel64.fatbin
simpleDrvRuntime 0_Introduction/simpleDrvRuntime fatbin:vectorAdd_kernel.cu:vectorAdd_kernel64.fatbin
ptxjit 3_CUDA_Features/ptxjit ptx:ptxjit_kernel.cu:ptxjit_kernel64.ptx
deviceQueryDrv 1_Utilities/deviceQueryDrv -
matrixMulDynlinkJIT 0_Introduction/matrixMulDynlinkJIT -
vectorAdd_nvrtc 0_Introduction/vectorAdd_nvrtc copy:vectorAdd_kernel.cu
matrixMul_nvrtc 0_Introduction/matrixMul_nvrtc copy:matrixMul_kernel.cu
clock_nvrtc 0_Introduction/clock_nvrtc copy:clock_kernel.cu
simpleAssert_nvrtc 0_Introduction/simpleAssert_nvrtc copy:simpleAssert_kernel.cu
simpleAtomicIntrinsics_nvrtc 0_Introduction/simpleAtomicIntrinsics_nvrtc copy:simpleAtomicIntrinsics_kernel.cuh
inlinePTX_nvrtc 2_Concepts_and_Techniques/inlinePTX_nvrtc copy:inlinePTX_kernel.cu
BlackScholes_nvrtc 5_Domain_Specific/BlackScholes_nvrtc copy:BlackScholes_kernel.cuh
binomialOptions_nvrtc 5_Domain_Specific/binomialOptions_nvrtc copy:binomialOptions_kernel.cu
quasirandomGenerator_nvrtc 5_Domain_Specific/quasirandomGenerator_nvrtc copy:quasirandomGenerator_kernel.cu
memMapIPCDrv 3_CUDA_Features/memMapIPCDrv ptx:memMapIpc_kernel.cu:memMapIpc_kernel64.ptx Common/helper_multiprocess.cpp
simpleTextureDrv 0_Introduction/simpleTextureDrv fatbin:simpleTexture_kernel.cu:simpleTexture_kernel64.fatbin
jitLto 4_CUDA_Libraries/jitLto -
"

status=0
while read -r name dir rule extra; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    sdir=$src/Samples/$dir
    bdir=$build/$name
    mkdir -p "$bdir"
    log=$out/$name.build.log
    hostsrc=$(cd "$sdir" && ls *.cpp *.c 2>/dev/null | tr '\n' ' ')
    [ -n "$extra" ] && hostsrc="$hostsrc $src/$extra"
    libs="-lcuda"
    grep -rlq nvrtc "$sdir" 2>/dev/null && libs="$libs -lnvrtc"
    grep -rlq nvJitLink "$sdir" 2>/dev/null && libs="$libs -lnvJitLink"
    grep -lq 'dlopen' "$sdir"/*.c* 2>/dev/null && libs="$libs -ldl"
    ok=1
    # shellcheck disable=SC2086  # lists of files and flags
    (cd "$sdir" && "$NVCC" -I"$src/Common" -I"$sdir" -o "$bdir/$name" $hostsrc $libs) >"$log" 2>&1 || ok=0
    case $rule in
        fatbin:*|ptx:*)
            kind=${rule%%:*} rest=${rule#*:}
            kfile=${rest%%:*} kout=${rest#*:}
            (cd "$sdir" && "$NVCC" -I"$src/Common" -Wno-deprecated-gpu-targets -"$kind" \
                -o "$bdir/$kout" "$kfile") >>"$log" 2>&1 || ok=0 ;;
        copy:*)   # NVRTC reads the kernel, its headers and cooperative_groups at run time
            cp "$sdir/${rule#copy:}" "$bdir/" || ok=0
            cp "$sdir"/*.h "$sdir"/*.cuh "$bdir/" 2>/dev/null
            inc=$(dirname "$(dirname "$NVCC")")/include
            cp -r "$inc"/cooperative_groups* "$bdir/" 2>/dev/null
            cp -r "$inc"/cccl/nv "$inc"/cccl/cuda "$bdir/" 2>/dev/null ;;
    esac
    [ -d "$sdir/data" ] && cp -r "$sdir/data" "$bdir/"
    if [ $ok = 0 ]; then
        echo "$name: build failed (see $log)"
        { echo "build failed"; echo "exit=build"; } >"$out/$name.out"
        status=1
        continue
    fi
    # shellcheck disable=SC2086  # RUNNER may be a command with options
    (cd "$bdir" && timeout "$TIMEOUT" $RUNNER "./$name") >"$out/$name.out" 2>&1 </dev/null
    rc=$?
    echo "exit=$rc" >>"$out/$name.out"
    echo "$name: exit=$rc"
done <<<"$samples"
exit $status
