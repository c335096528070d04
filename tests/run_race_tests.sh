#!/bin/bash
# run_race_tests.sh - the race detector (PTXEMU_RACECHECK). tests/race/hazards.cu has one
# kernel per hazard kind and a corrected twin of each: every hazard must be reported (with
# its kind and the seed), no twin may be (tests/race/wgmma_hazards.cu: the same for wgmma's
# shared-memory operands); reports go to PTXEMU_REPORT as JSON lines;
# PTXEMU_RACECHECK=error sets the exit status; race-free samples report nothing and still
# print the H100's output.  Usage: tests/run_race_tests.sh [BUILDDIR]  (77 without nvcc)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${abs_top_builddir:-$PWD}}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
launcher=$build/runtime/ptxemu
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
"$NVCC" -arch=sm_90 --cudart shared -O2 -lineinfo -o "$work/hazards" "$here/race/hazards.cu" || exit 1
pass=0 fail=0
check() { if [ "$2" = 0 ]; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }

kinds=(read-after-write x write-after-read x write-after-write x read-before-async-copy-complete x read-after-write x '[a-z-]*-after-[a-z]* in global' x write-before-async-copy-read-complete x async-proxy-read-without-proxy-fence x '[a-z-]*-after-[a-z]*' x mbarrier-used-before-fence-mbarrier-init x '[a-z-]*-after-[a-z]* in global' x '[a-z-]*-after-[a-z]* in global' x mbarrier-wait-on-observed-phase x mbarrier-tx-beyond-phase x '[a-z-]*-after-[a-z]*' x '[a-z-]*-after-[a-z]* in global.*earlier launch' x '[a-z-]*-after-[a-z]* in global.*earlier launch' x '[a-z-]*-after-[a-z]*' x '[a-z-]*-after-[a-z]* in global.*earlier launch' x read-before-async-copy-complete x '[a-z-]*-after-[a-z]* in global' x '[a-z-]*-after-[a-z]* in global' x write-after-write x)
names=(raw raw_fixed war war_fixed waw waw_fixed async async_fixed warp warp_fixed global global_fixed bulk_src bulk_src_fixed proxy proxy_fixed plain volatile_marked mbinit mbinit_fixed ticket ticket_fixed ticket_cta ticket_acq_rel parity parity_fixed tx_beyond tx_fixed mbar_skip mbar_skip_fixed streams streams_event streams_blocking streams_legacy dsmem dsmem_fixed graph graph_edge parity_fresh parity_fresh_fixed atomic_max cas_loop rows rows_fixed same_byte own_bytes)
for i in $(seq 0 45); do
    PTXEMU_RACECHECK=1 PTXEMU_REPORT="$work/report.$i" "$launcher" "$work/hazards" $i >"$work/out.$i" 2>"$work/err.$i"
    n=$(grep -c "^ptxemu: race:" "$work/err.$i")
    if [ $((i % 2)) = 0 ]; then
        grep "^ptxemu: race: ${kinds[$i]} " "$work/err.$i" | grep -q "hazards.cu:[0-9]*.*seed 1)" &&
            grep -q "^kernel $i: no error" "$work/out.$i"
        check "${names[$i]}: reported as ${kinds[$i]} with source line and seed" $?
        grep -q "\"kind\":\"${kinds[$i]%% in global*}\".*\"seed\":1" "$work/report.$i" 2>/dev/null
        check "${names[$i]}: JSON report" $?
    else
        [ "$n" = 0 ] && [ ! -s "$work/report.$i" ] && grep -q "^kernel $i: no error" "$work/out.$i"
        check "${names[$i]}: no report" $?
    fi
done
# the reports say what would order the two accesses
grep -q "with nothing ordering them; no barrier separates hazards.cu:[0-9]* and hazards.cu:[0-9]*: a __syncthreads() (bar.sync) between these lines" "$work/err.0" &&
    grep -q "both threads are in one warp and nothing orders them between hazards.cu:[0-9]* and hazards.cu:[0-9]*: a __syncwarp() there orders the lanes of a warp, a __syncthreads() the whole block" "$work/err.8" &&
    grep -q "the threads are in different blocks, which no __syncthreads() orders: split the work into two launches" "$work/err.10" &&
    grep -q "the threads are in different blocks of a cluster: a cluster barrier" "$work/err.34"
check "reports say which barrier would order the accesses" $?
# the access logs drop what the shadow no longer names; compacting at every fill must not
# change a single report
same=0
for i in $(seq 0 45); do
    PTXEMU_RACECHECK=1 PTXEMU_RACECHECK_COMPACT=1 "$launcher" "$work/hazards" $i >/dev/null 2>"$work/cerr.$i"
    cmp -s "$work/err.$i" "$work/cerr.$i" || { same=1; echo "case $i differs with PTXEMU_RACECHECK_COMPACT=1"; }
done
check "reports unchanged when the access logs are compacted at every fill" $same
# reports are deterministic: the same seed gives the same reports with 1 and 2 workers, and
# a report's seed replays it
same=0
for i in 0 10 20 26 28 30; do
    for t in 1 2; do
        PTXEMU_THREADS=$t PTXEMU_SEED=5 PTXEMU_RACECHECK=1 PTXEMU_REPORT="$work/r5.$i.$t" \
            "$launcher" "$work/hazards" $i >"$work/o5.$i.$t" 2>"$work/e5.$i.$t"
    done
    grep -q "seed 5)" "$work/e5.$i.1" && cmp -s "$work/e5.$i.1" "$work/e5.$i.2" &&
        cmp -s "$work/r5.$i.1" "$work/r5.$i.2" && cmp -s "$work/o5.$i.1" "$work/o5.$i.2" ||
        { same=1; echo "case $i: seed 5 does not replay the same reports"; }
done
check "a seed replays the same reports and output, with 1 and with 2 workers" $same
# whatever order a seed runs the blocks and warps in, the races are found and the race-free
# twins stay clean
same=0
for i in 6 10 20 38 40 41 42 43 44 45; do
    for seed in 2 3 4 5 6 8 9; do
        [ $i = 38 ] && [ $seed != 5 ] && continue   # other seeds fault or deadlock first (below)
        PTXEMU_SEED=$seed PTXEMU_RACECHECK=1 "$launcher" "$work/hazards" $i >"$work/os" 2>"$work/es"
        n=$(grep -c "^ptxemu: race: ${kinds[$i]} " "$work/es")
        if [ $((i % 2)) = 0 ] && [ "$n" = 0 ]; then same=1; echo "case $i: no report with seed $seed"; fi
        if [ $((i % 2)) = 1 ] && [ -s "$work/es" ]; then same=1; echo "case $i: a report with seed $seed"; fi
    done
done
check "detection does not depend on the seed" $same
# seed 4 runs hazard 24's second round wait after its copies completed the next phase: the
# polling loop can never succeed, and deterministic mode says so instead of spinning on
PTXEMU_SEED=4 PTXEMU_REPORT="$work/dl.json" timeout 120 "$launcher" "$work/hazards" 24 >"$work/dl.out" 2>"$work/dl.err"
grep -q "deadlock: mbarrier wait never completes.*(mbarrier at shared offset 0x[0-9a-f]*: phase of parity 0 in progress, 1 of 1 arrivals and 0 transaction bytes pending; the wait is for parity 0)" "$work/dl.err" &&
    ! grep -q "likely a wrong parity" "$work/dl.err" &&
    grep -q "^kernel 24: unspecified launch failure" "$work/dl.out"
check "a polling loop that can never succeed is reported as a deadlock, with the mbarrier's state" $?
# ... and goes to PTXEMU_REPORT with every live warp: its place, state and mbarrier
[ "$(grep -c "\"kind\":\"deadlock\"" "$work/dl.json")" = 1 ] &&
    grep -q '^{"kind":"deadlock","code":719,"kernel":"_Z6phasesiPKiPi","demangled":"phases(int, int const\*, int\*)","message":"deadlock: mbarrier wait never completes.*"warps":\[{"block":\[0,0,0\],"thread":\[0,0,0\],"warp":0,.*"state":"polls[^"]*","mbarrier":{"shared_offset":[0-9]*,"phase_parity":0,"pending_arrivals":1,"expected_arrivals":1,"pending_tx":0,"wait_parity":0}},{"block":\[0,0,0\],"thread":\[32,0,0\],"warp":1,"ptx_line":[0-9]*,"src_file":"[^"]*hazards.cu","src_line":[1-9][0-9]*,"state":"polls[^"]*","mbarrier":{[^}]*}}\],"seed":4}$' "$work/dl.json"
check "the deadlock goes to PTXEMU_REPORT with every waiting warp" $?
# hazard 38 waits on parity 1 first: that wait passes at once on the fresh barrier; under
# seed 7 both copies land before the second wait (parity 0), which then waits for a phase
# nobody completes: the deadlock names the earlier wait as a likely wrong parity
PTXEMU_SEED=7 PTXEMU_REPORT="$work/dl38.json" timeout 120 "$launcher" "$work/hazards" 38 >"$work/dl38.out" 2>"$work/dl38.err"
grep -q "deadlock: mbarrier wait never completes.*likely a wrong parity: the wait at .*hazards.cu:[0-9]*, PTX line [0-9]* (warp 0) passed at once on this mbarrier while it was fresh" "$work/dl38.err" &&
    grep -q "^kernel 38: unspecified launch failure" "$work/dl38.out" &&
    grep -q '"kind":"deadlock".*likely a wrong parity.*"wait_parity":0}},{.*"warp":1,.*"state":"waits at a barrier (bar.sync / __syncthreads)","barrier":0}\],"seed":7}$' "$work/dl38.json"
check "a deadlock after a wait that passed on a fresh mbarrier is diagnosed as a likely wrong parity" $?
# wgmma reads its shared-memory operands through the async proxy (sm_90a)
"$NVCC" -gencode 'arch=compute_90a,code=[sm_90a,compute_90a]' --cudart shared -O2 -lineinfo \
    -o "$work/wgmma_hazards" "$here/race/wgmma_hazards.cu" || exit 1
wkinds=(read-after-write x async-proxy-read-without-proxy-fence x)
wnames=(wg_raw wg_raw_fixed wg_proxy wg_proxy_fixed)
for i in 0 1 2 3; do
    PTXEMU_RACECHECK=1 "$launcher" "$work/wgmma_hazards" $i >"$work/wout.$i" 2>"$work/werr.$i"
    if [ $((i % 2)) = 0 ]; then
        grep "^ptxemu: race: ${wkinds[$i]} " "$work/werr.$i" | grep -q "wgmma_hazards.cu:[0-9]*.*seed 1)" &&
            grep -q "^kernel $i: no error, out\[0\] = 64" "$work/wout.$i"
        check "${wnames[$i]}: reported as ${wkinds[$i]}" $?
    else
        ! grep -q "^ptxemu: race:" "$work/werr.$i" && grep -q "^kernel $i: no error, out\[0\] = 64" "$work/wout.$i"
        check "${wnames[$i]}: no report" $?
    fi
done
# an early read of wgmma's accumulators sees the old values (or the new ones once another warp
# of the warpgroup waited): the operation completes at the first wait
# (on stderr, and as a "warning" line of PTXEMU_REPORT)
rm -f "$work/wg4.json"
PTXEMU_REPORT="$work/wg4.json" "$launcher" "$work/wgmma_hazards" 4 >"$work/wout.4" 2>&1
grep -q "^kernel 4: no error, out\[0\] = 64" "$work/wout.4" && grep -Eq "^early read of d0: (0|16)$" "$work/wout.4" &&
    grep -q "accumulator register of a wgmma.mma_async in flight .* is accessed before wgmma.wait_group" "$work/wout.4" &&
    grep -q '^{"kind":"warning","kernel":"[^"]*","demangled":"[^"]*","block":\[0,0,0\],"thread":\[[0-9]*,0,0\],.*"src_line":[0-9]*,"message":"an accumulator register of a wgmma.mma_async in flight' "$work/wg4.json"
check "wg_early: wgmma completes at wait_group, an early read sees the old or new accumulators and is warned about (stderr and JSON)" $?
# with the race detector the early read is a hazard of its own kind, in its JSON too
rm -f "$work/wg4r.json"
PTXEMU_REPORT="$work/wg4r.json" PTXEMU_RACECHECK=1 "$launcher" "$work/wgmma_hazards" 4 >"$work/wout.4r" 2>&1
grep -q "^ptxemu: race: wgmma-accumulator-before-wait by block (0,0,0) thread (.*) at .*wgmma_hazards.cu:[0-9]*, PTX .*: it accesses an accumulator register of the wgmma.mma_async at .*wgmma_hazards.cu:[0-9]*" "$work/wout.4r" &&
    grep -q '^{"kind":"wgmma-accumulator-before-wait","space":"register",.*"accesses":\[{"kernel":"[^"]*","demangled":"[^"]*","op":"wgmma",' "$work/wg4r.json"
check "wg_early under --racecheck: reported as wgmma-accumulator-before-wait (stderr and JSON)" $?
PTXEMU_RACECHECK=error "$launcher" "$work/hazards" 0 >/dev/null 2>&1
[ $? = 1 ]; check "PTXEMU_RACECHECK=error fails a racy program" $?
PTXEMU_RACECHECK=error "$launcher" "$work/hazards" 1 >/dev/null 2>&1
check "PTXEMU_RACECHECK=error passes its fixed twin" $?
# a copy the host issues races with a kernel of another stream: printed when the copy is
# issued, written to PTXEMU_REPORT with the kernel's access and the copy's API and stream,
# and counted by PTXEMU_RACECHECK=error (the labelled cases are in tests/race/suite/copies.cu)
"$NVCC" -arch=sm_90 --cudart shared -lineinfo -o "$work/copies" "$here/race/suite/copies.cu" || exit 1
rm -f "$work/copies.json"
PTXEMU_REPORT="$work/copies.json" PTXEMU_RACECHECK=error "$launcher" "$work/copies" 0 >"$work/copies.out" 2>"$work/copies.err"
[ $? = 1 ] && grep -q "^ptxemu: race: read-after-write in global memory at .*of kernel produce(int\*, int) at .*copies.cu:[0-9]*, .*launched earlier, and the host's cuMemcpyDtoHAsync_v2 on stream #2, which no stream order" "$work/copies.err" &&
grep -q '^{"kind":"read-after-write","space":"global","address":[0-9]*,"host_copy":"cuMemcpyDtoHAsync_v2","count":256,"accesses":\[{"kernel":"_Z7producePii","demangled":"produce(int\*, int)","op":"st",.*},{"host_copy":"cuMemcpyDtoHAsync_v2","stream":"stream #2"}\],"allocation":' "$work/copies.json"
check "a host copy racing with a kernel of another stream: message, JSON, PTXEMU_RACECHECK=error" $?
# (mmaLdmatrixGemm: neighbouring threads store the two halves of one 32-bit word, which the
# byte-exact shadow must not report)
for s in vectorAdd matrixMul reduction histogram printf pipelineGemm tmaSwizzle clusterHistogram multicastBroadcast bulkReduce wmmaGemm wgmmaTmaGemm mmaLdmatrixGemm; do
    [ -x "$build/samples/$s" ] || continue
    PTXEMU_RACECHECK=1 "$launcher" "$build/samples/$s" >"$work/$s.out" 2>"$work/$s.err"
    ! grep -q "^ptxemu: race:" "$work/$s.err" && cmp -s "$work/$s.out" "$here/expected/samples/$s.out"
    check "sample $s: no report, H100 output" $?
done
echo "race tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
