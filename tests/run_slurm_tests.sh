#!/bin/bash
# run_slurm_tests.sh - scripts/slurm/race.sbatch and grade.sbatch on a one-node Slurm cluster
# started here (Debian's slurm-wlm: slurmctld and slurmd on localhost, a generated
# configuration with auth/none, free ports, everything in a temporary folder; stopped at the
# end), and the same two jobs through GNU parallel, the way without a scheduler:
#   1. ptxemu race as a job array of 4 shards finds tests/det/planted.cu's lost update;
#      ptxemu race --merge prints the seed and its replay command and exits 1; the replay
#      command, run outside the cluster, reproduces the different output; a clean program
#      merges to exit 0; missing shards make the merge incomplete (exit 2);
#   2. grade.sbatch grades a folder of three students' lab 01 submissions as a job array;
#      labs/gradebook.py merges them into a CSV and a JSON gradebook with the right grades.
# Exit: 0 all passed, 1 some failed, 77 (skipped) without nvcc or slurm-wlm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
for t in slurmctld slurmd sbatch scontrol sinfo; do
    command -v $t >/dev/null 2>&1 || [ -x /usr/sbin/$t ] ||
        { echo "SKIP: no $t (apt-get install slurm-wlm)"; exit 77; }
done
export PATH=$PATH:/usr/sbin
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-slurm.XXXXXX") || exit 99
chmod 755 "$work"
pass=0 fail=0
check() { if [ "$2" = 0 ]; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }

# ---- the cluster ----
free_port() {
    "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
me=$(id -un)
conf=$work/slurm.conf
mkdir -p "$work/state" "$work/spool"
cat >"$conf" <<EOF
ClusterName=ptxemutest
SlurmctldHost=localhost
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$me
SlurmdUser=$me
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdTimeout=300
NodeName=ptxemunode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=ptxemu Nodes=ptxemunode Default=YES MaxTime=30 State=UP
EOF
export SLURM_CONF=$conf
stop_cluster() {
    scontrol shutdown >/dev/null 2>&1
    for f in "$work/slurmd.pid" "$work/slurmctld.pid"; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill "$pid" 2>/dev/null
    done
}
trap 'stop_cluster; rm -rf "$work"' EXIT INT TERM
if ! slurmctld -f "$conf" >"$work/start.log" 2>&1 || ! slurmd -f "$conf" -N ptxemunode >>"$work/start.log" 2>&1; then
    echo "SKIP: the Slurm daemons would not start here:"
    cat "$work/start.log"; tail -n 5 "$work/slurmctld.log" "$work/slurmd.log" 2>/dev/null
    exit 77
fi
up=1
for _ in $(seq 1 60); do
    sinfo -h -N -o '%T' 2>/dev/null | grep -q idle && { up=0; break; }
    sleep 1
done
check "a one-node cluster (slurmctld and slurmd on localhost) comes up" $up
if [ $up != 0 ]; then
    tail -n 20 "$work/slurmctld.log" "$work/slurmd.log"
    echo "$pass passed, $fail failed"
    exit 1
fi

# ---- 1. ptxemu race as a job array ----
cd "$work" || exit 99
"$NVCC" -arch=sm_90 -o planted "$srcdir/tests/det/planted.cu" || exit 99
cat >clean.cu <<'EOF'
#include <cstdio>
__global__ void twice(int *a) { a[threadIdx.x] *= 2; }
int main()
{
    int h[64], *d;
    for (int i = 0; i < 64; i++) h[i] = i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    twice<<<1, 64>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d\n", h[1], h[63]);
    return 0;
}
EOF
"$NVCC" -arch=sm_90 -o clean clean.cu || exit 99
export PTXEMU=$ptxemu
RACE_DIR=$work/race timeout 900 sbatch --wait --array=0-3 --output="$work/race-%a.out" \
    "$srcdir/scripts/slurm/race.sbatch" --seeds 40 --no-racecheck ./planted >sbatch.out 2>&1
ls race/shard-*.json >/dev/null 2>&1 && [ "$(ls race/shard-*.json | wc -l)" = 4 ]
check "race.sbatch: 4 array tasks wrote their shards' JSON" $?
"$ptxemu" race --merge race/shard-*.json >merge.out 2>merge.err
st=$?
seed=$(sed -n 's/^replay: ptxemu --seed \([0-9]*\) \.\/planted$/\1/p' merge.out)
[ $st = 1 ] && grep -q "^ptxemu race: seed $seed gives different output than seed 1" merge.out &&
    grep -q "^found by shard [0-3]/4 (host " merge.out
check "race --merge: the first seed that differed (${seed:-none}), its shard and replay command; exit 1" $?
[ $st = 1 ] || { cat merge.out merge.err; cat race-*.out; }
if [ -n "$seed" ]; then
    # another node: the replay command, run here outside the cluster, in a folder of its own
    mkdir -p elsewhere && cp planted elsewhere/ && cd elsewhere || exit 99
    cmd=$(sed -n 's/^replay: //p' ../merge.out)
    eval "${cmd/#ptxemu/\"$ptxemu\"}" >replayed.out 2>/dev/null
    "$ptxemu" --seed 1 ./planted >seed1.out 2>/dev/null
    ! cmp -s replayed.out seed1.out && grep -qx "$(sed -n 's/^  line 1, seed [0-9]*: //p' ../merge.out | tail -n 1)" replayed.out
    check "the printed replay command reproduces the shard's different output off the cluster" $?
    cd "$work" || exit 99
fi
"$ptxemu" race --merge race/shard-0.json race/shard-2.json race/shard-3.json >partial.out 2>partial.err
st=$?
[ $st = 1 ] && grep -q "no file of shard 1/4" partial.err || {
    # the finding may have been in shard 1: then nothing is found in the rest, and it is incomplete
    [ $st = 2 ] && grep -q "no file of shard 1/4" partial.err; }
check "race --merge with a shard missing says so (exit 1 with a finding, else 2)" $?
RACE_DIR=$work/race-clean timeout 900 sbatch --wait --array=0-1 --output="$work/clean-%a.out" \
    "$srcdir/scripts/slurm/race.sbatch" --seeds 6 ./clean >sbatch2.out 2>&1
"$ptxemu" race --merge race-clean/shard-*.json >clean-merge.out 2>&1
st=$?
[ $st = 0 ] && grep -q "^ptxemu race: 6 seeds over 2 shards, all outputs identical to seed 1, no hazard reported (race detector on)" clean-merge.out
check "a clean program's shards merge to exit 0" $?
[ $st = 0 ] || cat clean-merge.out

# ---- 2. grading a folder of submissions ----
subs=$work/submissions
mkdir -p "$subs/alice" "$subs/bob" "$subs/carol"
cp "$srcdir/labs/01-vector-add/solution.cu" "$subs/alice/01-vector-add.cu"
cp "$srcdir/labs/01-vector-add/bug_race.cu" "$subs/bob/01-vector-add.cu"
cp "$srcdir/labs/01-vector-add/starter.cu" "$subs/carol/01-vector-add.cu"
cp "$srcdir/labs/01-vector-add/solution.cu" "$subs/carol/99-no-such-lab.cu"
LABS=$srcdir/labs PYTHON=$py timeout 900 sbatch --wait --array=0-1 --output="$work/grade-%a.out" \
    "$srcdir/scripts/slurm/grade.sbatch" "$subs" "$work/graded" >sbatch3.out 2>&1
"$py" "$srcdir/labs/gradebook.py" --submissions "$subs" "$work/graded" >book.out 2>&1
st=$?
csv=$work/graded/gradebook.csv
grep -q '^student,01-vector-add,99-no-such-lab,passed,of$' "$csv" &&
    grep -q '^alice,PASS,missing,1,2$' "$csv" && grep -q '^bob,FAIL: race,missing,0,2$' "$csv" &&
    grep -q '^carol,FAIL: wrong-result,error: no lab named 99-no-such-lab in .*,0,2$' "$csv" && [ $st = 1 ]
check "grade.sbatch + gradebook.py: one CSV row a student, right grades, an unknown lab flagged" $?
[ -f "$csv" ] && cat "$csv" || { cat book.out; cat grade-*.out; }
"$py" - "$work/graded/gradebook.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
s = b["students"]
ok = (b["labs"] == ["01-vector-add", "99-no-such-lab"] and s["alice"]["01-vector-add"]["passed"] and
      s["bob"]["01-vector-add"]["reasons"] == ["race"] and
      any(c["name"] and c["status"] == "fail" for c in s["bob"]["01-vector-add"]["checks"]) and
      b["summary"]["01-vector-add"] == {"passed": 1, "failed": 2, "missing": 0, "errors": 0})
sys.exit(0 if ok else 1)
EOF
check "the JSON gradebook holds every check of every submission and a summary per lab" $?

# ---- 3. the same without a scheduler: GNU parallel ----
if command -v parallel >/dev/null 2>&1; then
    mkdir -p par
    parallel --will-cite -j 2 "$ptxemu" race --seeds 40 --no-racecheck --shard {}/4 \
        --json par/shard-{}.json ./planted ::: 0 1 2 3 >/dev/null 2>&1
    "$ptxemu" race --merge par/shard-*.json >par.out 2>&1
    [ $? = 1 ] && diff <(grep -v "^found by" par.out) <(grep -v "^found by" merge.out) >/dev/null
    check "GNU parallel runs the same shards; the merge finds the same seed" $?
else
    echo "SKIP: no GNU parallel"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
