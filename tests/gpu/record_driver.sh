#!/bin/bash
# record_driver.sh - on a machine with a real GPU and driver: records the facts ptxemu's
# libcuda.so.1 is built from, into $OUT/driver_record.tar.gz:
#   calls/*.log    what NVIDIA's static runtime asks of the driver, call by call (drvlog.c),
#                  for a few programs built the default way (nvcc -o app app.cu)
#   facts/*.txt    driver_facts.c: calls before cuInit, every device attribute, every error
#                  code's name and string, context defaults, and cuGetProcAddress's answer for
#                  every (name, version) of cudaTypedefs.h (and the profiler, GL,
#                  EGL and VDPAU typedef headers) under each flag
#   samples/*.out  ptxemu's samples built the default way, run on the GPU
#   cuda-samples/  NVIDIA's driver-API and NVRTC samples (tests/cuda-samples/build_run.sh),
#                  when a cuda-samples checkout is given as CUDA_SAMPLES
#   RECORDED_ON.txt
# Usage: OUT=/some/dir [CUDA_SAMPLES=dir] [PARTS="calls facts samples"] bash tests/gpu/record_driver.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/driver_record}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
work=$(mktemp -d)
rec=$work/rec
mkdir -p "$rec/calls" "$rec/facts" "$rec/samples" "$OUT"
REAL=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')
{
    nvidia-smi --query-gpu=name,driver_version --format=csv
    echo "nvcc: $("$NVCC" --version | tail -n 2 | head -n 1)"
    echo "driver library: $REAL"
    echo "date: $(date -u +%Y-%m-%d)"
} >"$rec/RECORDED_ON.txt"

# ---- the logging driver and the programs it watches ----
dl=$work/dl
mkdir -p "$dl"
bash "$ROOT/tests/gpu/drvlog/gen.sh" "$CUDA/lib64/stubs/libcuda.so" "$dl"
gcc -O1 -shared -fPIC -I"$dl" -I"$ROOT" -o "$dl/libcuda.so.1" "$ROOT/tests/gpu/drvlog/drvlog.c" \
    "$ROOT/runtime/driver/integrity.c" "$dl/stubs.S" \
    -ldl -lpthread -Wl,-soname,libcuda.so.1 || echo "drvlog: build failed" >>"$rec/RECORDED_ON.txt"
d=$ROOT/tests/gpu/drvlog
b=$work/bin
mkdir -p "$b"
"$NVCC" -o "$b/vectorAdd" "$ROOT/samples/vectorAdd.cu"
"$NVCC" -o "$b/probe" "$d/probe_static.cu"
"$NVCC" -arch=sm_90 -o "$b/probe_sm90" "$d/probe_static.cu"
"$NVCC" -rdc=true -o "$b/rdc" "$d/rdc_main.cu" "$d/rdc_lib.cu"
"$NVCC" --cudart shared -o "$b/probe_shared" "$d/probe_static.cu"
runlog() {   # NAME PROGRAM ARGS...
    local name=$1
    shift
    DRVLOG_REAL=$REAL DRVLOG_OUT=$rec/calls/$name.log LD_LIBRARY_PATH=$dl timeout 120 "$@" \
        >"$rec/calls/$name.out" 2>&1
    echo "exit=$?" >>"$rec/calls/$name.out"
    timeout 120 "$@" >"$rec/calls/$name.plain.out" 2>&1
    echo "exit=$?" >>"$rec/calls/$name.plain.out"
}
PARTS=${PARTS:-calls facts samples}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
part calls && {
runlog vectorAdd "$b/vectorAdd"
runlog probe "$b/probe"
runlog probe_fault "$b/probe" fault
runlog probe_sm90 "$b/probe_sm90"
runlog probe_shared "$b/probe_shared"
runlog rdc "$b/rdc"
}

# ---- driver facts ----
part facts && {
gcc -I"$CUDA/include" -o "$b/driver_facts" "$ROOT/tests/gpu/driver_facts.c" \
    -L"$CUDA/lib64/stubs" -lcuda -ldl
for s in init attrs errors ctx; do "$b/driver_facts" $s >"$rec/facts/$s.txt" 2>&1; done
cat "$CUDA"/include/cuda{,Profiler,GL,EGL,VDPAU}Typedefs.h |
    grep -oE 'PFN_cu[A-Za-z0-9_]+_v[0-9]+(_ptds|_ptsz)?\)' |
    sed -E 's/\)$//; s/^PFN_//; s/_v([0-9]+)(_pt..)?$/ \1/' | sort -u >"$work/names"
awk '{print $1}' "$work/names" | sort -u | sed 's/$/ 13000/' >>"$work/names"
sort -u "$work/names" -o "$work/names"
"$b/driver_facts" procs <"$work/names" >"$rec/facts/procs.txt" 2>&1
nm -D --defined-only "$REAL" | awk '{print $3}' | sort >"$rec/facts/exports.txt"
}

# ---- ptxemu's samples, built the default way ----
part samples && for f in "$ROOT"/samples/*.cu; do
    n=$(basename "$f" .cu)
    if "$NVCC" -o "$b/s_$n" "$f" >/dev/null 2>&1; then flags=default
    else "$NVCC" -arch=sm_90a -o "$b/s_$n" "$f" >/dev/null 2>&1; flags=sm_90a; fi
    (cd "$b" && timeout 120 "./s_$n") >"$rec/samples/$n.out" 2>"$rec/samples/$n.err"
    echo "exit=$?" >>"$rec/samples/$n.out"
    echo "$n: $flags" >>"$rec/samples/flags.txt"
done

# ---- NVIDIA's samples of the driver-API and NVRTC family ----
if [ -n "${CUDA_SAMPLES:-}" ]; then
    BUILD_DIR=$work/csb bash "$ROOT/tests/cuda-samples/build_run.sh" "$CUDA_SAMPLES" \
        "$rec/cuda-samples" ${CUDA_SAMPLES_NAMES:-} >"$rec/cuda-samples.txt" 2>&1
    rm -rf "$rec/cuda-samples/build"
    # driver-API programs over the static runtime, watched by the logging driver
    for n in simpleDrvRuntime ptxjit vectorAdd_nvrtc; do
        DRVLOG_REAL=$REAL DRVLOG_OUT=$rec/calls/$n.log LD_LIBRARY_PATH=$dl \
            bash -c "cd $work/csb/$n && ./$n" >"$rec/calls/$n.out" 2>&1
    done
fi
tar -C "$work" -czf "$OUT/driver_record.tar.gz" rec
rm -rf "$work"
