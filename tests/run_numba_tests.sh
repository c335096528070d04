#!/bin/bash
# run_numba_tests.sh - Numba's CUDA target on ptxemu, with Debian's python3-numba:
#   1. tests/numba/examples.py, what a Numba user writes: kernels, device functions, shared
#      and local arrays, atomics, streams and events, pinned, mapped and managed memory,
#      math, warp intrinsics, cooperative groups' grid sync, cuda.reduce, cuda.detect();
#   2. a representative part of Numba's own test suite (numba.cuda.tests: the driver,
#      contexts, memory, streams, events, the linker, devices, atomics, cooperative groups,
#      shared and local memory, device functions, reductions, fork detection, several GPUs,
#      warp operations, IPC between processes, the documentation's examples), with two
#      emulated GPUs: every test must pass (or be skipped by Numba, which says why), or end
#      as tests/numba/reasons.txt says it does and why (a reason outside ptxemu); a test
#      listed there that passes is a failure too, so the list stays true.
# tests/numba/survey.sh runs the whole suite (docs/python.md).
# Exit: 0 passed, 1 failed, 77 (skipped) without nvcc/libNVVM or without python3-numba.
set -u
[ -z "${PTXEMU_SANITIZER_BUILD:-}" ] ||
    { echo "SKIP: a sanitizer build (scripts/sanitize-check.sh): the Python interpreter's allocations are not ptxemu's"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
# Debian's numba is for Debian's python3: prefer it to another python3 on PATH
py=${PYTHON_NUMBA:-}
for c in /usr/bin/python3 python3; do
    [ -n "$py" ] && break
    "$c" -c 'import numba.cuda' 2>/dev/null && py=$c
done
[ -n "$py" ] || { echo "SKIP: no Python with numba (apt-get install python3-numba)"; exit 77; }
export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "${NVCC:-/usr/local/cuda/bin/nvcc}")")}
nvvm=
for f in "$CUDA_HOME"/nvvm/lib64/libnvvm.so* "$CUDA_HOME"/lib64/libnvvm.so*; do [ -e "$f" ] && nvvm=$f; done
[ -n "$nvvm" ] || { echo "SKIP: no libNVVM under CUDA_HOME=$CUDA_HOME"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-numba.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 99   # Numba's tests write caches beside them
fail=0

# ---- 1. the examples ----
timeout 600 "$ptxemu" "$py" "$srcdir/tests/numba/examples.py" >examples.out 2>examples.err
st=$?
grep -E "^(PASS|FAIL): " examples.out
if [ $st != 0 ] || ! grep -q "^PASS: " examples.out; then
    echo "FAIL: tests/numba/examples.py (exit $st)"
    tail -n 20 examples.err
    fail=1
fi

# ---- 2. a part of Numba's test suite ----
modules="cudadrv.test_cuda_driver cudadrv.test_context_stack cudadrv.test_cuda_memory
    cudadrv.test_events cudadrv.test_streams cudadrv.test_host_alloc cudadrv.test_pinned
    cudadrv.test_linker cudadrv.test_runtime cudadrv.test_deallocations
    cudadrv.test_reset_device cudadrv.test_select_device cudapy.test_atomics
    cudapy.test_cooperative_groups cudapy.test_localmem cudapy.test_sm cudapy.test_device_func
    cudapy.test_reduction cudapy.test_multiprocessing cudapy.test_multigpu cudapy.test_warp_ops
    cudapy.test_ipc
    doc_examples.test_vecadd doc_examples.test_cg doc_examples.test_matmul
    doc_examples.test_reduction"
names=$(for m in $modules; do echo "numba.cuda.tests.$m"; done)
# shellcheck disable=SC2086  # module names have no spaces
PTXEMU_DEVICES=2 timeout 1200 "$ptxemu" "$py" "$srcdir/tests/numba/runner.py" $names \
    >suite.out 2>suite.err
st=$?
for m in $names; do
    grep -qx "DONE $m" suite.out || { echo "FAIL: $m did not run to its end (exit $st)"; fail=1; }
done
[ $fail = 0 ] || tail -n 20 suite.err
"$py" - "$srcdir/tests/numba/reasons.txt" suite.out <<'EOF' || fail=1
import fnmatch, sys
reasons = []
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        pattern, outcomes, why = line.rstrip("\n").split("\t", 2)
        reasons.append((pattern, set(outcomes.split(",")), why))
counts, bad = {}, 0
for line in open(sys.argv[2]):
    if not line.startswith("RESULT "):
        continue
    _, outcome, test, *msg = line.rstrip("\n").split(" ", 3)
    counts[outcome] = counts.get(outcome, 0) + 1
    known = [r for r in reasons if fnmatch.fnmatchcase(test, r[0])]
    if outcome == "skip":   # Numba says why (a feature of the toolkit, another platform)
        continue
    if outcome in ("pass", "xfail"):
        if any(outcome not in r[1] and "pass" not in r[1] for r in known):
            print("FAIL: %s passes, but tests/numba/reasons.txt says it does not: update it" % test)
            bad += 1
        continue
    if not any(outcome in r[1] for r in known):
        print("FAIL: %s: %s %s" % (test, outcome, msg[0][:300] if msg else ""))
        bad += 1
print("numba.cuda.tests part: " + ", ".join("%d %s" % (n, o) for o, n in sorted(counts.items())) +
      "; %d not as tests/numba/reasons.txt expects" % bad)
sys.exit(1 if bad or not counts.get("pass") else 0)
EOF
[ $fail = 0 ] && echo "PASS: Numba's examples and test suite part" || echo "FAIL: Numba on ptxemu"
exit $fail
