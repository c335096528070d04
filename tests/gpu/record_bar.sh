#!/bin/bash
# record_bar.sh - on the GPU machine: records tests/cuda/bar_exit_release.cu,
# tests/cuda/bar_leave_order.cu and tests/cuda/bar_leave_loop.cu (issue 26: HeCBench's wyllie,
# layernorm and qtclustering), or the ones named after OUT, three runs each,
# with the GPU's name and driver, and what compute-sanitizer's synccheck and racecheck say of
# them. The binaries are built beforehand on a machine with nvcc 13 and no GPU, with the flags
# of tests/run_cuda_tests.sh:
#   for t in bar_exit_release bar_leave_order bar_leave_loop; do
#       (cd tests/cuda && nvcc -arch=sm_90 --cudart shared -O2 -lineinfo -o DIR/$t $t.cu); done
# Usage: record_bar.sh DIR OUT [NAME...]   (copy OUT/NAME.0.out into tests/expected/cuda/ once the runs
# agree; OUT/* into tests/gpu/recorded/bar/)
D=${1:?}; O=${2:?}; shift 2
names=${*:-bar_exit_release bar_leave_order bar_leave_loop}
mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
{ nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2; date -u; } >"$O/RECORDED_ON.txt" 2>&1
for t in $names; do
    for r in 1 2 3; do
        "$D/$t" >"$O/$t.$r.out" 2>"$O/$t.$r.err" </dev/null; echo "exit=$?" >>"$O/$t.$r.out"
    done
    cp "$O/$t.1.out" "$O/$t.0.out"
    for r in 2 3; do cmp -s "$O/$t.1.out" "$O/$t.$r.out" || echo "$t: run $r differs" >>"$O/record.log"; done
done
for t in $names; do
    for tool in synccheck racecheck; do
        timeout 15 compute-sanitizer --tool "$tool" "$D/$t" >"$O/$t.$tool.txt" 2>&1
        echo "exit=$?" >>"$O/$t.$tool.txt"
    done
done
echo "record_bar: done" >>"$O/record.log"
cat "$O/RECORDED_ON.txt" "$O/record.log"; for t in $names; do cat "$O/$t.0.out"; done
tail -n 3 "$O"/*.txt
