#!/bin/sh
# run_launcher_tests.sh - the ptxemu launcher's own behaviour: programs whose kernels cannot
# run here are refused before they start, saying why and how to rebuild (SASS only; PTX only
# for a newer architecture); PTXEMU_CHECK=0 lets them start anyway; --cudart nvidia runs a
# --cudart shared program with NVIDIA's libcudart.so.13 over ptxemu's libcuda.so.1;
# --devices [--json] prints the emulated devices, PTXEMU_DEVICES of them; an access just past
# an allocation warns, or faults with PTXEMU_STRICT_BOUNDS=1; --timeout stops a kernel that
# runs too long.
# Exit: 0 all passed, 1 some failed, 77 (automake "skipped") without nvcc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "run_launcher_tests: no nvcc: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-launcher.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); [ -f "$tmp/err" ] && head -n 5 "$tmp/err"; }
src=$srcdir/samples/vectorAdd.cu

# SASS only: refused, with the architectures found and the flags to use
"$NVCC" -gencode arch=compute_90,code=sm_90 -o "$tmp/sass" "$src" || exit 99
"$ptxemu" "$tmp/sass" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q "sass cannot run on ptxemu: the program carries only SASS for sm_90" "$tmp/err" &&
   grep -q "rebuild it with -arch=sm_90" "$tmp/err" && [ ! -s "$tmp/out" ]; then
    ok "a SASS-only program is refused before it starts"
else
    bad "a SASS-only program is refused before it starts (exit $rc)"
fi

# No kernels at all (a host program linked by nvcc, or one that compiles its kernels with
# NVRTC): the device-link step's cubin holds no code, and the program is not refused
cat >"$tmp/host.cpp" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
int main() { int n = 0; cudaGetDeviceCount(&n); printf("devices %d\n", n); return 0; }
EOF
"$NVCC" -o "$tmp/host" "$tmp/host.cpp" || exit 99
"$ptxemu" "$tmp/host" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -qx "devices 1" "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "a program without kernels is not refused"
else
    bad "a program without kernels is not refused (exit $rc)"
fi

# PTX only for an architecture newer than sm_90
if "$NVCC" -gencode arch=compute_100,code=compute_100 -o "$tmp/newer" "$src" 2>/dev/null; then
    "$ptxemu" "$tmp/newer" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc = 1 ] && grep -q "carries PTX only for compute_100, newer than the emulated sm_90" "$tmp/err"; then
        ok "PTX only for compute_100 is refused"
    else
        bad "PTX only for compute_100 is refused (exit $rc)"
    fi
    # a grader still gets its document, saying why
    rm -f "$tmp/refused.json"
    "$ptxemu" --report-json "$tmp/refused.json" "$tmp/newer" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc = 1 ] && grep -q '"exit_status":1,' "$tmp/refused.json" &&
       grep -q '"refused":".*carries PTX only for compute_100' "$tmp/refused.json" &&
       grep -q '"launches":\[\]' "$tmp/refused.json"; then
        ok "--report-json writes the document for a refused program"
    else
        bad "--report-json writes the document for a refused program (exit $rc)"
    fi
fi

# PTXEMU_CHECK=0: the program starts and fails by itself, in its first CUDA call
PTXEMU_CHECK=0 "$ptxemu" "$tmp/sass" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc != 0 ] && ! grep -q "cannot run on ptxemu" "$tmp/err"; then
    ok "PTXEMU_CHECK=0 skips the check"
else
    bad "PTXEMU_CHECK=0 skips the check (exit $rc)"
fi

# --cudart with a bad value
"$ptxemu" --cudart bogus "$tmp/sass" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "expected ptxemu or nvidia" "$tmp/err"; then
    ok "--cudart bogus is refused"
else
    bad "--cudart bogus is refused (exit $rc)"
fi

# --cudart nvidia: NVIDIA's shared runtime over ptxemu's driver, when the toolkit has it
"$NVCC" --cudart shared -o "$tmp/shared" "$src" || exit 99
if LD_DEBUG=libs "$ptxemu" --cudart nvidia "$tmp/shared" >"$tmp/out" 2>"$tmp/err"; then
    if grep -q "PASSED" "$tmp/out" && grep "calling init:.*libcudart.so.13" "$tmp/err" | grep -vq "runtime/.libs\|/ptxemu/" &&
       grep -q "calling init:.*driver-only/libcuda.so.1" "$tmp/err"; then
        ok "--cudart nvidia runs NVIDIA's libcudart.so.13 over ptxemu's libcuda.so.1"
    else
        bad "--cudart nvidia runs NVIDIA's libcudart.so.13 over ptxemu's libcuda.so.1"
    fi
elif grep -q "libcudart.so.13: cannot open" "$tmp/err"; then
    echo "SKIP: --cudart nvidia (NVIDIA's libcudart.so.13 is not on the library path)"
else
    bad "--cudart nvidia (exit $?)"
fi
# --devices: one H100 by default, as programs see it (its recorded PCI location, attributes)
"$ptxemu" --devices >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q '^ptxemu: 1 emulated device ' "$tmp/out" &&
   grep -q '^Device 0: "NVIDIA H100 80GB HBM3"$' "$tmp/out" &&
   grep -Eq '^  PCI bus id +0000:00:06\.0$' "$tmp/out" &&
   grep -Eq '^    multiprocessor count +132$' "$tmp/out" &&
   grep -Eq '^    compute capability major +9$' "$tmp/out" &&
   [ "$(grep -c '^    ' "$tmp/out")" -ge 140 ] && ! grep -q '^Device 1' "$tmp/out" &&
   ! grep -q '^Peer access' "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "--devices prints the one device and its attributes"
else
    bad "--devices prints the one device and its attributes (exit $rc)"
fi

# PTXEMU_DEVICES=4: four devices in consecutive PCI slots, distinct UUIDs, all peers
PTXEMU_DEVICES=4 "$ptxemu" --devices >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^Device [0-3]: "NVIDIA H100 80GB HBM3"$' "$tmp/out")" = 4 ] &&
   grep -Eq '^  PCI bus id +0000:00:09\.0$' "$tmp/out" &&
   [ "$(grep '^  UUID' "$tmp/out" | sort -u | wc -l)" = 4 ] &&
   grep -Eq '^ +2 +yes +yes +- +yes$' "$tmp/out" &&
   grep -Eq '^  native atomic supported +1$' "$tmp/out"; then
    ok "PTXEMU_DEVICES=4 --devices prints four peer devices"
else
    bad "PTXEMU_DEVICES=4 --devices prints four peer devices (exit $rc)"
fi

# --devices --json (-d 4 is PTXEMU_DEVICES=4): the same as one JSON object
"$ptxemu" -d 4 --devices --json >"$tmp/out" 2>"$tmp/err"
rc=$?
json_ok=1
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["device_count"] == 4 and len(d["devices"]) == 4 and len(d["peers"]) == 12
assert d["devices"][3]["pci_bus_id"] == "0000:00:09.0"
assert d["devices"][0]["attributes"]["multiprocessor_count"] == 132
assert all(p["can_access_peer"] == 1 and p["native_atomic_supported"] == 1 for p in d["peers"])' \
        "$tmp/out" 2>>"$tmp/err" || json_ok=0
fi
if [ $rc = 0 ] && [ $json_ok = 1 ] && grep -q '"device_count": 4,' "$tmp/out" &&
   [ "$(grep -c '"from": ' "$tmp/out")" = 12 ]; then
    ok "--devices --json"
else
    bad "--devices --json (exit $rc)"
fi

# A bad PTXEMU_DEVICES is a usage error (exit status 2) that says what is expected
PTXEMU_DEVICES=0 "$ptxemu" --devices >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q 'PTXEMU_DEVICES=0: expected the number of devices to emulate, an integer from 1 to 16' "$tmp/err" &&
   [ ! -s "$tmp/out" ]; then
    ok "PTXEMU_DEVICES=0 is refused"
else
    bad "PTXEMU_DEVICES=0 is refused (exit $rc)"
fi
# CUDA_VISIBLE_DEVICES, as CUDA reads it: the listed devices in that order (by index or
# UUID), up to the first entry that names none; set and empty, none at all
CUDA_VISIBLE_DEVICES=1,0 "$ptxemu" -d 2 --devices >"$tmp/out" 2>"$tmp/err"
rc=$?
CUDA_VISIBLE_DEVICES=0,7,1 "$ptxemu" -d 2 --devices >"$tmp/out2" 2>>"$tmp/err"
rc2=$?
CUDA_VISIBLE_DEVICES=GPU-70747865-6d75-2d73-6d39-302d64657631 "$ptxemu" -d 2 --devices >"$tmp/out3" 2>>"$tmp/err"
rc3=$?
CUDA_VISIBLE_DEVICES= "$ptxemu" -d 2 --devices >"$tmp/out4" 2>"$tmp/err4"
rc4=$?
if [ $rc = 0 ] && grep -q '^ptxemu: 2 emulated devices (PTXEMU_DEVICES, CUDA_VISIBLE_DEVICES)' "$tmp/out" &&
   [ "$(grep -E '^  UUID' "$tmp/out" | awk '{print $2}' | tr '\n' ' ')" = \
     "GPU-70747865-6d75-2d73-6d39-302d64657631 GPU-70747865-6d75-2d73-6d39-302d64657630 " ] &&
   [ $rc2 = 0 ] && grep -q '^ptxemu: 1 emulated device ' "$tmp/out2" &&
   [ $rc3 = 0 ] && grep -q '^  UUID  *GPU-70747865-6d75-2d73-6d39-302d64657631$' "$tmp/out3" &&
   grep -q '^ptxemu: 1 emulated device ' "$tmp/out3" &&
   [ $rc4 = 1 ] && grep -q 'CUDA_VISIBLE_DEVICES= leaves none of the 2 emulated devices visible' "$tmp/err4"; then
    ok "CUDA_VISIBLE_DEVICES hides and reorders the emulated devices"
else
    bad "CUDA_VISIBLE_DEVICES hides and reorders the emulated devices (exit $rc $rc2 $rc3 $rc4)"
    cat "$tmp/out" "$tmp/out4" "$tmp/err4" | head -n 20
fi
"$ptxemu" --json >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q -- '--json goes with --devices' "$tmp/err"; then
    ok "--json alone is refused"
else
    bad "--json alone is refused (exit $rc)"
fi

# The GPU's tolerance: an access just past an allocation completes with one warning per
# instruction naming kernel, source line, thread and allocation (the outputs themselves are
# tests/cuda/oob_tolerance, recorded on the H100); PTXEMU_STRICT_BOUNDS=1 makes it the fault
"$NVCC" -arch=sm_90 --cudart shared -lineinfo -o "$tmp/oob" "$srcdir/tests/cuda/oob_tolerance.cu" || exit 99
"$ptxemu" "$tmp/oob" offbyone >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q "one past the end: cudaSuccess (copy cudaSuccess) value 1256" "$tmp/out" &&
   [ "$(grep -c 'ptxemu: warning: kernel fill(unsigned int\*, int), .*oob_tolerance.cu:15, PTX .*thread (256,0,0): invalid global write of 4 bytes at 0x[0-9a-f]*, offset 1024 of a 1024-byte allocation' "$tmp/err")" = 1 ] &&
   grep -q 'PTXEMU_STRICT_BOUNDS=1 makes it a fault' "$tmp/err"; then
    ok "an access past an allocation inside the H100's 2 MiB page completes with one warning"
else
    bad "an access past an allocation inside the H100's 2 MiB page completes with one warning (exit $rc)"
fi
# PTXEMU_LOG: 0 keeps only errors (the warning goes), 3 adds a line for every launch
PTXEMU_LOG=0 "$ptxemu" "$tmp/oob" offbyone >"$tmp/out" 2>"$tmp/err0"
"$ptxemu" --log 3 "$tmp/oob" offbyone >"$tmp/out3" 2>"$tmp/err3"
if ! grep -q warning "$tmp/err0" && grep -q "one past the end: cudaSuccess" "$tmp/out" &&
   grep -q "^ptxemu: trace: launch fill(unsigned int\*, int): grid ([0-9]*,1,1) block ([0-9]*,1,1) cluster (1,1,1), 0 bytes of dynamic shared memory$" "$tmp/err3" &&
   grep -q "^ptxemu: trace: fill(unsigned int\*, int) finished: [1-9][0-9]* warp instructions, [1-9][0-9]* thread instructions$" "$tmp/err3" &&
   grep -q "ptxemu: warning: kernel fill(unsigned int\*, int)" "$tmp/err3"; then
    ok "PTXEMU_LOG=0 drops warnings, 3 traces every launch"
else
    bad "PTXEMU_LOG=0 drops warnings, 3 traces every launch"
fi
PTXEMU_STRICT_BOUNDS=1 PTXEMU_REPORT="$tmp/fault.json" "$ptxemu" "$tmp/oob" offbyone >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "^fill: cudaErrorIllegalAddress" "$tmp/out" &&
   grep -q '^{"kind":"fault","code":700,"kernel":"_Z4fillPji","demangled":"fill(unsigned int\*, int)","block":\[0,0,0\],"thread":\[256,0,0\],"warp":8,"ptx_line":[0-9]*,"src_file":"[^"]*oob_tolerance.cu","src_line":15,"message":"out-of-bounds global write of 4 bytes at 0x[0-9a-f]*: 0 bytes past the end of a 1024-byte allocation[^"]*","seed":0}$' "$tmp/fault.json" &&
   grep -q "out-of-bounds global write of 4 bytes at 0x[0-9a-f]*: 0 bytes past the end of a 1024-byte allocation" "$tmp/err" &&
   ! grep -q warning "$tmp/err"; then
    ok "PTXEMU_STRICT_BOUNDS=1 makes it a fault, reported to PTXEMU_REPORT too"
else
    bad "PTXEMU_STRICT_BOUNDS=1 makes it a fault (exit $rc)"
fi

# --timeout: a kernel that spins forever (one thread polls a flag nobody sets and counts its
# passes, the rest of its block waits at __syncthreads) is stopped, every warp's place is
# printed, and the launch fails with cudaErrorLaunchTimeout - in the parallel and the
# deterministic scheduler; the same goes to PTXEMU_REPORT as JSON. The count makes every pass
# change the warp's registers: a loop that only polls is a deadlock the deterministic
# scheduler reports by itself, in less time than the limit (tests/det/spin.cu)
cat >"$tmp/spin.cu" <<'EOF'
#include <cstdio>
__global__ void spin(volatile int *flag, int *out) {
    int n = 0;
    if (threadIdx.x == 0 && blockIdx.x == 1) { while (*flag == 0) { n++; } }
    __syncthreads();
    out[blockIdx.x] = n;
}
int main()
{
    int *flag, *out;
    cudaMalloc(&flag, 4); cudaMalloc(&out, 64);
    cudaMemset(flag, 0, 4);
    spin<<<2, 64>>>(flag, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
EOF
"$NVCC" -arch=sm_90 --cudart shared -lineinfo -o "$tmp/spin" "$tmp/spin.cu" || exit 99
for mode in parallel deterministic; do
    rm -f "$tmp/t.json"
    if [ $mode = parallel ]; then PTXEMU_REPORT="$tmp/t.json" "$ptxemu" --timeout 1 "$tmp/spin" >"$tmp/out" 2>"$tmp/err"; rc=$?
    else PTXEMU_REPORT="$tmp/t.json" "$ptxemu" --timeout 1 --seed 3 "$tmp/spin" >"$tmp/out" 2>"$tmp/err"; rc=$?; fi
    if [ $rc = 1 ] && grep -q "^sync: cudaErrorLaunchTimeout" "$tmp/out" &&
       grep -Eq "warp 0 \(kernel .*spin.cu:4, .*block \(1,0,0\), thread \(0,0,0\)\): (runs|spins in a loop that reads memory without progress)" "$tmp/err" &&
       grep -q "warp 1 (kernel .*spin.cu:5, .*block (1,0,0), thread (32,0,0)): waits at a barrier" "$tmp/err" &&
       grep -q "ran past the time limit of PTXEMU_TIMEOUT=1 seconds" "$tmp/err" &&
       grep -Eq '^\{"kind":"timeout","code":702,"kernel":"_Z4spinPViPi","demangled":"spin\(int volatile\*, int\*\)",.*"warps":\[\{"block":\[1,0,0\],"thread":\[0,0,0\],"warp":0,"ptx_line":[0-9]*,"src_file":"[^"]*spin.cu","src_line":4,"state":"(runs|spins in a loop that reads memory without progress)"\},\{"block":\[1,0,0\],"thread":\[32,0,0\],"warp":1,.*"src_line":5,"state":"waits at a barrier \(bar.sync / __syncthreads\)","barrier":0\}\],"seed":[0-9]*\}$' "$tmp/t.json"; then
        ok "--timeout stops a spinning kernel and says where every warp is ($mode)"
    else
        bad "--timeout stops a spinning kernel and says where every warp is ($mode, exit $rc)"
    fi
done

# --timeout fails the launch on every path: a kernel that waits for a flag the host never
# sets (it parks, waiting for the host, in the parallel scheduler), with the shared and the
# static runtime, in deterministic mode and with the race detector (there the loop counts:
# one that only polls is a deadlock, reported at once). The error is
# sticky, as the CUDA runtime documents cudaErrorLaunchTimeout (the H200 has no watchdog:
# tests/gpu/recorded/batch1/timeout_probe.out; a trap's error behaves so there). A kernel of
# several blocks that hits the limit is one "timeout" record.
cat >"$tmp/park.cu" <<'EOF'
#include <cstdio>
__global__ void wait_flag(volatile int *flag) { while (*flag == 0) {} }
__global__ void count_flag(volatile int *flag, int *out) { int n = 0; while (*flag == 0) n++; out[0] = n; }
int main(int argc, char **argv)
{
    int *f;
    cudaMalloc(&f, 64);
    cudaMemset(f, 0, 64);
    if (argc > 1) count_flag<<<1, 32>>>(f, f + 4);
    else wait_flag<<<1, 32>>>(f);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("again: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int *g;
    printf("malloc: %s\n", cudaGetErrorName(cudaMalloc(&g, 4)));
    return 0;
}
EOF
cat >"$tmp/busy.cu" <<'EOF'
#include <cstdio>
__global__ void racy(int *a, int n) { for (int i = 0; i < n; i++) a[0] += threadIdx.x; }
__global__ void busy(float *a, long n) { float v = threadIdx.x; for (long i = 0; i < n; i++) v = v * 0.999f + 1.0f; a[threadIdx.x] = v; }
int main()
{
    float *f;
    cudaMalloc(&f, 4096);
    racy<<<1, 64>>>((int *)f, 4);
    printf("racy: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    fflush(stdout);
    busy<<<4, 64>>>(f, 1L << 40);
    printf("busy: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
EOF
"$NVCC" -arch=sm_90 --cudart shared -lineinfo -o "$tmp/park_shared" "$tmp/park.cu" || exit 99
"$NVCC" -arch=sm_90 -lineinfo -o "$tmp/park_static" "$tmp/park.cu" || exit 99
"$NVCC" -arch=sm_90 -lineinfo -o "$tmp/busy" "$tmp/busy.cu" || exit 99
for b in shared static; do
    for m in "" "--seed 3" "--racecheck"; do
        # shellcheck disable=SC2086  # m is a list of options
        timeout 60 "$ptxemu" --timeout 1 $m "$tmp/park_$b" ${m:+count} >"$tmp/out" 2>"$tmp/err"
        if grep -q "^sync: cudaErrorLaunchTimeout" "$tmp/out" && grep -q "^again: cudaErrorLaunchTimeout" "$tmp/out" &&
           grep -q "^malloc: cudaErrorLaunchTimeout" "$tmp/out"; then
            ok "--timeout fails the launch, sticky ($b runtime${m:+, $m})"
        else
            bad "--timeout fails the launch, sticky ($b runtime${m:+, $m})"; cat "$tmp/out"
        fi
    done
done
for m in "" "--seed 2"; do
    rm -f "$tmp/t.json"
    # shellcheck disable=SC2086  # m is a list of options
    PTXEMU_REPORT="$tmp/t.json" timeout 60 "$ptxemu" --timeout 1 $m "$tmp/busy" >"$tmp/out" 2>"$tmp/err"
    if [ "$(grep -c '"kind":"timeout"' "$tmp/t.json")" = 1 ] && grep -q "^busy: cudaErrorLaunchTimeout" "$tmp/out"; then
        ok "a kernel of four blocks past its time limit is one timeout record${m:+ ($m)}"
    else
        bad "a kernel of four blocks past its time limit is one timeout record${m:+ ($m)}"
    fi
done

# A run stopped from outside (SIGTERM, SIGINT, SIGALRM) leaves a complete report: the races
# found so far, valid JSON lines and a "stopped" record, in PTXEMU_REPORT and, through
# --report-json, in the document and in the user's PTXEMU_REPORT (which gets every line as it
# comes, so a ptxemu killed outright leaves the lines so far)
if command -v python3 >/dev/null; then
    for sig in TERM INT ALRM; do
        for mode in direct json; do
            rm -f "$tmp/u.jsonl" "$tmp/doc.json"
            if [ $mode = direct ]; then
                PTXEMU_REPORT="$tmp/u.jsonl" timeout -s $sig 2 "$ptxemu" --racecheck --seed 2 "$tmp/busy" >/dev/null 2>&1
            else
                PTXEMU_REPORT="$tmp/u.jsonl" timeout -s $sig 2 "$ptxemu" --report-json "$tmp/doc.json" --racecheck --seed 2 "$tmp/busy" >/dev/null 2>&1
            fi
            if python3 - "$tmp/u.jsonl" "$tmp/doc.json" $mode $sig <<'PYEOF'
import json, sys, signal
lines = [json.loads(l) for l in open(sys.argv[1])]
kinds = [l["kind"] for l in lines]
want = getattr(signal, "SIG" + sys.argv[4])
assert kinds[-1] == "stopped" and lines[-1]["signal"] == want, kinds
assert "write-after-write" in kinds, kinds
if sys.argv[3] == "json":
    d = json.load(open(sys.argv[2]))
    assert d["signal"] == want and len(d["stopped"]) == 1 and len(d["races"]) == 3, d
PYEOF
            then ok "SIG$sig leaves a complete report ($mode)"; else bad "SIG$sig leaves a complete report ($mode)"; fi
        done
    done
    rm -f "$tmp/u.jsonl" "$tmp/doc.json"
    PTXEMU_REPORT="$tmp/u.jsonl" timeout -s KILL 3 "$ptxemu" --report-json "$tmp/doc.json" --racecheck --seed 2 "$tmp/busy" >/dev/null 2>&1
    if python3 -c "import json, sys; k = [json.loads(l)['kind'] for l in open(sys.argv[1])]; assert 'write-after-write' in k, k" "$tmp/u.jsonl"; then
        ok "ptxemu --report-json killed outright: the user's PTXEMU_REPORT has the lines so far"
    else
        bad "ptxemu --report-json killed outright: the user's PTXEMU_REPORT has the lines so far"
    fi
fi

# --timeline: a Chrome-trace JSON of the launch, its blocks on workers, each warp's running
# and waiting (barrier, mbarrier), the async copies and the memory copies; the same seed gives
# the same file
cat >"$tmp/tl.cu" <<'EOF'
#include <cstdio>
#include <cuda_pipeline.h>
__global__ void stage(const int4 *in, int *out)
{
    __shared__ int4 s[64];
    __pipeline_memcpy_async(&s[threadIdx.x], &in[blockIdx.x * 64 + threadIdx.x], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x].x;
}
int main()
{
    int4 h[128];
    int r[128];
    for (int i = 0; i < 128; i++) h[i] = make_int4(i, 0, 0, 0);
    int4 *in; int *out;
    cudaMalloc(&in, sizeof h); cudaMalloc(&out, sizeof r);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    stage<<<2, 64>>>(in, out);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    printf("%d %d\n", r[0], r[127]);
    return 0;
}
EOF
"$NVCC" -arch=sm_90 --cudart shared -o "$tmp/tl" "$tmp/tl.cu" || exit 99
"$ptxemu" --timeline "$tmp/tl.json" "$tmp/tl" >"$tmp/out" 2>"$tmp/err"
rc=$?
"$ptxemu" --seed 5 --timeline "$tmp/tl5a.json" "$tmp/tl" >/dev/null 2>&1
PTXEMU_SEED=5 PTXEMU_TIMELINE="$tmp/tl5b.json" "$ptxemu" "$tmp/tl" >/dev/null 2>&1
if [ $rc = 0 ] && grep -q "^63 64$" "$tmp/out" && cmp -s "$tmp/tl5a.json" "$tmp/tl5b.json" &&
   python3 - "$tmp/tl.json" "$tmp/tl5a.json" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    ev = d["traceEvents"]
    assert d["displayTimeUnit"] == "ns"
    xs = [e for e in ev if e["ph"] == "X"]
    assert all(e["ts"] >= 0 and e["dur"] >= 0 for e in xs)
    launch = [e for e in xs if e["cat"] == "launch"]
    assert len(launch) == 1 and launch[0]["name"] == "stage(int4 const*, int*)" and launch[0]["pid"] == 0
    copies = sorted((e["name"], e["args"]["bytes"]) for e in xs if e["cat"] == "memcpy")
    assert copies == [("DtoH", 512), ("HtoD", 2048)], copies
    blocks = [e for e in xs if e["cat"] == "block"]
    assert sorted(e["name"] for e in blocks) == ["block (0,0,0)", "block (1,0,0)"]
    pid = 100 + launch[0]["args"]["launch"]
    names = {(e["tid"], e["args"]["name"]) for e in ev if e["ph"] == "M" and e["pid"] == pid and e["name"] == "thread_name"}
    assert (1, "block (0,0,0) warp 0") in names and (65, "block (1,0,0) warp 0") in names, names
    for tid in (1, 2, 65, 66):
        row = sorted((e for e in xs if e["pid"] == pid and e["tid"] == tid), key=lambda e: e["ts"])
        assert [e for e in row if e["name"] == "runs"], tid
        for a, b in zip(row, row[1:]):   # one warp does one thing at a time
            assert a["ts"] + a["dur"] <= b["ts"] + 1e-9, (a, b)
        assert launch[0]["ts"] <= row[0]["ts"] and row[-1]["ts"] + row[-1]["dur"] <= launch[0]["ts"] + launch[0]["dur"] + 1e-9
    for w0 in (1, 65):   # the first warp at __syncthreads waits for the other
        assert [e for e in xs if e["pid"] == pid and e["tid"] in (w0, w0 + 1) and e["name"] == "waits at a barrier"]
    asy = [e for e in xs if e["cat"] == "async"]
    assert len(asy) == 128 and all(e["name"] == "cp.async" and e["args"]["bytes"] == 16 for e in asy)
    assert {e["tid"] for e in asy} == {63, 127}
EOF
then
    ok "--timeline writes launches, blocks, warps running and waiting, async and memory copies; a seed repeats it"
else
    bad "--timeline writes launches, blocks, warps running and waiting, async and memory copies; a seed repeats it (exit $rc)"
fi

# --report-json: one document of the run (launches, faults, CUDA errors the program never
# asked about, leaks, exit status); --exit-on-error turns an ignored fault into exit status 1,
# for the default build (static runtime) and --cudart shared alike
cat >"$tmp/rj.cu" <<'EOF'
#include <cstdio>
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main()
{
    int *a, *b;
    cudaMalloc(&a, 1024);
    cudaMalloc(&b, 4096);            // never freed
    k<<<1, 32>>>(a);
    cudaFree(a);
    k<<<1, 32>>>((int *)0x10);       // faults
    cudaMemcpy(&a, b, 4, cudaMemcpyDeviceToHost);   // returns the fault; ignored
    printf("done\n");
    return 0;
}
EOF
"$NVCC" -arch=sm_90 -lineinfo -o "$tmp/rj_static" "$tmp/rj.cu" 2>/dev/null || exit 99
"$NVCC" -arch=sm_90 -lineinfo --cudart shared -o "$tmp/rj_shared" "$tmp/rj.cu" 2>/dev/null || exit 99
for b in static shared; do
    rm -f "$tmp/rj.json" "$tmp/user.jsonl"
    PTXEMU_REPORT="$tmp/user.jsonl" "$ptxemu" --report-json "$tmp/rj.json" "$tmp/rj_$b" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    "$ptxemu" --exit-on-error "$tmp/rj_$b" >/dev/null 2>"$tmp/err2"
    rc2=$?
    if [ $rc = 0 ] && [ $rc2 = 1 ] && grep -q "^done$" "$tmp/out" &&
       grep -q "ptxemu: leak: 4096 bytes of device memory at 0x[0-9a-f]*, allocated at .*rj_$b+0x[0-9a-f]*.*, were never freed" "$tmp/err" &&
       grep -q "exit status 1: the run had 1 fault, race, deadlock or time limit (--exit-on-error)" "$tmp/err2" &&
       grep -q '"kind":"fault"' "$tmp/user.jsonl" &&
       python3 - "$tmp/rj.json" $b <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 0 and d["signal"] is None and d["errors"] == 1
assert d["program"][0].endswith("rj_" + sys.argv[2])
l = d["launches"]
assert [x["kernel"] for x in l] == ["_Z1kPi", "_Z1kPi"] and [x["status"] for x in l] == [0, 700]
assert l[0]["grid"] == [1, 1, 1] and l[0]["block"] == [32, 1, 1] and l[0]["warp_instructions"] > 0
assert l[0]["emulated_ns"] > 0
f = d["faults"]
assert len(f) == 1 and f[0]["code"] == 700 and f[0]["src_line"] == 2 and f[0]["src_file"].endswith("rj.cu")
assert d["races"] == [] and d["deadlocks"] == [] and d["timeouts"] == []
lk = d["leaks"]
assert len(lk) == 1 and lk[0]["bytes"] == 4096 and lk[0]["memory"] == "device memory"
api = d["api_errors"]
if sys.argv[2] == "shared":   # ptxemu's runtime sees what the program was told
    assert {(a["api"], a["name"], a["checked"]) for a in api} == {("cudaMemcpy", "cudaErrorIllegalAddress", False)}, api
else:                         # NVIDIA's static runtime is inside the program
    assert api == []
EOF
    then
        ok "--report-json and --exit-on-error ($b runtime)"
    else
        bad "--report-json and --exit-on-error ($b runtime, exit $rc/$rc2)"
    fi
done

# built without -lineinfo, a fault names the PTX line and says how to get CUDA source lines
"$NVCC" -arch=sm_90 -o "$tmp/rj_noline" "$tmp/rj.cu" 2>/dev/null || exit 99
"$ptxemu" "$tmp/rj_noline" >/dev/null 2>"$tmp/err"
if grep -q "ptxemu: kernel k(int\*), PTX rj_noline.ptx:[0-9]*, block (0,0,0), thread (0,0,0): out-of-bounds global write .* (no CUDA source lines: rebuild with -lineinfo to see them; PTXEMU_DUMP_PTX=DIR writes the PTX)$" "$tmp/err"; then
    ok "a fault without -lineinfo says to rebuild with -lineinfo"
else
    bad "a fault without -lineinfo says to rebuild with -lineinfo"
fi

# PTXEMU_INITCHECK: a read of device memory nothing wrote (global past what the host copied,
# shared memory half of the block left unwritten) is reported once per instruction, on
# stderr and to PTXEMU_REPORT; a clean kernel and the async-copy samples report nothing
cat >"$tmp/ic.cu" <<'EOF'
#include <cstdio>
__global__ void partial(const int *in, int *out, int n)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 64) s[t] = in[t];
    __syncthreads();
    out[t] = s[t] + in[t + n];
}
__global__ void clean(const int *in, int *out)
{
    __shared__ int s[128];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[127 - threadIdx.x];
}
int main(int argc, char **argv)
{
    int h[256];
    for (int i = 0; i < 256; i++) h[i] = i;
    int *in, *out;
    cudaMalloc(&in, 256 * sizeof(int));
    cudaMalloc(&out, 128 * sizeof(int));
    cudaMemcpy(in, h, 128 * sizeof(int), cudaMemcpyHostToDevice);
    if (argc > 1) clean<<<1, 128>>>(in, out); else partial<<<1, 128>>>(in, out, 128);
    cudaMemcpy(h, out, 128 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("%d\n", h[0]);
    return 0;
}
EOF
"$NVCC" -arch=sm_90 -lineinfo -o "$tmp/ic" "$tmp/ic.cu" 2>/dev/null || exit 99
rm -f "$tmp/ic.json"
PTXEMU_INITCHECK=1 PTXEMU_REPORT="$tmp/ic.json" "$ptxemu" "$tmp/ic" >/dev/null 2>"$tmp/err"
PTXEMU_INITCHECK=1 "$ptxemu" "$tmp/ic" clean >/dev/null 2>"$tmp/err2"
quiet=1
for s in tmaSwizzle bulkReduce pipelineGemm clusterHistogram multicastBroadcast wgmmaTmaGemm; do
    [ -x "$builddir/samples/$s" ] || continue
    PTXEMU_INITCHECK=1 "$ptxemu" "$builddir/samples/$s" >/dev/null 2>"$tmp/err3"
    grep -q initcheck "$tmp/err3" && { quiet=0; echo "initcheck reports in sample $s:"; head -3 "$tmp/err3"; }
done
if [ "$(grep -c "^ptxemu: initcheck:" "$tmp/err")" = 2 ] &&
   grep -q "^ptxemu: initcheck: kernel partial(int const\*, int\*, int), .*ic.cu:8, PTX .*: reads 4 bytes of global memory at 0x[0-9a-f]* (offset [0-9]* of a 1024-byte allocation) that nothing wrote$" "$tmp/err" &&
   grep -q "^ptxemu: initcheck: kernel partial(int const\*, int\*, int), .*ic.cu:8, PTX .*: reads 4 bytes of shared memory at offset 0x[0-9a-f]* that no thread of the block wrote$" "$tmp/err" &&
   [ "$(grep -c '"kind":"uninitialized-read"' "$tmp/ic.json")" = 2 ] &&
   grep -q '"kind":"uninitialized-read","space":"shared",.*"src_line":8' "$tmp/ic.json" &&
   ! grep -q initcheck "$tmp/err2" && [ $quiet = 1 ]; then
    ok "PTXEMU_INITCHECK reports reads of memory nothing wrote, and nothing else"
else
    bad "PTXEMU_INITCHECK reports reads of memory nothing wrote, and nothing else"
fi

echo "run_launcher_tests: $pass passed, $fail failed"
[ $fail = 0 ]
