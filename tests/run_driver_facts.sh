#!/bin/sh
# run_driver_facts.sh - tests/gpu/driver_facts.c, the program that recorded the H200's
# driver, run on ptxemu's libcuda.so.1: its sections whose every line is a fact must print
# what the driver printed (tests/expected/driver/). noctx: which calls work with no context
# current on objects a context holds (Numba frees memory after popping its context).
# tests/gpu/cg_devrt.cu, the device runtime's cooperative-groups calls, must print what it
# printed on the H200; tests/driver/cglink.c links an -rdc object and libcudadevrt.a with
# the JIT linker, as Numba's grid.sync() does, and checks the grid barrier under seeds.
# tests/driver/ipc.cu shares device memory between two processes (CUDA IPC) and checks itself.
# Exit: 0 all passed, 1 some failed, 77 (skipped) without the CUDA headers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
inc=$(dirname "$NVCC")/../include
[ -f "$inc/cuda.h" ] || { echo "run_driver_facts: no cuda.h beside $NVCC: skipped"; exit 77; }
lib=$builddir/runtime/.libs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-facts.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -Wall -Wno-deprecated-declarations -I"$inc" -o "$tmp/driver_facts" \
    "$srcdir/tests/gpu/driver_facts.c" "$lib/libcuda.so.1" -ldl || exit 99
# A sanitizer build's libcuda.so.1 needs the ASan runtime first in the process, which the
# launcher arranges for programs it starts; the programs here link the library directly.
direct=
if [ -n "${PTXEMU_SANITIZER_BUILD:-}" ]; then
    asan=$(${CC:-cc} -print-file-name=libasan.so)
    [ -f "$asan" ] && direct="env LD_PRELOAD=$asan"
fi
pass=0 fail=0
for section in noctx; do
    LD_LIBRARY_PATH=$lib $direct "$tmp/driver_facts" $section >"$tmp/$section.out" 2>"$tmp/$section.err"
    if diff "$srcdir/tests/expected/driver/$section.txt" "$tmp/$section.out" >"$tmp/diff"; then
        echo "PASS: driver_facts $section prints what the H200's driver printed"
        pass=$((pass + 1))
    else
        echo "FAIL: driver_facts $section differs from the H200's driver (< H200, > ptxemu):"
        head -n 20 "$tmp/diff"
        fail=$((fail + 1))
    fi
done
check() { if [ "$2" = 0 ]; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }
devrt=$(dirname "$NVCC")/../lib64/libcudadevrt.a
if [ -x "$NVCC" ] && [ -f "$devrt" ]; then
    "$NVCC" -arch=sm_90 -rdc=true -o "$tmp/cg_devrt" "$srcdir/tests/gpu/cg_devrt.cu" -lcudadevrt || exit 99
    for m in coop plain; do
        echo "== cg $m"
        timeout 120 "$builddir/runtime/ptxemu" "$tmp/cg_devrt" $m 2>"$tmp/cg.err"
        echo "exit=$?"
    done >"$tmp/cg.out"
    diff "$srcdir/tests/expected/driver/cg_devrt.txt" "$tmp/cg.out" >"$tmp/diff"
    st=$?
    [ $st = 0 ] || head -n 20 "$tmp/diff"
    check "cg_devrt: libcudadevrt's cudaCGGetIntrinsicHandle/Synchronize/GetSize/GetRank as on the H200" $st
    "$NVCC" -arch=sm_90 -rdc=true -c -o "$tmp/k.o" "$srcdir/tests/driver/cglink_kernel.cu" || exit 99
    ${CC:-cc} -Wall -I"$inc" -o "$tmp/cglink" "$srcdir/tests/driver/cglink.c" "$lib/libcuda.so.1" || exit 99
    st=0
    for seed in "" 1 2 3 4; do
        PTXEMU_SEED=$seed LD_LIBRARY_PATH=$lib timeout 120 $direct "$tmp/cglink" "$tmp/k.o" "$devrt" \
            >"$tmp/link.out" 2>&1 &&
            grep -q "^grid sync: every block saw the flag" "$tmp/link.out" &&
            grep -q "^plain launch: cudaCGSynchronize returned 999" "$tmp/link.out" ||
            { st=1; echo "seed ${seed:-none}:"; tail -n 5 "$tmp/link.out"; }
    done
    check "cuLinkAddFile of an -rdc object and libcudadevrt.a; the grid barrier holds under seeds" $st
else
    echo "SKIP: no nvcc or libcudadevrt.a for the cooperative-groups checks"
fi
if [ -x "$NVCC" ]; then
    "$NVCC" -arch=sm_90 -ptx -o "$tmp/heavy.ptx" "$srcdir/tests/driver/maxregs_kernel.cu" || exit 99
    ${CC:-cc} -Wall -I"$inc" -o "$tmp/maxregs" "$srcdir/tests/driver/maxregs.c" "$lib/libcuda.so.1" || exit 99
    # the register counts come from ptxas, which the test finds where the driver looks
    PATH=$(dirname "$NVCC"):$PATH LD_LIBRARY_PATH=$lib $direct "$tmp/maxregs" "$tmp/heavy.ptx" >"$tmp/regs.out" 2>&1
    free=$(sed -n 's/^free //p' "$tmp/regs.out")
    link=$(sed -n 's/^link 32 //p' "$tmp/regs.out")
    load=$(sed -n 's/^load 40 //p' "$tmp/regs.out")
    [ -n "$free" ] && [ "$free" -gt 40 ] && [ -n "$link" ] && [ "$link" -gt 0 ] && [ "$link" -le 32 ] &&
        [ -n "$load" ] && [ "$load" -gt 0 ] && [ "$load" -le 40 ]
    st=$?
    [ $st = 0 ] || cat "$tmp/regs.out"
    check "CU_JIT_MAX_REGISTERS limits the registers reported (free $free, link 32: $link, load 40: $load)" $st
fi
${CC:-cc} -Wall -I"$inc" -o "$tmp/forked" "$srcdir/tests/driver/forked.c" "$lib/libcuda.so.1" || exit 99
LD_LIBRARY_PATH=$lib $direct "$tmp/forked" >"$tmp/forked.out" 2>&1
grep -qx "forked before cuInit: cuInit 0, cuDeviceGetCount 0, cuDeviceGet 0" "$tmp/forked.out" &&
    grep -qx "forked after cuInit: cuInit 3, cuDeviceGetCount 3, cuDeviceGet 3" "$tmp/forked.out" &&
    grep -qx "parent after the fork: cuDeviceGetCount 0" "$tmp/forked.out"
st=$?
[ $st = 0 ] || cat "$tmp/forked.out"
check "a child forked after cuInit gets CUDA_ERROR_NOT_INITIALIZED; one forked before starts its own" $st
if [ -x "$NVCC" ]; then
    "$NVCC" -arch=sm_90 -o "$tmp/swe" "$srcdir/tests/driver/syncwarp_exit.cu" || exit 99
    st=0
    for seed in "" 1 2 3 4 5; do
        PTXEMU_SEED=$seed timeout 120 "$builddir/runtime/ptxemu" "$tmp/swe" >"$tmp/swe.out" 2>&1 &&
            grep -qx "late 6 early 10 (no error)" "$tmp/swe.out" || { st=1; cat "$tmp/swe.out"; }
    done
    check "__syncwarp() waits for no exited lane, whether it exited before or after the others arrived" $st
fi
if [ -x "$NVCC" ]; then
    # CUDA IPC: a child process (exec'd) opens the parent's allocation; each sees the other's
    # kernels' writes; the errors (tests/driver/ipc.cu says which)
    "$NVCC" -arch=sm_90 --cudart shared -o "$tmp/ipc" "$srcdir/tests/driver/ipc.cu" -lcuda || exit 99
    timeout 120 "$builddir/runtime/ptxemu" "$tmp/ipc" >"$tmp/ipc.out" 2>"$tmp/ipc.err" &&
        grep -qx "failures: 0" "$tmp/ipc.out" && grep -qx "child failures: 0" "$tmp/ipc.out" &&
        ! grep -q "^FAIL" "$tmp/ipc.out"
    st=$?
    [ $st = 0 ] || { grep -v "^ok" "$tmp/ipc.out"; tail -n 5 "$tmp/ipc.err"; }
    check "cuIpcGetMemHandle/cuIpcOpenMemHandle: two processes share an allocation's bytes; the errors" $st
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
