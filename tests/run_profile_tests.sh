#!/bin/sh
# run_profile_tests.sh - `ptxemu --profile`: its counters on kernels whose answer is known
# (a naive transpose stores 32 sectors a request, a tiled one reads shared memory with 32-way
# bank conflicts, a padded one without), and its H100 time estimate, which must rank the probe
# kernels of tests/perf/probes.cu as the H100 did (tests/expected/perf, recorded with
# tests/perf/record.sh). 77 without nvcc or python3.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$build/runtime/ptxemu}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT
"$NVCC" -arch=sm_90 -O2 -o "$work/probes" "$here/perf/probes.cu" || exit 99
pass=0 fail=0
check() { if [ "$2" = 0 ]; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }

PTXEMU_REPORT="$work/r.json" "$ptxemu" --profile "$work/probes" 1024 1 >"$work/out" 2>"$work/err"
grep -q "^done: no error" "$work/out"
check "the probes run under --profile" $?
# the counters: naive stores scatter over 32 sectors, the tiled transpose reads shared memory
# with 32-way conflicts, padding removes them
grep -A3 "kernel transpose_naive(float const\*, float\*, int)" "$work/err" | grep -q "global loads: 32768 requests, 4.00 sectors a request; stores: 32768 requests, 32.00 sectors a request" &&
    grep -A3 "kernel transpose_tiled(float const\*, float\*, int)" "$work/err" | grep -q "shared loads: 32768 requests, 32.00 wavefronts a request; stores: 32768 requests, 1.00 wavefronts a request" &&
    grep -A3 "kernel transpose_padded(float const\*, float\*, int)" "$work/err" | grep -q "shared loads: 32768 requests, 1.00 wavefronts a request" &&
    grep -A6 "kernel transpose_tiled(float const\*, float\*, int)" "$work/err" | grep -q "occupancy: theoretical 100% (8 blocks of 8 warps an SM.*achieved [0-9.]*% ([0-9]* waves* of blocks over 132 SMs)"
check "sectors a request, wavefronts a request and occupancy of the transposes" $?
python3 - "$work/r.json" "$here/expected/perf/probes.1024.txt" <<'PYEOF'
import json, re, sys
est = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["kind"] == "profile":
        name = re.sub(r"^_Z\d+", "", d["kernel"])
        name = re.match(r"[a-z_]+", name).group(0)
        est[name] = d["estimated_h100_ns"]   # the last launch of each
gpu = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[2]) if l[0] != "d"}
groups = [["transpose_naive", "transpose_tiled", "transpose_padded"], ["row_sums", "col_sums"],
          ["reduce_interleaved", "reduce_sequential", "reduce_shuffle"]]
agree = total = 0
for g in groups:
    for i in range(len(g)):
        for j in range(i + 1, len(g)):
            a, b = g[i], g[j]
            total += 1
            same = (est[a] > est[b]) == (gpu[a] > gpu[b]) and est[a] != est[b]
            agree += same
            print(f"{a} vs {b}: H100 {gpu[a]:.1f} / {gpu[b]:.1f} us, model {est[a]/1000:.1f} / {est[b]/1000:.1f} us: {'agree' if same else 'DISAGREE'}")
print(f"rank agreement: {agree} of {total} pairs")
sys.exit(0 if agree == total else 1)
PYEOF
check "the estimated H100 times rank the probes as the H100 did" $?
# --clock model: the program's own cudaEvent timing reads the model's time, so a course's
# "kernel took X us" lines rank the variants as the H100 does
"$ptxemu" --clock model "$work/probes" 1024 1 >"$work/model" 2>"$work/model.err"
python3 - "$work/model" "$here/expected/perf/probes.1024.txt" <<'EOF'
import sys
got = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1]) if l[0] != "d"}
gpu = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[2]) if l[0] != "d"}
order = lambda d, g: sorted(g, key=lambda k: d[k])
groups = [["transpose_naive", "transpose_tiled", "transpose_padded"], ["row_sums", "col_sums"],
          ["reduce_interleaved", "reduce_sequential", "reduce_shuffle"]]
ok = all(order(got, g) == order(gpu, g) for g in groups)
ok = ok and abs(got["transpose_naive"] - 14.3) < 0.15   # the estimate, not host time
print("events under --clock model:", got)
sys.exit(0 if ok else 1)
EOF
check "--clock model: cudaEvent times are the model's and rank the probes as the H100" $?
# streams: under --clock model, copies on one stream overlap kernels on another and pageable
# copies hold the host, so the lesson's three versions rank as they did on the H100
"$NVCC" -arch=sm_90 -O2 -o "$work/streams" "$here/perf/streams.cu" || exit 99
ok=0
for n in 262144 1048576; do
    "$ptxemu" --clock model "$work/streams" $n 1 >"$work/streams.$n" 2>&1
    python3 - "$work/streams.$n" "$here/expected/perf/streams.$n.txt" <<'EOF' || ok=1
import sys
rows = lambda f: {l.split()[0]: l.split()[1] for l in open(f) if l.strip()}
got, gpu = rows(sys.argv[1]), rows(sys.argv[2])
same_sum = got.pop("checksum", None) == gpu.pop("checksum", None)
got = {k: float(v) for k, v in got.items()}
gpu = {k: float(v) for k, v in gpu.items()}
print("streams under --clock model:", got, "H100:", gpu)
sys.exit(0 if same_sum and sorted(got, key=got.get) == sorted(gpu, key=gpu.get) else 1)
EOF
done
check "--clock model: streams overlap copies with kernels and pageable copies do not, ranked as on the H100" $ok
# clock64 under --clock model: the cycles a warp's loop takes rank the variants as the H100's
# clock64 did (pairs within 5% on the H100 count as ties and are not compared)
"$NVCC" -arch=sm_90 -O2 -o "$work/clocks" "$here/perf/clocks.cu" || exit 99
ok=0
for n in 132 528; do
    "$ptxemu" --clock model "$work/clocks" $n >"$work/clocks.$n" 2>&1
    python3 - "$work/clocks.$n" "$here/expected/perf/clocks.$n.txt" <<'EOF' || ok=1
import sys
rows = lambda f: {l.split()[0]: float(l.split()[1]) for l in open(f) if l.strip()}
got, gpu = rows(sys.argv[1]), rows(sys.argv[2])
agree = total = 0
for a in gpu:
    for b in gpu:
        if a < b and abs(gpu[a] - gpu[b]) > 0.05 * max(gpu[a], gpu[b]):
            total += 1
            agree += (got[a] < got[b]) == (gpu[a] < gpu[b])
print("clock64 under --clock model:", got, "H100:", gpu, "pairs agreeing: %d of %d" % (agree, total))
sys.exit(0 if total and agree == total else 1)
EOF
done
check "--clock model: clock64 cycles rank bank conflicts and uncoalesced loads as on the H100" $ok
# the lessons (tests/perf/lessons.cu): atomics on one address, few and many, shared and
# global, red and atom; the f64, integer-multiply and special-function units; memory and
# divergence. Under --clock model every pair that differs by more than 10% on the H200 must
# rank as it did there: the test-size run (ci) against its recording, and the unit-rate
# chains at full size against the full run's recording. At least 12 pairs are compared.
"$NVCC" -arch=sm_90 -O2 -o "$work/lessons" "$here/perf/lessons.cu" || exit 99
"$ptxemu" --clock model "$work/lessons" 1048576 1 ci >"$work/lessons.ci" 2>&1
"$ptxemu" --clock model "$work/lessons" 1048576 1 units >"$work/lessons.units" 2>&1
python3 - "$work/lessons.ci" "$here/expected/perf/lessons.1048576.ci.txt" "$work/lessons.units" "$here/expected/perf/lessons.1048576.txt" <<'EOF'
import sys
def rows(f):
    d = {}
    for l in open(f):
        w = l.split()
        if len(w) == 2 and w[0] not in ("pair", "done:"): d[w[0]] = float(w[1])
    return d
agree = total = 0
for got_f, gpu_f in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    got, gpu = rows(got_f), rows(gpu_f)
    for l in open(gpu_f):
        if not l.startswith("pair "): continue
        a, b = l.split()[1:3]
        if a not in got or b not in got or abs(gpu[a] - gpu[b]) <= 0.10 * max(gpu[a], gpu[b]): continue
        total += 1
        same = (got[a] > got[b]) == (gpu[a] > gpu[b]) and got[a] != got[b]
        agree += same
        print(f"{a} vs {b}: H200 {gpu[a]} / {gpu[b]} us, model {got[a]} / {got[b]} us: {'agree' if same else 'DISAGREE'}")
print(f"lessons: {agree} of {total} pairs rank as on the H200")
sys.exit(0 if total >= 12 and agree == total else 1)
EOF
check "--clock model: the lessons' pairs (atomics, unit rates, memory, divergence) rank as on the H200" $?
# %clock's pace without --clock model: a loop that waits 100000 cycles makes within a factor
# of 1.5 as many passes as on the H100, from one warp alone to a full SM
"$NVCC" -arch=sm_90 -O2 -o "$work/clockpace" "$here/perf/clockpace.cu" || exit 99
"$ptxemu" "$work/clockpace" >"$work/clockpace.out" 2>&1
python3 - "$work/clockpace.out" "$here/expected/perf/clockpace.txt" <<'EOF'
import sys
rows = lambda f: {l.split()[0]: float(l.split()[1]) for l in open(f) if l.strip()}
got, gpu = rows(sys.argv[1]), rows(sys.argv[2])
print("passes a warp:", got, "H100:", gpu)
sys.exit(0 if got.keys() == gpu.keys() and all(1 / 1.5 <= got[k] / gpu[k] <= 1.5 for k in gpu) else 1)
EOF
check "%clock paces a clock-waiting loop as the H100 does, by warps an SM" $?
echo "profile tests: $pass passed, $fail failed"
[ $fail = 0 ]
