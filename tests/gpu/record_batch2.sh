#!/bin/bash
# record_batch2.sh - the second batch of recordings on the GPU machine: sfu4_probe (the sin,
# cos and tanh tables and the exhaustive check of their models) and the fma-contraction probe
# with trip counts known at compile time. Binaries built beforehand, carried in DIR.
# Usage: record_batch2.sh DIR OUT   (outputs: tests/gpu/recorded/batch2/, emu/sfu_tables2.zst)
D=${1:?}; O=${2:?}
W=$O/w2; mkdir -p "$W/s"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvcc --version | tail -2; date -u; } >"$W/RECORDED_ON.txt" 2>&1
cuobjdump -sass "$D/fma_contract_async" >"$W/sass_fma_contract_async.txt" 2>&1
for r in 1 2; do
    "$D/fma_contract_async" >"$W/fma_contract_async.$r.out" 2>&1; echo "exit=$?" >>"$W/fma_contract_async.$r.out"
done
echo "fca $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
timeout 200 "$D/sfu4_probe" "$D/mufu.cubin" "$W/s" >"$W/sfu4.log" 2>&1; echo "sfu4 exit=$?" >>"$W/sfu4.log"
echo "sfu4 $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
cp "$W/s/summary.txt" "$W/sfu4_summary.txt"
cd "$O" && tar cf - w2 | xz -T0 -6 >run2.tar.xz
echo "pack $(( $(date +%s) - t0 ))s" >>"$W/times.txt"
split -b 15m run2.tar.xz run2.tar.xz.part && rm run2.tar.xz
rm -rf "$W/s"
ls -la "$O"; cat "$W/times.txt"
