#!/bin/bash
# record_batch1.sh - one batch of recordings on the GPU machine (one device call): SASS
# of every probe, the MUFU probe (sfu3_probe), wide wmma, the fma-contraction probe around
# async instructions, the performance lessons, the time-limit probe. The binaries were built
# beforehand (nvcc 13.0, -arch=sm_90) and are carried in DIR.
# Usage: record_batch1.sh DIR OUT   (outputs: tests/gpu/recorded/batch1/, tests/expected/)
D=${1:?}; O=${2:?}
W=$O/w; mkdir -p "$W/wmma" "$W/s"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvcc --version | tail -2; date -u; } >"$W/RECORDED_ON.txt" 2>&1
for b in mufu.cubin wmma_wide fma_contract_async lessons sfu_exact2 timeout_probe; do
    cuobjdump -sass "$D/$b" >"$W/sass_$b.txt" 2>&1
done
echo "sass $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
"$D/timeout_probe" >"$W/timeout_probe.out" 2>&1; echo "exit=$?" >>"$W/timeout_probe.out"
for r in 1 2; do
    "$D/fma_contract_async" >"$W/fma_contract_async.$r.out" 2>&1; echo "exit=$?" >>"$W/fma_contract_async.$r.out"
    "$D/sfu_exact2" >"$W/sfu_exact2.$r.out" 2>&1; echo "exit=$?" >>"$W/sfu_exact2.$r.out"
done
"$D/wmma_wide" "$W/wmma" >"$W/wmma_wide.1.out" 2>&1; echo "exit=$?" >>"$W/wmma_wide.1.out"
"$D/wmma_wide" >"$W/wmma_wide.2.out" 2>&1; echo "exit=$?" >>"$W/wmma_wide.2.out"
echo "probes $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
for n in 262144 1048576 4194304; do "$D/lessons" $n 21 >"$W/lessons.$n.txt" 2>&1; done
"$D/lessons" 262144 21 >"$W/lessons.262144.run2.txt" 2>&1
echo "lessons $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
timeout 170 "$D/sfu3_probe" "$D/mufu.cubin" "$W/s" >"$W/sfu3.log" 2>&1; echo "sfu3 exit=$?" >>"$W/sfu3.log"
echo "sfu3 $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
# smooth tables: store first differences (numpy), which xz packs far better
python3 - "$W/s" <<'PY' >>"$W/times.txt" 2>&1
import sys, os, numpy as np
d = sys.argv[1]
for f in ("win_sincos.bin", "win_tanh.bin", "rcp64_tables.bin", "rsq64_tables.bin", "half.bin"):
    p = os.path.join(d, f)
    if os.path.exists(p):
        a = np.fromfile(p, dtype=np.uint32)
        np.diff(a, prepend=np.uint32(0)).astype(np.uint32).tofile(p + ".delta")
        os.remove(p)
print("delta done")
PY
cd "$O" && tar cf - w/RECORDED_ON.txt w/times.txt w/*.out w/*.txt w/*.log w/wmma | xz -T0 -6 >small.tar.xz
tar cf - w/s | xz -T0 -6 >sfu.tar.xz
split -b 15m sfu.tar.xz sfu.tar.xz.part && rm sfu.tar.xz
echo "pack $(( $(date +%s) - t0 ))s"; ls -la "$O"
